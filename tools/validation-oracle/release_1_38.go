//go:build k8s138

package main

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// release names the k8s.io/kubernetes line this build runs.
const release = "1.38"

// validateCreate: as 1.37 (release_1_37.go): rest.ValidateCreate, the strategy's
// Validate, the generic ObjectMeta validation when it passed, then declarative validation
// (all six strategies embed rest.DeclarativeValidation), which filters the handwritten errors.
func validateCreate(ctx context.Context, strategy rest.RESTCreateStrategy, obj runtime.Object, _ metav1.Object) field.ErrorList {
	return rest.ValidateCreate(ctx, obj, strategy)
}

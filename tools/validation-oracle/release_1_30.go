//go:build k8s130

package main

import (
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
)

// release names the k8s.io/kubernetes line this build runs.
const release = "1.30"

// strategies: the create strategy and resource of each kind, as pkg/registry/admissionregistration/*/storage builds them.
var strategies = map[string]struct {
	strategy rest.RESTCreateStrategy
	resource string
}{
	"ValidatingWebhookConfiguration":   {validatingwebhookconfiguration.Strategy, "validatingwebhookconfigurations"},
	"MutatingWebhookConfiguration":     {mutatingwebhookconfiguration.Strategy, "mutatingwebhookconfigurations"},
	"ValidatingAdmissionPolicy":        {validatingadmissionpolicy.NewStrategy(nil, noResolver), "validatingadmissionpolicies"},
	"ValidatingAdmissionPolicyBinding": {validatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver), "validatingadmissionpolicybindings"},
}

// validatePathSegment: the name check rest.BeforeCreate passes in 1.30.
var validatePathSegment = path.ValidatePathSegmentName

// validateCreate: rest.BeforeCreate's validation in 1.30.
var validateCreate = handwrittenCreate

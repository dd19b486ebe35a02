package main

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

type runtimeObject = runtime.Object

// compiledCondition is one expression compiled by a policy's compiler: its compile error and
// the evaluator's ForInput (a Filter in 1.30, a ConditionEvaluator later; same signature).
type compiledCondition struct {
	err      *apiservercel.Error
	forInput func(ctx context.Context, versionedAttr *admission.VersionedAttributes, request *admissionv1.AdmissionRequest, optionalVars plugincel.OptionalVariableBindings, namespace *corev1.Namespace, runtimeCELCostBudget int64) ([]plugincel.EvaluationResult, int64, error)
}

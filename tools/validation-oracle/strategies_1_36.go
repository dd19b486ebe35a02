//go:build !k8s130

package main

import (
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
)

// strategies (1.36 and later): the create strategy and resource of each kind, as pkg/registry/admissionregistration/*/storage builds them.
var strategies = map[string]struct {
	strategy rest.RESTCreateStrategy
	resource string
}{
	"ValidatingWebhookConfiguration":   {validatingwebhookconfiguration.Strategy, "validatingwebhookconfigurations"},
	"MutatingWebhookConfiguration":     {mutatingwebhookconfiguration.Strategy, "mutatingwebhookconfigurations"},
	"ValidatingAdmissionPolicy":        {validatingadmissionpolicy.NewStrategy(nil, noResolver), "validatingadmissionpolicies"},
	"ValidatingAdmissionPolicyBinding": {validatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver), "validatingadmissionpolicybindings"},
	"MutatingAdmissionPolicy":          {mutatingadmissionpolicy.NewStrategy(nil, noResolver), "mutatingadmissionpolicies"},
	"MutatingAdmissionPolicyBinding":   {mutatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver), "mutatingadmissionpolicybindings"},
}

// validatePathSegment: rest.BeforeCreate's name check (unexported there).
func validatePathSegment(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

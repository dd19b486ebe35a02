// Command gatekeeper-oracle runs Gatekeeper's own ValidatingAdmissionPolicy generation
// (open-policy-agent/gatekeeper/v3 pkg/drivers/k8scel/transform, v3.23) on ConstraintTemplates
// and their constraints, for the differential test of src/migrate/gatekeeper.
//
// stdin: a JSON array of {"template": {...}, "constraints": [{...}, ...]}.
// stdout: a JSON array, one entry per input: {"policy": VAP|null, "error"?: string,
// "bindings": [{"binding": VAPB|null, "error"?: string}]}.
//
// The template is decoded as the constraint-template controller sees it (the versioned type of its
// apiVersion, converted to the unversioned one through the frameworks scheme), then
// transform.TemplateToPolicyDefinition; each constraint's actions are those the constraint
// controller computes (util.GetEnforcementAction, and util.ScopedActionForEP for `scoped`), then
// transform.ConstraintToBinding. Both are printed as admissionregistration.k8s.io/v1, as the
// controllers write them on a cluster that serves v1: their v1beta1ToV1 (unexported) copies every
// field the transform sets, so a JSON round trip from the v1beta1 struct into the v1 struct gives
// the same object.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/open-policy-agent/frameworks/constraint/pkg/apis"
	"github.com/open-policy-agent/frameworks/constraint/pkg/core/templates"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/drivers/k8scel/transform"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/util"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

type item struct {
	Template    map[string]any   `json:"template"`
	Constraints []map[string]any `json:"constraints"`
}

type bindingOut struct {
	Binding any    `json:"binding"`
	Error   string `json:"error,omitempty"`
}

type itemOut struct {
	Policy   any          `json:"policy"`
	Error    string       `json:"error,omitempty"`
	Bindings []bindingOut `json:"bindings"`
}

var scheme = runtime.NewScheme()

func init() {
	if err := apis.AddToScheme(scheme); err != nil {
		panic(err)
	}
}

// unversioned decodes the template in its own apiVersion and converts it as the controller does.
func unversioned(obj map[string]any) (*templates.ConstraintTemplate, error) {
	u := &unstructured.Unstructured{Object: obj}
	typed, err := scheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return nil, err
	}
	out := &templates.ConstraintTemplate{}
	if err := scheme.Convert(typed, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// asV1 re-reads a v1beta1 struct as its v1 counterpart (same JSON fields) and sets the type meta.
func asV1(in any, into any, kind string) (any, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return nil, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(into)
	if err != nil {
		return nil, err
	}
	u["apiVersion"] = admissionregistrationv1.SchemeGroupVersion.String()
	u["kind"] = kind
	// creationTimestamp: null and status: {} are the typed struct's zero values, not part of what
	// is generated (the apiserver sets both itself on create)
	if md, ok := u["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	if st, ok := u["status"].(map[string]any); ok && len(st) == 0 {
		delete(u, "status")
	}
	return u, nil
}

// actions is what the constraint controller hands ConstraintToBinding.
func actions(c *unstructured.Unstructured) ([]string, error) {
	ea, err := util.GetEnforcementAction(c.Object)
	if err != nil {
		return nil, err
	}
	if ea == util.Scoped {
		return util.ScopedActionForEP(util.VAPEnforcementPoint, c)
	}
	return []string{string(ea)}, nil
}

func run(it item) itemOut {
	out := itemOut{Bindings: []bindingOut{}}
	ct, err := unversioned(it.Template)
	if err == nil {
		var vap any
		p, perr := transform.TemplateToPolicyDefinition(ct)
		if perr == nil {
			vap, perr = asV1(p, &admissionregistrationv1.ValidatingAdmissionPolicy{}, "ValidatingAdmissionPolicy")
		}
		out.Policy, err = vap, perr
	}
	if err != nil {
		out.Error = err.Error()
	}
	for _, c := range it.Constraints {
		u := &unstructured.Unstructured{Object: c}
		var b bindingOut
		acts, err := actions(u)
		if err == nil {
			var vapb any
			bb, berr := transform.ConstraintToBinding(u, acts)
			if berr == nil {
				vapb, berr = asV1(bb, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, "ValidatingAdmissionPolicyBinding")
			}
			b.Binding, err = vapb, berr
		}
		if err != nil {
			b.Error = err.Error()
		}
		out.Bindings = append(out.Bindings, b)
	}
	return out
}

func main() {
	// `serve` and `review`: Gatekeeper's webhook and its decisions (serve.go, review.go)
	if len(os.Args) > 1 {
		var err error
		switch {
		case os.Args[1] == "serve" && len(os.Args) == 4:
			err = serve(os.Args[2], os.Args[3])
		case os.Args[1] == "review" && len(os.Args) == 2:
			err = reviewMain()
		default:
			err = fmt.Errorf("usage: gatekeeper-oracle [serve POLICIES.yaml CLUSTER.json | review] (no argument: the VAP generation)")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var items []item
	if err := json.Unmarshal(raw, &items); err != nil {
		fmt.Fprintln(os.Stderr, "input:", err)
		os.Exit(1)
	}
	outs := make([]itemOut, 0, len(items))
	for _, it := range items {
		outs = append(outs, run(it))
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(outs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

// ---------------------------------------------------------------------------
// Inputs

type rawInputs struct {
	Object          json.RawMessage            `json:"object"`
	OldObject       json.RawMessage            `json:"oldObject"`
	Request         json.RawMessage            `json:"request"`
	Params          json.RawMessage            `json:"params"`
	NamespaceObject json.RawMessage            `json:"namespaceObject"`
	Variables       map[string]json.RawMessage `json:"variables"`
	Authorizer      *struct {
		Rules []authzRule `json:"rules"`
	} `json:"authorizer"`
}

type inputs struct {
	object, oldObject, params runtime.Object
	request                   *admissionv1.AdmissionRequest
	attrs                     *admission.VersionedAttributes
	namespace                 *corev1.Namespace
	variables                 map[string]ref.Val
	authz                     *ruleAuthorizer
	createdNS                 *corev1.Namespace // CreateNamespaceObject(namespace), computed once
}

var inputCache = map[string]*inputs{}

// decodeJSON decodes JSON the way the apiserver's unstructured decoding does: integers
// (no fraction, no exponent, within int64) become int64, other numbers float64.
func decodeJSON(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return convertNumbers(v), nil
}

func convertNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = convertNumbers(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = convertNumbers(e)
		}
		return t
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(t), 64)
		return f
	}
	return v
}

func toObject(raw json.RawMessage) (runtime.Object, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a JSON object, got %T", v)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// parseInputs reads test inputs: in one pass (inputs_fast.go) when it can, else parseInputsSlow.
func parseInputs(s string) (*inputs, error) {
	if in, err := parseInputsFast(s); err == nil {
		return in, nil
	}
	return parseInputsSlow(s)
}

func parseInputsSlow(s string) (*inputs, error) {
	var r rawInputs
	if strings.TrimSpace(s) != "" {
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			return nil, fmt.Errorf("invalid inputs: %w", err)
		}
	}
	in := &inputs{}
	var err error
	if in.object, err = toObject(r.Object); err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	if in.oldObject, err = toObject(r.OldObject); err != nil {
		return nil, fmt.Errorf("oldObject: %w", err)
	}
	if in.params, err = toObject(r.Params); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	req := &admissionv1.AdmissionRequest{}
	if len(bytes.TrimSpace(r.Request)) > 0 && string(bytes.TrimSpace(r.Request)) != "null" {
		if err := json.Unmarshal(r.Request, req); err != nil {
			return nil, fmt.Errorf("request: %w", err)
		}
	}
	if len(bytes.TrimSpace(r.NamespaceObject)) > 0 && string(bytes.TrimSpace(r.NamespaceObject)) != "null" {
		ns := &corev1.Namespace{}
		if err := json.Unmarshal(r.NamespaceObject, ns); err != nil {
			return nil, fmt.Errorf("namespaceObject: %w", err)
		}
		in.namespace = ns
	}
	if len(r.Variables) > 0 {
		in.variables = map[string]ref.Val{}
		for name, raw := range r.Variables {
			v, err := decodeJSON(raw)
			if err != nil {
				return nil, fmt.Errorf("variables.%s: %w", name, err)
			}
			in.variables[name] = nativeToVal(v)
		}
	}
	if r.Authorizer != nil {
		in.authz = &ruleAuthorizer{rules: r.Authorizer.Rules}
	}
	var optionsObj runtime.Object
	if len(req.Options.Raw) > 0 {
		if o, err := toObject(req.Options.Raw); err == nil && o != nil {
			optionsObj = o
		}
	}
	finishInputs(in, req, optionsObj)
	return in, nil
}

// finishInputs completes inputs with the request as CreateAdmissionRequest leaves it and the
// admission attributes the activation and the authorizer read.
func finishInputs(in *inputs, req *admissionv1.AdmissionRequest, optionsObj runtime.Object) {
	// As CreateAdmissionRequest: no uid/object/oldObject, requestKind/requestResource always set,
	// dryRun always set.
	req.UID = ""
	req.Object = runtime.RawExtension{}
	req.OldObject = runtime.RawExtension{}
	if req.RequestKind == nil {
		k := req.Kind
		req.RequestKind = &k
	}
	if req.RequestResource == nil {
		rr := req.Resource
		req.RequestResource = &rr
	}
	if req.RequestSubResource == "" {
		req.RequestSubResource = req.SubResource
	}
	if req.DryRun == nil {
		f := false
		req.DryRun = &f
	}
	in.request = req
	extra := map[string][]string{}
	for k, v := range req.UserInfo.Extra {
		extra[k] = []string(v)
	}
	userInfo := &user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: extra}
	gvk := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	gvr := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	attrs := admission.NewAttributesRecord(in.object, in.oldObject, gvk, req.Namespace, req.Name, gvr, req.SubResource,
		admission.Operation(req.Operation), optionsObj, *req.DryRun, userInfo)
	in.attrs = &admission.VersionedAttributes{
		Attributes:         attrs,
		VersionedKind:      gvk,
		VersionedObject:    admission.NewLazyObject(in.object),
		VersionedOldObject: admission.NewLazyObject(in.oldObject),
	}
}

// SetInputs parses and stores test inputs under an id (marshalled once, used by many evaluations).
func SetInputs(id, inputsJSON string) string {
	in, err := parseInputs(inputsJSON)
	if err != nil {
		return err.Error()
	}
	inputCache[id] = in
	return ""
}

func DropInputs(id string) { delete(inputCache, id) }

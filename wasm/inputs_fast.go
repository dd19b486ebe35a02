package main

import (
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/google/cel-go/common/types/ref"
)

// ---------------------------------------------------------------------------
// Test inputs read in one pass (jsondecode.go), with exactly the values parseInputsSlow
// gives: the objects as decodeJSON decodes them, the request as encoding/json fills an
// AdmissionRequest (field by field here; RawExtension fields keep their exact text), the
// namespace and the authorizer rules by encoding/json, kept by their text (a replay sends
// the same few again and again). Whatever this does not read exactly as encoding/json would
// — a key it does not know by its exact name (encoding/json matches struct fields without
// regard to case), a null or a value of another type where the request has a typed field,
// malformed text — answers errFallback, and the inputs are read the old way.

// members calls fn for each member of the object at r.i; fn reads exactly the member's value.
func (r *jsonReader) members(fn func(key string) error) error {
	r.space()
	if r.i >= len(r.b) || r.b[r.i] != '{' {
		return errFallback
	}
	r.i++
	r.space()
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return nil
	}
	for {
		r.space()
		k, err := r.str()
		if err != nil {
			return err
		}
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != ':' {
			return errFallback
		}
		r.i++
		r.space()
		if err := fn(k); err != nil {
			return err
		}
		if more, err := r.more('}'); !more {
			return err
		}
	}
}

// raw reads a value and answers its text.
func (r *jsonReader) raw() ([]byte, error) {
	start := r.i
	if _, err := r.value(); err != nil {
		return nil, err
	}
	return r.b[start:r.i], nil
}

func (r *jsonReader) isNull() bool {
	if len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

// Namespaces and authorizer rules by their text (a replay has a few of each); cleared when full.
var (
	namespaceTexts  = map[string]*corev1.Namespace{}
	authorizerTexts = map[string][]authzRule{}
)

const textCacheSize = 256

func namespaceOf(raw []byte) (*corev1.Namespace, error) {
	if ns, ok := namespaceTexts[string(raw)]; ok {
		return ns, nil
	}
	ns := &corev1.Namespace{}
	if err := json.Unmarshal(raw, ns); err != nil {
		return nil, errFallback
	}
	if len(namespaceTexts) >= textCacheSize {
		clear(namespaceTexts)
	}
	namespaceTexts[string(raw)] = ns
	return ns, nil
}

func authorizerOf(raw []byte) (*ruleAuthorizer, error) {
	rules, ok := authorizerTexts[string(raw)]
	if !ok {
		var a struct {
			Rules []authzRule `json:"rules"`
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, errFallback
		}
		if len(authorizerTexts) >= textCacheSize {
			clear(authorizerTexts)
		}
		rules = a.Rules
		authorizerTexts[string(raw)] = rules
	}
	return &ruleAuthorizer{rules: rules}, nil
}

// objectOf: toObject's answer for a decoded value (a non-object is toObject's error: errFallback).
func objectOf(v any) (runtime.Object, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return &unstructured.Unstructured{Object: t}, nil
	}
	return nil, errFallback
}

// parseInputsFast reads inputs as parseInputsSlow does, or answers errFallback.
func parseInputsFast(s string) (*inputs, error) {
	r := &jsonReader{b: []byte(s)}
	var object, oldObject, params any
	var req *admissionv1.AdmissionRequest
	var ns *corev1.Namespace
	var variables map[string]any
	var authz *ruleAuthorizer
	seenAuthorizer := false
	err := r.members(func(key string) error {
		var err error
		switch key {
		case "object":
			object, err = r.value()
		case "oldObject":
			oldObject, err = r.value()
		case "params":
			params, err = r.value()
		case "request":
			req, err = r.request()
		case "namespaceObject":
			ns = nil
			if !r.isNull() {
				var raw []byte
				if raw, err = r.raw(); err == nil {
					ns, err = namespaceOf(raw)
				}
			}
		case "variables":
			// a map field: null empties it, a repeated key adds to it (encoding/json)
			var v any
			if v, err = r.value(); err == nil {
				m, ok := v.(map[string]any)
				if !ok && v != nil {
					return errFallback
				}
				if m == nil || variables == nil {
					variables = m
				} else {
					for k, e := range m {
						variables[k] = e
					}
				}
			}
		case "authorizer":
			if seenAuthorizer {
				return errFallback // encoding/json would merge the two into one struct
			}
			seenAuthorizer = true
			if !r.isNull() {
				var raw []byte
				if raw, err = r.raw(); err == nil {
					authz, err = authorizerOf(raw)
				}
			}
		default:
			return errFallback
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	r.space()
	if r.i != len(r.b) {
		return nil, errFallback
	}
	in := &inputs{namespace: ns, authz: authz}
	if in.object, err = objectOf(object); err != nil {
		return nil, err
	}
	if in.oldObject, err = objectOf(oldObject); err != nil {
		return nil, err
	}
	if in.params, err = objectOf(params); err != nil {
		return nil, err
	}
	if req == nil {
		req = &admissionv1.AdmissionRequest{}
	}
	if len(variables) > 0 {
		in.variables = map[string]ref.Val{}
		for name, v := range variables {
			in.variables[name] = nativeToVal(v)
		}
	}
	var options runtime.Object
	if len(req.Options.Raw) > 0 {
		// toObject of the text: the same decoding, already validated
		if v, err := fastDecodeJSON(req.Options.Raw); err == nil {
			options, _ = objectOf(v)
		} else if o, err := toObject(req.Options.Raw); err == nil && o != nil {
			options = o
		}
	}
	finishInputs(in, req, options)
	return in, nil
}

// request fills an AdmissionRequest as encoding/json does, for the fields and types it knows.
func (r *jsonReader) request() (*admissionv1.AdmissionRequest, error) {
	if r.isNull() {
		return nil, nil
	}
	req := &admissionv1.AdmissionRequest{}
	err := r.members(func(key string) error {
		var err error
		switch key {
		case "uid":
			var s string
			s, err = r.str()
			req.UID = types.UID(s)
		case "kind":
			err = r.gvk(&req.Kind)
		case "requestKind":
			if req.RequestKind == nil {
				req.RequestKind = &metav1.GroupVersionKind{}
			}
			err = r.gvk(req.RequestKind)
		case "resource":
			err = r.gvr(&req.Resource)
		case "requestResource":
			if req.RequestResource == nil {
				req.RequestResource = &metav1.GroupVersionResource{}
			}
			err = r.gvr(req.RequestResource)
		case "subResource":
			req.SubResource, err = r.str()
		case "requestSubResource":
			req.RequestSubResource, err = r.str()
		case "name":
			req.Name, err = r.str()
		case "namespace":
			req.Namespace, err = r.str()
		case "operation":
			var s string
			s, err = r.str()
			req.Operation = admissionv1.Operation(s)
		case "userInfo":
			err = r.userInfo(&req.UserInfo)
		case "object", "oldObject":
			_, err = r.raw() // dropped, as CreateAdmissionRequest does
		case "dryRun":
			if req.DryRun == nil {
				req.DryRun = new(bool)
			}
			switch {
			case r.word("true") == nil:
				*req.DryRun = true
			case r.word("false") == nil:
				*req.DryRun = false
			default:
				return errFallback
			}
		case "options":
			if !r.isNull() { // RawExtension ignores null
				var raw []byte
				raw, err = r.raw()
				req.Options.Raw = append([]byte(nil), raw...)
			}
		default:
			return errFallback
		}
		return err
	})
	return req, err
}

// strings reads an object of string members into the fields named (another key: errFallback).
func (r *jsonReader) strings(fields map[string]*string) error {
	return r.members(func(key string) error {
		f, ok := fields[key]
		if !ok {
			return errFallback
		}
		v, err := r.str()
		*f = v
		return err
	})
}

// gvk and gvr fill a struct in place (a repeated key fills the same struct, as encoding/json does).
func (r *jsonReader) gvk(k *metav1.GroupVersionKind) error {
	return r.strings(map[string]*string{"group": &k.Group, "version": &k.Version, "kind": &k.Kind})
}

func (r *jsonReader) gvr(g *metav1.GroupVersionResource) error {
	return r.strings(map[string]*string{"group": &g.Group, "version": &g.Version, "resource": &g.Resource})
}

// stringList reads an array of strings (not null).
func (r *jsonReader) stringList() ([]string, error) {
	v, err := r.value()
	if err != nil {
		return nil, err
	}
	l, ok := v.([]any)
	if !ok {
		return nil, errFallback
	}
	out := make([]string, len(l))
	for i, e := range l {
		if out[i], ok = e.(string); !ok {
			return nil, errFallback
		}
	}
	return out, nil
}

func (r *jsonReader) userInfo(u *authenticationv1.UserInfo) error {
	return r.members(func(key string) error {
		var err error
		switch key {
		case "username":
			u.Username, err = r.str()
		case "uid":
			u.UID, err = r.str()
		case "groups":
			u.Groups, err = r.stringList()
		case "extra":
			if u.Extra == nil {
				u.Extra = map[string]authenticationv1.ExtraValue{}
			}
			err = r.members(func(k string) error {
				l, err := r.stringList()
				u.Extra[k] = l
				return err
			})
		default:
			return errFallback
		}
		return err
	})
}

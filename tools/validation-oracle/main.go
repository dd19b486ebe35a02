// Command validation-oracle runs the kube-apiserver's own create path for
// admissionregistration.k8s.io objects (k8s.io/kubernetes, the release pinned
// in go.mod, or another go.1.3x.mod) and prints what it says about each object, so the Workbench's
// validate() can be compared with the real code (src/k8s/validation/oracle.test.ts).
//
// Input (stdin): a JSON array of objects, or one JSON object per line.
// Output (stdout): a JSON array, one result per input object, in input order:
//
//	{"index":0,"kind":"ValidatingWebhookConfiguration","decodeError":"…"}            // the decoder refused it
//	{"index":1,"kind":"…","name":"…","errors":[{"type":"FieldValueRequired",
//	  "typeString":"Required value","field":"webhooks[0].name","detail":"…",
//	  "badValue":…,"error":"webhooks[0].name: Required value"}]}
//
// The release: go.mod pins 1.36 (release_1_36.go); `-tags k8s130 -modfile go.1.30.mod` builds the
// same program on 1.30 (release_1_30.go), `-tags k8s137 -modfile go.1.37.mod` on 1.37.2
// (release_1_37.go). Kinds a release does not have are reported as decode errors.
//
// What runs per object is what the apiserver does on create:
//  1. decode through legacyscheme.Codecs.UniversalDecoder() (the served version → internal, with defaulting);
//  2. rest.FillObjectMetaSystemFields, then generateName → a generated name;
//  3. the steps of rest.BeforeCreate with the kind's real registry strategy (cluster-scoped: the namespace
//     is cleared; PrepareForCreate; strategy.Validate; then the generic ObjectMeta validation, which the
//     apiserver runs only when strategy.Validate passed; from 1.37 rest.ValidateCreate itself, which also
//     runs declarative validation); when there is no error, the strategy's WarningsOnCreate.
//
// The feature gates are the release's defaults (1.37: ManifestBasedAdmissionControlConfig and
// ExcludeAdmissionWebhookVirtualResources on).
//
// The strategies are built with a nil authorizer, as for a superuser: the paramKind/paramRef
// authorization check is skipped (the bindings' strategies insist on a resource resolver
// before they look at the authorizer: noResolver is one that is never asked).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/resolver"
)

// noResolver: the bindings' strategies refuse a nil resolver; with a nil authorizer it is never called.
var noResolver = resolver.ResourceResolverFunc(func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, fmt.Errorf("no resource resolver in the validation oracle (asked for %s)", gvk)
})

type fieldError struct {
	Type       string `json:"type"`
	TypeString string `json:"typeString"`
	Field      string `json:"field"`
	Detail     string `json:"detail"`
	BadValue   any    `json:"badValue,omitempty"`
	Error      string `json:"error"`
}

type result struct {
	Index       int          `json:"index"`
	Kind        string       `json:"kind,omitempty"`
	Name        string       `json:"name,omitempty"`
	DecodeError string       `json:"decodeError,omitempty"`
	Errors      []fieldError `json:"errors"`
	// Warnings: the strategy's WarningsOnCreate, which the apiserver sends only when the object is valid.
	Warnings []string `json:"warnings,omitempty"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-release" {
		fmt.Println(release)
		return
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	docs, err := split(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := make([]result, len(docs))
	for i, doc := range docs {
		out[i] = check(i, doc)
	}
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w.Flush()
}

// split: a JSON array, or JSON values one after another (JSON lines).
func split(data []byte) ([]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var docs []json.RawMessage
		err := json.Unmarshal(trimmed, &docs)
		return docs, err
	}
	var docs []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	for dec.More() {
		var doc json.RawMessage
		if err := dec.Decode(&doc); err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

func check(index int, doc json.RawMessage) (res result) {
	res = result{Index: index, Errors: []fieldError{}}
	defer func() {
		if r := recover(); r != nil {
			res.DecodeError = fmt.Sprintf("panic: %v", r)
		}
	}()
	var head struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(doc, &head)
	res.Kind = head.Kind

	obj, gvk, err := legacyscheme.Codecs.UniversalDecoder().Decode(doc, nil, nil)
	if err != nil {
		res.DecodeError = err.Error()
		return res
	}
	s, ok := strategies[gvk.Kind]
	if !ok {
		res.DecodeError = fmt.Sprintf("not an admissionregistration kind this oracle checks: %s", gvk)
		return res
	}
	meta, err := metaOf(obj)
	if err != nil {
		res.DecodeError = err.Error()
		return res
	}

	// The create handler: system fields, then the registry store's name generation.
	rest.FillObjectMetaSystemFields(meta)
	if meta.GetGenerateName() != "" && meta.GetName() == "" {
		meta.SetName(s.strategy.GenerateName(meta.GetGenerateName()))
	}
	res.Name = meta.GetName()

	ctx := genericapirequest.WithNamespace(context.Background(), metav1.NamespaceNone)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIGroup: gvk.Group, APIVersion: gvk.Version,
		Resource: s.resource, Name: meta.GetName(),
	})

	// rest.BeforeCreate, step by step, keeping the field errors.
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(metav1.NamespaceNone, s.strategy.NamespaceScoped()), meta); err != nil {
		res.DecodeError = err.Error()
		return res
	}
	s.strategy.PrepareForCreate(ctx, obj)
	errs := validateCreate(ctx, s.strategy, obj, meta)
	for _, e := range errs {
		res.Errors = append(res.Errors, toJSON(e))
	}
	if len(errs) == 0 {
		res.Warnings = s.strategy.WarningsOnCreate(ctx, obj)
	}
	return res
}

// handwrittenCreate: the strategy's Validate, then (only when it passed) the generic ObjectMeta
// validation, as rest.BeforeCreate runs them up to 1.36.
func handwrittenCreate(ctx context.Context, strategy rest.RESTCreateStrategy, obj runtime.Object, meta metav1.Object) field.ErrorList {
	errs := strategy.Validate(ctx, obj)
	if len(errs) == 0 {
		errs = genericvalidation.ValidateObjectMetaAccessor(meta, strategy.NamespaceScoped(), validatePathSegment, field.NewPath("metadata"))
	}
	return errs
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no ObjectMeta", obj)
	}
	return m, nil
}

func toJSON(e *field.Error) fieldError {
	fe := fieldError{
		Type:       string(e.Type),
		TypeString: e.Type.String(),
		Field:      e.Field,
		Detail:     e.Detail,
		Error:      e.Error(),
	}
	// badValue only when it is plain JSON (omitted values print as "<omitted>" in the error string).
	if e.BadValue != nil {
		if b, err := json.Marshal(e.BadValue); err == nil && !strings.HasPrefix(string(b), "{}") {
			fe.BadValue = json.RawMessage(b)
		}
	}
	return fe
}

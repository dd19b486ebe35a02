//go:build !typesonly

package main

// The type checker and the schema asset (k8s.io/kubernetes' generated OpenAPI); left out with
// -tags typesonly (schemas_typesonly.go), which builds the `types` and `decode` commands alone
// in a fraction of the time (npm run schemas:generate builds the whole tool).

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	endpointsopenapi "k8s.io/apiserver/pkg/endpoints/openapi"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kubernetes/pkg/generated/openapi"
)

type mapping struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
}

type checkCase struct {
	Policy   admissionregistrationv1.ValidatingAdmissionPolicy `json:"policy"`
	Mappings []mapping                                         `json:"mappings"`
}

type answer struct {
	Warnings []admissionregistrationv1.ExpressionWarning `json:"warnings"`
}

func check() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err.Error())
	}
	var cases []checkCase
	if err := json.Unmarshal(in, &cases); err != nil {
		fail(err.Error())
	}
	b, _ := json.Marshal(checkCases(cases))
	os.Stdout.Write(b)
}

// checkCases runs kube-controller-manager's type checker on each case.
func checkCases(cases []checkCase) []answer {
	schemaResolver := resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, k8sscheme.Scheme, apiextensionsscheme.Scheme)
	out := make([]answer, len(cases))
	for i, c := range cases {
		checker := &validating.TypeChecker{SchemaResolver: schemaResolver, RestMapper: restMapper(c.Mappings)}
		out[i].Warnings = checker.Check(&c.Policy)
		if out[i].Warnings == nil {
			out[i].Warnings = []admissionregistrationv1.ExpressionWarning{}
		}
	}
	return out
}

func restMapper(ms []mapping) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, x := range ms {
		gvk := schema.GroupVersionKind{Group: x.Group, Version: x.Version, Kind: x.Kind}
		m.AddSpecific(gvk, gvk.GroupVersion().WithResource(x.Resource), gvk.GroupVersion().WithResource(strings.ToLower(x.Kind)), meta.RESTScopeNamespace)
	}
	return m
}

type asset struct {
	Release     string                 `json:"release"`
	Modules     map[string]string      `json:"modules"`
	GVKs        map[string]string      `json:"gvks"`
	Definitions map[string]spec.Schema `json:"definitions"`
}

func writeSchemas(out string) {
	defs := openapi.GetOpenAPIDefinitions(func(path string) spec.Ref { return spec.MustCreateRef("#/definitions/" + path) })
	namer := endpointsopenapi.NewDefinitionNamer(k8sscheme.Scheme, apiextensionsscheme.Scheme)
	a := asset{Release: release, Modules: provenance, GVKs: map[string]string{}, Definitions: map[string]spec.Schema{}}
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		_, ext := namer.GetDefinitionName(name)
		gvks := gvksOf(ext)
		s := defs[name].Schema
		if _, hasMeta := s.Properties["metadata"]; !hasMeta || len(gvks) == 0 {
			continue
		}
		for _, gvk := range gvks {
			if strings.HasSuffix(gvk.Kind, "List") {
				continue
			}
			a.GVKs[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind] = name
		}
	}
	// A kind whose schema references a definition the generated set lacks cannot be resolved
	// by the controller's DefinitionsSchemaResolver either (1.38: authorization.k8s.io/v1alpha1
	// AuthorizationConditionsRequest refers to admission/v1 AdmissionRequest, which has no
	// generated definition): it is left out, as a kind with no schema, and said so.
	resolvable := func(root string) bool {
		seen := map[string]bool{}
		var walk func(name string) bool
		walk = func(name string) bool {
			if seen[name] {
				return true
			}
			seen[name] = true
			def, ok := defs[name]
			if !ok {
				return false
			}
			s := def.Schema
			for _, r := range refs(&s, nil) {
				if !walk(r) {
					return false
				}
			}
			return true
		}
		return walk(root)
	}
	for gvk, name := range a.GVKs {
		if !resolvable(name) {
			fmt.Fprintf(os.Stderr, "typecheck-oracle: %s (%s) references a definition that is not generated: left out\n", gvk, name)
			delete(a.GVKs, gvk)
		}
	}
	var visit func(name string)
	visit = func(name string) {
		if _, ok := a.Definitions[name]; ok {
			return
		}
		def, ok := defs[name]
		if !ok {
			fail("no definition " + name)
		}
		s := strip(def.Schema)
		a.Definitions[name] = s
		for _, r := range refs(&s, nil) {
			visit(r)
		}
	}
	for _, name := range a.GVKs {
		visit(name)
	}
	b, err := json.Marshal(a)
	if err != nil {
		fail(err.Error())
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		fail(err.Error())
	}
	fmt.Fprintf(os.Stderr, "typecheck-oracle: %s: %d kinds, %d definitions, %d bytes\n", out, len(a.GVKs), len(a.Definitions), len(b))
}

// strip drops what type checking never reads (descriptions, the v2 form), recursively.
func strip(s spec.Schema) spec.Schema {
	s.Description = ""
	delete(s.Extensions, "x-kubernetes-v2-schema") // the OpenAPI v2 form, never read by type checking
	if s.Properties != nil {
		p := make(map[string]spec.Schema, len(s.Properties))
		for k, v := range s.Properties {
			p[k] = strip(v)
		}
		s.Properties = p
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		x := strip(*s.AdditionalProperties.Schema)
		ap := *s.AdditionalProperties
		ap.Schema = &x
		s.AdditionalProperties = &ap
	}
	if s.Items != nil && s.Items.Schema != nil {
		x := strip(*s.Items.Schema)
		it := *s.Items
		it.Schema = &x
		s.Items = &it
	}
	if len(s.AllOf) > 0 {
		all := make([]spec.Schema, len(s.AllOf))
		for i, v := range s.AllOf {
			all[i] = strip(v)
		}
		s.AllOf = all
	}
	return s
}

// refs lists the definitions a schema references (as resolver.populateRefs follows them).
func refs(s *spec.Schema, acc []string) []string {
	if u := s.Ref.String(); u != "" {
		acc = append(acc, strings.TrimPrefix(u, "#/definitions/"))
	}
	for _, v := range s.AllOf {
		acc = refs(&v, acc)
	}
	for _, v := range s.Properties {
		acc = refs(&v, acc)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		acc = refs(s.AdditionalProperties.Schema, acc)
	}
	if s.Items != nil && s.Items.Schema != nil {
		acc = refs(s.Items.Schema, acc)
	}
	return acc
}

func gvksOf(ext spec.Extensions) []schema.GroupVersionKind {
	list, _ := ext["x-kubernetes-group-version-kind"].([]any)
	var out []schema.GroupVersionKind
	for _, x := range list {
		m, _ := x.(map[string]any)
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		if v != "" && k != "" {
			out = append(out, schema.GroupVersionKind{Group: g, Version: v, Kind: k})
		}
	}
	return out
}

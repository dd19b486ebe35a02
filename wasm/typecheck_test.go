package main

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// A small asset: Widget (example.com/v1) with a spec of a typed field, a map of
// Quantity (int-or-string formats) and a list; ObjectMeta reduced to name and labels.
const testAsset = `{"release":"test","gvks":{"example.com/v1/Widget":"com.example.v1.Widget","example.com/v1/Gadget":"com.example.v1.Gadget"},
"definitions":{
"com.example.v1.Widget":{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"$ref":"#/definitions/meta.ObjectMeta"},"spec":{"$ref":"#/definitions/com.example.v1.WidgetSpec"}}},
"com.example.v1.Gadget":{"type":"object","properties":{"metadata":{"$ref":"#/definitions/meta.ObjectMeta"},"spec":{"type":"object","properties":{"size":{"type":"string"}}}}},
"com.example.v1.WidgetSpec":{"type":"object","properties":{"replicas":{"type":"integer","format":"int32"},"limits":{"type":"object","additionalProperties":{"$ref":"#/definitions/resource.Quantity"}},"items":{"type":"array","items":{"type":"string"}}}},
"resource.Quantity":{"oneOf":[{"type":"string"},{"type":"number"}]},
"meta.ObjectMeta":{"type":"object","properties":{"name":{"type":"string"},"labels":{"type":"object","additionalProperties":{"type":"string"}}}}}}`

var uniqueName = regexp.MustCompile(`(Widget|Gadget)\d+`)

// The copy in typecheck.go gives the apiserver's TypeChecker's warnings on the same schemas.
func TestTypeCheckMatchesAPIServer(t *testing.T) {
	if r := SetSchemas("test", testAsset); r["ok"] != true {
		t.Fatal(r)
	}
	mappings := `[{"group":"example.com","version":"v1","resource":"widgets","kind":"Widget"},{"group":"example.com","version":"v1","resource":"gadgets","kind":"Gadget"}]`
	policies := []string{
		`{"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["example.com"],"apiVersions":["v1"],"resources":["widgets"]}]},"validations":[{"expression":"object.spec.replicass > 1"},{"expression":"object.spec.replicas > 1","messageExpression":"'n=' + object.spec.replicas"},{"expression":"object.spec.limits.cpu != ''"},{"expression":"object.spec.items.all(i, i.size() < 3)"}]}}`,
		`{"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["example.com"],"apiVersions":["v1"],"resources":["widgets","gadgets"]}]},"validations":[{"expression":"object.spec.size == 'x'"},{"expression":"object.metadata.name.startsWith(1)"}]}}`,
		`{"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["*"],"apiVersions":["v1"],"resources":["widgets"]}]},"validations":[{"expression":"object.spec.replicass > 1"}]}}`,
		`{"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["example.com"],"apiVersions":["v1"],"resources":["widgets/status","widgets"]}]},"variables":[{"name":"r","expression":"object.spec.replicas"}],"validations":[{"expression":"variables.r == 'a'"}]}}`,
	}
	for i, p := range policies {
		res := TypeCheck(p, `{"schemas":"test","mappings":`+mappings+`}`)
		if !res.OK {
			t.Fatalf("policy %d: %s", i, res.Message)
		}
		var policy v1.ValidatingAdmissionPolicy
		if err := json.Unmarshal([]byte(p), &policy); err != nil {
			t.Fatal(err)
		}
		var ms []typeCheckMapping
		_ = json.Unmarshal([]byte(mappings), &ms)
		real := &validating.TypeChecker{SchemaResolver: &assetResolver{asset: schemaAssets["test"]}, RestMapper: testMapper(ms)}
		want := real.Check(&policy)
		if want == nil {
			want = []v1.ExpressionWarning{}
		}
		got := normalise(asAPI(res.Warnings))
		if !reflect.DeepEqual(got, normalise(want)) {
			t.Errorf("policy %d:\n ours %q\n apiserver %q", i, got, normalise(want))
		}
		if i == 0 && len(got) != 3 {
			t.Errorf("policy 0: want 3 warnings (typo, string + int, Quantity map), got %q", got)
		}
	}
}

func normalise(ws []v1.ExpressionWarning) []v1.ExpressionWarning {
	out := make([]v1.ExpressionWarning, len(ws))
	for i, w := range ws {
		out[i] = v1.ExpressionWarning{FieldRef: w.FieldRef, Warning: uniqueName.ReplaceAllString(w.Warning, "$1")}
	}
	return out
}

func testMapper(ms []typeCheckMapping) *meta.DefaultRESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, x := range ms {
		gvk := schema.GroupVersionKind{Group: x.Group, Version: x.Version, Kind: x.Kind}
		m.AddSpecific(gvk, gvk.GroupVersion().WithResource(x.Resource), gvk.GroupVersion().WithResource(x.Kind), meta.RESTScopeNamespace)
	}
	return m
}

func asAPI(ws []v1ExpressionWarning) []v1.ExpressionWarning {
	out := make([]v1.ExpressionWarning, len(ws))
	for i, w := range ws {
		out[i] = v1.ExpressionWarning{FieldRef: w.FieldRef, Warning: w.Warning}
	}
	return out
}

// schemaFromJSON reads a schema as spec.Schema's own UnmarshalJSON does (the engine avoids that
// one for its weight).
func TestSchemaFromJSONMatchesSpec(t *testing.T) {
	docs := []string{
		`{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"byte","maxLength":10,"enum":["x","y"],"pattern":"^x"},"b":{"type":["integer"],"minimum":1,"maximum":5,"exclusiveMaximum":true,"multipleOf":2},"c":{"$ref":"#/definitions/x"},"d":{"allOf":[{"$ref":"#/definitions/y"}],"default":{}},"e":{"oneOf":[{"type":"string"},{"type":"number"}]},"f":{"type":"array","items":{"type":"string"},"maxItems":3,"minItems":1,"uniqueItems":true,"x-kubernetes-list-type":"set"},"g":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":4,"x-kubernetes-map-type":"granular"},"h":{"type":"object","additionalProperties":false},"i":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},"j":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-embedded-resource":true,"nullable":true},"k":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}},"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"]},"l":{"not":{"type":"string"}}}}`,
		testAsset,
	}
	for i, d := range docs {
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			defs := m["definitions"].(map[string]any)
			for name, x := range defs {
				var want spec.Schema
				b, _ := json.Marshal(x)
				if err := json.Unmarshal(b, &want); err != nil {
					t.Fatal(err)
				}
				if got := schemaFromJSON(x.(map[string]any)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n ours %#v\n spec %#v", name, got, want)
				}
			}
			continue
		}
		var want spec.Schema
		if err := json.Unmarshal([]byte(d), &want); err != nil {
			t.Fatal(err)
		}
		if got := schemaFromJSON(m); !reflect.DeepEqual(got, want) {
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			t.Errorf("doc %d:\n ours %s\n spec %s", i, gb, wb)
		}
	}
}

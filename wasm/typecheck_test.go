package main

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
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

// The copy (upstream_typechecking_1.go, _2.go) with typecheck.go's resolver gives the apiserver's
// TypeChecker's warnings on the same schemas.
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
		real := &validating.TypeChecker{SchemaResolver: newSpecResolver(t, testAsset), RestMapper: testMapper(ms)}
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

// The apiserver's own resolving, for the real TypeChecker: the asset's definitions read by
// spec.Schema's own UnmarshalJSON and resolved by resolver.PopulateRefs.
type specResolver struct {
	gvks map[string]string
	defs map[string]*spec.Schema
}

func newSpecResolver(t *testing.T, asset string) *specResolver {
	var j struct {
		GVKs        map[string]string           `json:"gvks"`
		Definitions map[string]*json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal([]byte(asset), &j); err != nil {
		t.Fatal(err)
	}
	r := &specResolver{gvks: j.GVKs, defs: map[string]*spec.Schema{}}
	for name, raw := range j.Definitions {
		var s spec.Schema
		if err := json.Unmarshal(*raw, &s); err != nil {
			t.Fatal(err)
		}
		r.defs[name] = &s
	}
	return r
}

func (r *specResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	name, ok := r.gvks[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]
	if !ok {
		return nil, resolver.ErrSchemaNotFound
	}
	return resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
		s, ok := r.defs[strings.TrimPrefix(ref, "#/definitions/")]
		if !ok {
			return nil, false
		}
		c := *s
		return &c, true
	}, "#/definitions/"+name)
}

// allFields: every field common.Schema reads, in one schema.
const allFields = `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"byte","maxLength":10,"minLength":1,"enum":["x","y"],"pattern":"^x"},"b":{"type":["integer"],"minimum":1,"maximum":5,"exclusiveMaximum":true,"exclusiveMinimum":true,"multipleOf":2},"c":{"$ref":"#/definitions/x"},"d":{"allOf":[{"$ref":"#/definitions/y"}],"default":{"k":[1,"v"]}},"e":{"oneOf":[{"type":"string"},{"type":"number"}]},"f":{"type":"array","items":{"type":"string"},"maxItems":3,"minItems":1,"uniqueItems":true,"x-kubernetes-list-type":"set"},"g":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":4,"minProperties":1,"x-kubernetes-map-type":"granular"},"h":{"type":"object","additionalProperties":false},"i":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},"j":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-embedded-resource":true,"nullable":true},"k":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}},"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"]},"l":{"not":{"type":"string"}},"m":{"type":"string","format":"int-or-string","default":"1"},"n":{"type":"array","items":[{"type":"string"}]},"o":{"type":"integer","X-Kubernetes-Validations":[{"rule":"self > 1","message":"m","messageExpression":"'e'","fieldPath":".o"}]},"p":{"type":["string","null"],"x-kubernetes-list-map-keys":["a",1]},"q":{"type":"object","properties":{}},"r":{"type":"integer","enum":[1,2.5,null],"default":3,"nullable":false}}}`

// schemaNode's common.Schema gives what the apiserver's adaptor over spec.Schema gives, getter for
// getter, on the same JSON (spec.Schema read by its own UnmarshalJSON).
func TestSchemaNodeMatchesOpenAPIAdaptor(t *testing.T) {
	docs := map[string]string{"allFields": allFields}
	var asset struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal([]byte(testAsset), &asset); err != nil {
		t.Fatal(err)
	}
	for name, raw := range asset.Definitions {
		docs[name] = string(raw)
	}
	for name, d := range docs {
		var m map[string]any
		var want spec.Schema
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(d), &want); err != nil {
			t.Fatal(err)
		}
		got := schemaFromJSON(m)
		compareSchemas(t, name, got, &openapi.Schema{Schema: &want}, 0)
		compareSchemas(t, name+"(resource root)", got.WithTypeAndObjectMeta(), (&openapi.Schema{Schema: &want}).WithTypeAndObjectMeta(), 0)
		if g, w := common.SchemaDeclType(got, true), common.SchemaDeclType(&openapi.Schema{Schema: &want}, true); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: DeclType differs:\n ours %#v\n apiserver %#v", name, g, w)
		}
	}
	// Resolved kinds: our resolver's schema against PopulateRefs over spec.Schema, as DeclTypes.
	if r := SetSchemas("test", testAsset); r["ok"] != true {
		t.Fatal(r)
	}
	ours := &assetResolver{asset: schemaAssets["test"], assetKey: "test"}
	theirs := newSpecResolver(t, testAsset)
	for _, kind := range []string{"Widget", "Gadget"} {
		gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: kind}
		g, err := ours.ResolveSchema(gvk)
		if err != nil {
			t.Fatal(err)
		}
		w, err := theirs.ResolveSchema(gvk)
		if err != nil {
			t.Fatal(err)
		}
		compareSchemas(t, kind, g, &openapi.Schema{Schema: w}, 0)
		if gd, wd := common.SchemaDeclType(g, true), common.SchemaDeclType(&openapi.Schema{Schema: w}, true); !reflect.DeepEqual(gd, wd) {
			t.Errorf("%s: DeclType differs:\n ours %#v\n apiserver %#v", kind, gd, wd)
		}
	}
}

func compareSchemas(t *testing.T, path string, a, b common.Schema, depth int) {
	t.Helper()
	if (a == nil) != (b == nil) {
		t.Errorf("%s: ours nil %v, apiserver nil %v", path, a == nil, b == nil)
		return
	}
	if a == nil || depth > 20 {
		return
	}
	eq := func(what string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			t.Errorf("%s: %s: ours %#v, apiserver %#v", path, what, x, y)
		}
	}
	eq("Type", a.Type(), b.Type())
	eq("Format", a.Format(), b.Format())
	eq("Pattern", a.Pattern(), b.Pattern())
	eq("Default", a.Default(), b.Default())
	eq("Minimum", a.Minimum(), b.Minimum())
	eq("Maximum", a.Maximum(), b.Maximum())
	eq("IsExclusiveMinimum", a.IsExclusiveMinimum(), b.IsExclusiveMinimum())
	eq("IsExclusiveMaximum", a.IsExclusiveMaximum(), b.IsExclusiveMaximum())
	eq("MultipleOf", a.MultipleOf(), b.MultipleOf())
	eq("MinItems", a.MinItems(), b.MinItems())
	eq("MaxItems", a.MaxItems(), b.MaxItems())
	eq("MinLength", a.MinLength(), b.MinLength())
	eq("MaxLength", a.MaxLength(), b.MaxLength())
	eq("MinProperties", a.MinProperties(), b.MinProperties())
	eq("MaxProperties", a.MaxProperties(), b.MaxProperties())
	eq("Required", a.Required(), b.Required())
	eq("Enum", a.Enum(), b.Enum())
	eq("Nullable", a.Nullable(), b.Nullable())
	eq("UniqueItems", a.UniqueItems(), b.UniqueItems())
	eq("IsXIntOrString", a.IsXIntOrString(), b.IsXIntOrString())
	eq("IsXEmbeddedResource", a.IsXEmbeddedResource(), b.IsXEmbeddedResource())
	eq("IsXPreserveUnknownFields", a.IsXPreserveUnknownFields(), b.IsXPreserveUnknownFields())
	eq("XListType", a.XListType(), b.XListType())
	eq("XListMapKeys", a.XListMapKeys(), b.XListMapKeys())
	eq("XMapType", a.XMapType(), b.XMapType())
	rules := func(rs []common.ValidationRule) [][4]string {
		out := [][4]string{}
		for _, r := range rs {
			out = append(out, [4]string{r.Rule(), r.Message(), r.MessageExpression(), r.FieldPath()})
		}
		return out
	}
	eq("XValidations", rules(a.XValidations()), rules(b.XValidations()))
	compareSchemas(t, path+".items", a.Items(), b.Items(), depth+1)
	compareSchemas(t, path+".not", a.Not(), b.Not(), depth+1)
	ap, bp := a.Properties(), b.Properties()
	eq("Properties == nil", ap == nil, bp == nil)
	eq("len(Properties)", len(ap), len(bp))
	for k, v := range bp {
		compareSchemas(t, path+"."+k, ap[k], v, depth+1)
	}
	aa, ba := a.AdditionalProperties(), b.AdditionalProperties()
	eq("AdditionalProperties == nil", aa == nil, ba == nil)
	if aa != nil && ba != nil {
		eq("AdditionalProperties.Allows", aa.Allows(), ba.Allows())
		compareSchemas(t, path+".additionalProperties", aa.Schema(), ba.Schema(), depth+1)
	}
	for _, l := range []struct {
		what string
		a, b []common.Schema
	}{{"allOf", a.AllOf(), b.AllOf()}, {"anyOf", a.AnyOf(), b.AnyOf()}, {"oneOf", a.OneOf(), b.OneOf()}} {
		eq(l.what+" == nil", l.a == nil, l.b == nil)
		eq("len("+l.what+")", len(l.a), len(l.b))
		for i := range l.b {
			if i < len(l.a) {
				compareSchemas(t, path+"."+l.what+"["+strconv.Itoa(i)+"]", l.a[i], l.b[i], depth+1)
			}
		}
	}
}

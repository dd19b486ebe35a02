package main

// The `types` command: how the apiserver decodes and encodes each built-in kind, as data.
//
// A built-in object reaches admission decoded into its Go type (k8s.io/api) and CEL sees
// runtime.DefaultUnstructuredConverter.ToUnstructured of it: a field without omitempty is
// always there (a nil slice, map or pointer as null, a value struct as an object, a scalar as
// its zero value), an omitempty one only when not empty, and the types with their own JSON
// form (Quantity, Time, IntOrString, …) in that form. The command walks the Go types of every
// kind with metadata by reflection, reading the json tags exactly as the converter reads them
// (k8s.io/apimachinery/pkg/runtime/converter.go fieldInfoFromField), and writes per struct
// its fields in order: [json name, type, flags]. Types:
//
//	string bool int uint float    scalars (any Go int or uint width; float32/64)
//	*T  []T  {}T                  pointer, slice, map with string keys
//	pkg.Name                      a struct (pkg shortened: core/v1, meta/v1, …)
//	@time @microtime @duration @quantity @intstr @raw @fieldsv1 @json @bytes @any
//	                              the types with their own JSON form, and interface{}
//	@resources                    core/v1 ResourceList (a map of quantities the defaulters round up to 1m)
//
// Flags: "o" omitempty, "z" omitzero. Inline structs (TypeMeta) are flattened into their parent.

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/runtime"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
)

type typesAsset struct {
	Release string                 `json:"release"`
	Modules map[string]string      `json:"modules"`
	Kinds   map[string]string      `json:"kinds"`
	Types   map[string][][3]string `json:"types"`
	// Defaults: struct type → [[field, value]]; KindDefaults: kind → struct type → [[field, value]]
	// where that kind's defaulters differ (defaults.go probeDefaults).
	Defaults     map[string]json.RawMessage            `json:"defaults"`
	KindDefaults map[string]map[string]json.RawMessage `json:"kindDefaults"`
}

// special: the types the converter does not walk (they have their own JSON or unstructured form).
var special = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                          "@time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                     "@microtime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":                      "@duration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":                      "@fieldsv1",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":                      "@quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":                    "@intstr",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                       "@raw",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON":      "@json",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSON": "@json",
	// a CRD schema's unions (a schema or a list, a schema or a bool): written as given
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray":            "@any",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool":             "@any",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray":      "@any",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrArray":       "@any",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrBool":        "@any",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrStringArray": "@any",
	// from 1.38 the CRD types are in k8s.io/apiextensions-api (the same types, moved)
	"k8s.io/apiextensions-api/pkg/apis/apiextensions/v1.JSON":                              "@json",
	"k8s.io/apiextensions-api/pkg/apis/apiextensions/v1beta1.JSON":                         "@json",
	"k8s.io/apiextensions-api/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray":            "@any",
	"k8s.io/apiextensions-api/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool":             "@any",
	"k8s.io/apiextensions-api/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray":      "@any",
	"k8s.io/apiextensions-api/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrArray":       "@any",
	"k8s.io/apiextensions-api/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrBool":        "@any",
	"k8s.io/apiextensions-api/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrStringArray": "@any",
}

var (
	marshaler   = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

func shortPkg(p string) string {
	for _, prefix := range []string{"k8s.io/api/", "k8s.io/apimachinery/pkg/apis/", "k8s.io/apiextensions-apiserver/pkg/apis/", "k8s.io/apiextensions-api/pkg/apis/", "k8s.io/apimachinery/pkg/"} {
		if strings.HasPrefix(p, prefix) {
			return strings.TrimPrefix(p, prefix)
		}
	}
	return p
}

type walker struct{ types map[string][][3]string }

// typeOf names t in the grammar above, walking the structs it reaches.
func (w *walker) typeOf(t reflect.Type) string {
	full := t.PkgPath() + "." + t.Name()
	if s, ok := special[full]; ok {
		return s
	}
	if t.Name() != "" && t.Kind() == reflect.Struct && (t.Implements(marshaler) || reflect.PointerTo(t).Implements(unmarshaler)) {
		fail("type with its own JSON form not in the special table: " + full)
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "uint"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Pointer:
		return "*" + w.typeOf(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "@bytes"
		}
		return "[]" + w.typeOf(t.Elem())
	case reflect.Map:
		if t.Name() == "ResourceList" && t.PkgPath() == "k8s.io/api/core/v1" {
			return "@resources" // SetDefaults_ResourceList rounds each quantity up to milli
		}
		if t.Key().Kind() != reflect.String {
			fail("map without string keys: " + t.String())
		}
		return "{}" + w.typeOf(t.Elem())
	case reflect.Interface:
		return "@any"
	case reflect.Struct:
		id := shortPkg(t.PkgPath()) + "." + t.Name()
		if _, ok := w.types[id]; !ok {
			w.types[id] = nil // a struct that reaches itself (JSONSchemaProps) stops here
			w.types[id] = w.fields(t)
		}
		return id
	}
	fail("unsupported type " + t.String())
	return ""
}

// jsonField: a field's json name ("" = inlined, "-" = skipped) and flags, as the converter reads
// the tag (converter.go fieldInfoFromField): no tag or an empty one names the field by its Go
// name unless it is embedded, which inlines it (`json:",inline"` inlines by the same rule).
func jsonField(f reflect.StructField) (string, string) {
	tag, ok := f.Tag.Lookup("json")
	if !ok || tag == "" {
		if f.Anonymous {
			return "", ""
		}
		return f.Name, ""
	}
	items := strings.Split(tag, ",")
	name, flags := items[0], ""
	if name == "" && !f.Anonymous {
		name = f.Name
	}
	for _, x := range items[1:] {
		switch x {
		case "omitempty":
			flags += "o"
		case "omitzero":
			flags += "z"
		}
	}
	return name, flags
}

// fields: a struct's fields as the converter encodes them, inline structs flattened.
func (w *walker) fields(t reflect.Type) [][3]string {
	out := [][3]string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.PkgPath != "" { // unexported
			continue
		}
		name, flags := jsonField(f)
		if name == "-" {
			continue
		}
		if name == "" {
			if f.Type.Kind() != reflect.Struct {
				fail("inline field that is not a struct in " + t.String())
			}
			out = append(out, w.fields(f.Type)...)
			continue
		}
		out = append(out, [3]string{name, w.typeOf(f.Type), flags})
	}
	return out
}

func writeTypes(out string) {
	a := typesAsset{Release: release, Modules: provenance, Kinds: map[string]string{}, Types: map[string][][3]string{}}
	w := &walker{types: a.Types}
	roots := map[string]reflect.Type{}
	for _, s := range []*runtime.Scheme{k8sscheme.Scheme, apiextensionsscheme.Scheme} {
		known := s.AllKnownTypes()
		gvks := make([]string, 0, len(known))
		byName := map[string]reflect.Type{}
		for gvk, t := range known {
			if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
				continue
			}
			if f, ok := t.FieldByName("ObjectMeta"); !ok || f.Tag.Get("json") != "metadata,omitempty" {
				continue
			}
			key := gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
			gvks = append(gvks, key)
			byName[key] = t
		}
		sort.Strings(gvks)
		for _, key := range gvks {
			a.Kinds[key] = w.typeOf(byName[key])
			roots[key] = byName[key]
		}
	}
	probeDefaults(&a, roots)
	b, err := json.Marshal(a)
	if err != nil {
		fail(err.Error())
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		fail(err.Error())
	}
	fmt.Fprintf(os.Stderr, "typecheck-oracle: %s: %d kinds, %d types, %d kinds with their own defaults, %d bytes\n", out, len(a.Kinds), len(a.Types), len(a.KindDefaults), len(b))
}

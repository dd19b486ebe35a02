package main

// Defaulting, as data and as the reference.
//
// probeDefaults: for every kind and every struct type its object reaches, the object with
// only the path to that struct allocated (pointers set, lists of one element) is defaulted by
// the release's own defaulters (legacyscheme, every group installed), and the struct's fields
// that defaulting set are recorded with their value as the converter writes it: the defaults
// that apply when the field is absent and everything around it is empty. Defaults that depend
// on a sibling's value (a Service port's targetPort, a container's imagePullPolicy, …) are
// recorded as they come out with empty siblings; the Workbench states those rules itself
// (src/k8s/typed/conditional.ts) and the `decode` command below is the reference both are
// tested against.
//
// decode: each object on stdin as the apiserver hands it to admission — decoded through
// legacyscheme.Codecs.UniversalDecoder (the served version into the internal type, with
// defaulting), converted back to its own version and written by
// runtime.DefaultUnstructuredConverter.ToUnstructured (what CEL sees).

import (
	"encoding/json"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"

	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apiserverinternal/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/extensions/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
)

// probeDefaults fills a.Defaults (struct type → [[field, JSON value]], the table most kinds
// reaching the type have) and a.KindDefaults (kind → struct type → its table where it differs,
// [] for none: a Pod's PodSpec defaults enableServiceLinks, a Deployment's template does not).
func probeDefaults(a *typesAsset, kinds map[string]reflect.Type) {
	perKind := map[string]map[string]string{} // kind → type → table as JSON
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, key := range names {
		parts := strings.SplitN(key, "/", 3)
		gvk := schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}
		// a kind the release installs no defaulters for (an alpha group left out above) gets none
		recognized := legacyscheme.Scheme.Recognizes(gvk)
		t := kinds[key]
		seen := map[reflect.Type]bool{}
		var visit func(st reflect.Type, path []int)
		visit = func(st reflect.Type, path []int) {
			switch st.Kind() {
			case reflect.Pointer, reflect.Slice:
				if st.Kind() == reflect.Slice && st.Elem().Kind() == reflect.Uint8 {
					return
				}
				visit(st.Elem(), append(path, -1))
				return
			case reflect.Struct:
			default:
				return
			}
			if seen[st] || special[st.PkgPath()+"."+st.Name()] != "" {
				return
			}
			seen[st] = true
			obj := reflect.New(t)
			allocate(obj.Elem(), path)
			if recognized {
				legacyscheme.Scheme.Default(obj.Interface().(runtime.Object))
			}
			target := at(obj.Elem(), path)
			fields := [][2]any{}
			for _, f := range flatFields(st, target) {
				// a struct value's defaults are its own type's; an unset field stays zero; a time
				// defaulted to now (a DeviceTaint's timeAdded) is no data
				if f.value.IsZero() || f.value.Kind() == reflect.Struct && special[f.value.Type().PkgPath()+"."+f.value.Type().Name()] == "" || isTime(f.value.Type()) {
					continue
				}
				b, err := json.Marshal(f.value.Interface())
				if err != nil {
					fail(err.Error())
				}
				fields = append(fields, [2]any{f.name, json.RawMessage(b)})
			}
			b, _ := json.Marshal(fields)
			if perKind[key] == nil {
				perKind[key] = map[string]string{}
			}
			perKind[key][shortPkg(st.PkgPath())+"."+st.Name()] = string(b)
			for i := 0; i < st.NumField(); i++ {
				if st.Field(i).PkgPath == "" {
					visit(st.Field(i).Type, append(append([]int{}, path...), i))
				}
			}
		}
		visit(t, nil)
	}
	// the common table of each type: the one most kinds have (ties: the smaller JSON)
	counts := map[string]map[string]int{}
	for _, byType := range perKind {
		for id, table := range byType {
			if counts[id] == nil {
				counts[id] = map[string]int{}
			}
			counts[id][table]++
		}
	}
	common := map[string]string{}
	for id, c := range counts {
		best := ""
		for table, n := range c {
			if best == "" || n > c[best] || n == c[best] && table < best {
				best = table
			}
		}
		common[id] = best
	}
	a.Defaults = map[string]json.RawMessage{}
	for id, table := range common {
		if table != "[]" {
			a.Defaults[id] = json.RawMessage(table)
		}
	}
	a.KindDefaults = map[string]map[string]json.RawMessage{}
	for kind, byType := range perKind {
		for id, table := range byType {
			if table != common[id] {
				if a.KindDefaults[kind] == nil {
					a.KindDefaults[kind] = map[string]json.RawMessage{}
				}
				a.KindDefaults[kind][id] = json.RawMessage(table)
			}
		}
	}
}

// CustomResourceDefinitions are decoded by the same apiserver (apiextensions-apiserver) with their own defaulters.
func init() { apiextensionsinstall.Install(legacyscheme.Scheme) }

func isTime(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s := special[t.PkgPath()+"."+t.Name()]
	return s == "@time" || s == "@microtime"
}

type namedValue struct {
	name  string
	value reflect.Value
}

// flatFields: a struct value's fields by json name, inline structs flattened (as types.go lists them).
func flatFields(st reflect.Type, v reflect.Value) []namedValue {
	var out []namedValue
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if f.PkgPath != "" {
			continue
		}
		name, _ := jsonField(f)
		if name == "-" {
			continue
		}
		if name == "" {
			out = append(out, flatFields(f.Type, v.Field(i))...)
			continue
		}
		out = append(out, namedValue{name, v.Field(i)})
	}
	return out
}

// allocate makes the path exist: pointers set to new values, lists given one element.
func allocate(v reflect.Value, path []int) {
	for _, s := range path {
		switch {
		case s >= 0:
			v = v.Field(s)
		case v.Kind() == reflect.Pointer:
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		case v.Kind() == reflect.Slice:
			if v.Len() == 0 {
				v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			}
			v = v.Index(0)
		}
	}
}

// at follows a path that allocate made (defaulting may have replaced values on it).
func at(v reflect.Value, path []int) reflect.Value {
	for _, s := range path {
		switch {
		case s >= 0:
			v = v.Field(s)
		case v.Kind() == reflect.Pointer:
			if v.IsNil() {
				return reflect.New(v.Type().Elem()).Elem()
			}
			v = v.Elem()
		case v.Kind() == reflect.Slice:
			if v.Len() == 0 {
				return reflect.New(v.Type().Elem()).Elem()
			}
			v = v.Index(0)
		}
	}
	return v
}

// decode answers, for each object on stdin, what admission hands CEL (or the decode error).
func decode() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err.Error())
	}
	var objects []json.RawMessage
	if err := json.Unmarshal(in, &objects); err != nil {
		fail(err.Error())
	}
	type answer struct {
		Object map[string]any `json:"object,omitempty"`
		Error  string         `json:"error,omitempty"`
	}
	out := make([]answer, len(objects))
	for i, doc := range objects {
		internal, gvk, err := legacyscheme.Codecs.UniversalDecoder().Decode(doc, nil, nil)
		if err != nil {
			out[i].Error = err.Error()
			continue
		}
		versioned, err := legacyscheme.Scheme.ConvertToVersion(internal, gvk.GroupVersion())
		if err != nil {
			out[i].Error = err.Error()
			continue
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(versioned)
		if err != nil {
			out[i].Error = err.Error()
			continue
		}
		out[i].Object = u
	}
	b, _ := json.Marshal(out)
	os.Stdout.Write(b)
}

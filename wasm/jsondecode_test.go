package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// sameJSON: equal decoded values, types and float bits included (-0 is not 0).
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && a == b
}

var (
	numberTexts = []string{"0", "-0", "1", "-1", "42", "0.0", "-0.0", "1.0", "1.5", "-2.25", "1e3", "1E3", "1e+3", "1e-3", "-1e0",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
		"1e400", "-1e400", "1e-400", "4.9e-324", "1.7976931348623157e308", "0.1", "3.141592653589793238462643383279", "100000000000000000000.0"}
	stringTexts = []string{`""`, `"a"`, `"hello world"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u0041"`, `"\u00e9"`, `"é"`, `"日本"`,
		`"\ud83d\ude00"`, `"😀"`, `"\ud83d"`, `"\ude00x"`, `"\u0000"`, "\"\xff\xfe\"", "\"a\xc3\"", `"\u2028"`, `"<&>"`, `"key"`}
	badTexts = []string{``, ` `, `{`, `}`, `[`, `[1,]`, `{"a":1,}`, `{"a"}`, `{a:1}`, `01`, `-`, `1.`, `.5`, `+1`, `1e`, `1e+`, `tru`, `nul`,
		`"abc`, "\"a\tb\"", `"\x"`, `"\u12"`, `[1 2]`, `{"a":1 "b":2}`, `1 2`, `{}x`, `NaN`, `Infinity`, `'a'`, `[1]]`, `{"a":1}}`}
)

func genValue(r *rand.Rand, depth int) string {
	ws := func() string { return []string{"", "", " ", "\n", "\t ", "\r\n"}[r.Intn(6)] }
	k := r.Intn(10)
	if depth > 4 {
		k = 4 + r.Intn(6)
	}
	switch {
	case k < 2:
		n := r.Intn(5)
		parts := make([]string, n)
		for i := range parts {
			key := stringTexts[r.Intn(len(stringTexts))]
			if r.Intn(3) == 0 {
				key = fmt.Sprintf(`"k%d"`, r.Intn(3)) // repeated keys
			}
			parts[i] = ws() + key + ws() + ":" + genValue(r, depth+1)
		}
		return ws() + "{" + strings.Join(parts, ",") + ws() + "}" + ws()
	case k < 4:
		n := r.Intn(5)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = genValue(r, depth+1)
		}
		return ws() + "[" + strings.Join(parts, ",") + ws() + "]" + ws()
	case k < 6:
		return ws() + numberTexts[r.Intn(len(numberTexts))] + ws()
	case k < 7:
		return ws() + fmt.Sprint(r.Int63()-r.Int63()) + ws()
	case k < 9:
		return ws() + stringTexts[r.Intn(len(stringTexts))] + ws()
	}
	return ws() + []string{"true", "false", "null"}[r.Intn(3)] + ws()
}

// fastDecodeJSON gives decodeJSON's values, or falls back; never accepts what encoding/json rejects.
func TestFastDecodeJSONMatchesDecodeJSON(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	var texts []string
	texts = append(texts, numberTexts...)
	texts = append(texts, stringTexts...)
	texts = append(texts, `{"a":1,"a":2}`, `{"a":{"b":1},"a":{"c":2}}`, strings.Repeat("[", 1200)+strings.Repeat("]", 1200))
	for i := 0; i < 20000; i++ {
		texts = append(texts, genValue(r, 0))
	}
	fast := 0
	for _, text := range texts {
		got, err := fastDecodeJSON([]byte(text))
		if err != nil {
			continue
		}
		fast++
		if !json.Valid([]byte(text)) {
			t.Fatalf("accepted invalid JSON %q", text)
		}
		want, err := decodeJSON([]byte(text))
		if err != nil {
			t.Fatalf("%q: decodeJSON failed: %v", text, err)
		}
		if !sameJSON(got, want) {
			t.Fatalf("%q: got %#v, want %#v", text, got, want)
		}
	}
	if fast < len(texts)/2 {
		t.Errorf("the fast path read only %d of %d texts", fast, len(texts))
	}
	for _, text := range badTexts {
		if _, err := fastDecodeJSON([]byte(text)); err == nil {
			t.Errorf("accepted %q", text)
		}
	}
}

// Inputs read in one pass are the inputs read the old way, field by field.
func TestParseInputsFastMatchesSlow(t *testing.T) {
	r := rand.New(rand.NewSource(37))
	requests := []string{
		`null`, `{}`,
		`{"uid":"u","operation":"CREATE","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"name":"web","namespace":"default","userInfo":{"username":"alice","groups":["dev","system:authenticated"]},"dryRun":false,"options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl"}}`,
		`{"operation":"UPDATE","kind":{"group":"apps","version":"v1","kind":"Deployment"},"requestKind":{"group":"apps","version":"v1beta1","kind":"Deployment"},"resource":{"group":"apps","version":"v1","resource":"deployments"},"requestResource":{"group":"apps","version":"v1beta1","resource":"deployments"},"subResource":"scale","requestSubResource":"status","dryRun":true,"userInfo":{"username":"bob","uid":"1","groups":[],"extra":{"scopes":["a","b"],"x":[]}}}`,
		`{"kind":{"group":"a"},"kind":{"version":"v"},"userInfo":{"username":"x"},"userInfo":{"groups":["g"]},"dryRun":true,"dryRun":false}`,
		`{"options":{"a":1},"options":null,"object":{"x":1},"oldObject":[1]}`,
		`{"options":[1,2],"name":"\u00e9\n"}`,
		`{"options":"x","userInfo":{"extra":{"a":["1"]},"extra":{"b":["2"]}}}`,
		`{"Name":"case"}`, `{"object":[],"kind":{"group":"","version":"v1","kind":"Pod"}}`, `{"name":null}`, `{"kind":null}`, `{"requestKind":null}`, `{"userInfo":{"groups":null}}`, `{"dryRun":null}`, `{"name":1}`,
	}
	objects := []string{`null`, `{}`, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"app":"x"}},"spec":{"replicas":3,"ratio":1.5,"big":123456789012345678901}}`}
	// pick: mostly the first `good` values, sometimes any
	pick := func(l []string, good int) string {
		if r.Intn(8) == 0 {
			return l[r.Intn(len(l))]
		}
		return l[r.Intn(good)]
	}
	namespaces := []string{`null`, `{"metadata":{"name":"ns","labels":{"a":"b"}}}`, `{"metadata":{"name":"ns","creationTimestamp":"2024-01-01T00:00:00Z"},"status":{"phase":"Active"}}`, `{"metadata":{"name":5}}`}
	authorizers := []string{`null`, `{"rules":[]}`, `{"rules":[{"verb":"get","decision":"allow"}]}`, `{}`}
	variables := []string{`null`, `{}`, `{"a":1,"b":"x","c":[1.5,{"d":null}]}`, `[1]`}
	keys := []string{"object", "oldObject", "params", "request", "namespaceObject", "variables", "authorizer"}
	gen := func() string {
		var parts []string
		for _, k := range keys {
			for n := []int{0, 0, 1, 1, 1, 1, 1, 2}[r.Intn(8)]; n > 0; n-- { // absent, once, or repeated
				var v string
				switch k {
				case "request":
					v = pick(requests, 8)
				case "namespaceObject":
					v = pick(namespaces, 3)
				case "authorizer":
					v = pick(authorizers, 4)
				case "variables":
					v = pick(variables, 3)
				default:
					v = objects[r.Intn(len(objects))]
					if r.Intn(3) == 0 {
						v = genValue(r, 1) // sometimes not an object: both must refuse it
					}
				}
				parts = append(parts, fmt.Sprintf("%q: %s", k, v))
			}
		}
		r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		if r.Intn(20) == 0 {
			parts = append(parts, `"Object": {}`)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	texts := []string{``, `  `, `null`, `[]`, `{}`, benchInputs, leanInputs("web-1", "team-1")}
	for i := 0; i < 3000; i++ {
		texts = append(texts, gen())
	}
	fast := 0
	for _, text := range texts {
		got, err := parseInputsFast(text)
		want, werr := parseInputsSlow(text)
		if err != nil {
			continue
		}
		fast++
		if werr != nil {
			t.Fatalf("%s: the fast path read inputs the old way rejects (%v)", text, werr)
		}
		if d := inputsDiff(got, want); d != "" {
			t.Fatalf("%s: %s", text, d)
		}
	}
	if fast < len(texts)/4 {
		t.Errorf("the fast path read only %d of %d inputs", fast, len(texts))
	}
}

func inputsDiff(a, b *inputs) string {
	obj := func(name string, x, y any) string {
		if (x == nil) != (y == nil) || (x != nil && !sameJSON(unstructuredOf(x), unstructuredOf(y))) {
			return fmt.Sprintf("%s: %#v vs %#v", name, x, y)
		}
		return ""
	}
	for _, d := range []string{obj("object", a.object, b.object), obj("oldObject", a.oldObject, b.oldObject), obj("params", a.params, b.params)} {
		if d != "" {
			return d
		}
	}
	if !reflect.DeepEqual(a.request, b.request) {
		return fmt.Sprintf("request: %#v vs %#v", a.request, b.request)
	}
	if !reflect.DeepEqual(a.namespace, b.namespace) {
		return fmt.Sprintf("namespace: %#v vs %#v", a.namespace, b.namespace)
	}
	if (a.authz == nil) != (b.authz == nil) || a.authz != nil && !reflect.DeepEqual(a.authz.rules, b.authz.rules) {
		return fmt.Sprintf("authorizer: %#v vs %#v", a.authz, b.authz)
	}
	if len(a.variables) != len(b.variables) {
		return fmt.Sprintf("variables: %v vs %v", a.variables, b.variables)
	}
	for k, v := range a.variables {
		if w, ok := b.variables[k]; !ok || v.Equal(w) != celTrue || v.Type() != w.Type() {
			return fmt.Sprintf("variables.%s: %v vs %v", k, v, w)
		}
	}
	x, y := a.attrs, b.attrs
	if x.GetName() != y.GetName() || x.GetNamespace() != y.GetNamespace() || x.GetResource() != y.GetResource() ||
		x.GetSubresource() != y.GetSubresource() || x.GetOperation() != y.GetOperation() || x.IsDryRun() != y.IsDryRun() ||
		x.GetKind() != y.GetKind() || !reflect.DeepEqual(x.GetUserInfo(), y.GetUserInfo()) || x.VersionedKind != y.VersionedKind {
		return fmt.Sprintf("attributes: %#v vs %#v", x, y)
	}
	if d := obj("options", x.GetOperationOptions(), y.GetOperationOptions()); d != "" {
		return d
	}
	return ""
}

var celTrue = types.True

func unstructuredOf(x any) any {
	if u, ok := x.(*unstructured.Unstructured); ok {
		return u.Object
	}
	return x
}

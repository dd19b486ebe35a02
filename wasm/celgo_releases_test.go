package main

import (
	"fmt"
	"strings"
	"testing"
)

// cel-go v0.17 at 1.30 (celgo_releases.go, fixes.go): the answers of the 1.30 apiserver's CEL
// (tools/cel-oracle, k8s.io/apiserver v0.30.14); at 1.31 (v0.20) and 1.32 (v0.22) what their
// oracles showed each kept of it, and 1.33's (v0.23) answers without any of it.
func TestCelGoV017At130(t *testing.T) {
	type want struct {
		ok      bool
		message string
		max     uint64
	}
	const unsized = 5534023222112865852 // a comprehension variable of unknown size
	cases := []struct {
		expr  string
		at130 want
		// ok at 1.31, 1.32, 1.33; the static cost's max is unsized where the release knows no size
		ok      [3]bool
		unsized [3]bool
	}{
		{"[1].first()", want{message: "compilation failed: ERROR: <input>:1:10: undeclared reference to 'first' (in container '')\n | [1].first()\n | .........^"}, [3]bool{false, false, true}, [3]bool{}},
		{"'%d'.format(['a'])", want{ok: true, max: 11}, [3]bool{false, false, false}, [3]bool{}},
		{"'%d'.format([b'ab', 'x'])", want{ok: true, max: 11}, [3]bool{false, false, false}, [3]bool{}},
		{"optional.none().optMap(x, x + 1)", want{message: "compilation failed: ERROR: <input>:1:14: incompatible type already exists for expression: id:2  call_expr:{function:\"optional.none\"}(2) old:optional(_var0), new:optional(_var3)\n | optional.none().optMap(x, x + 1)\n | .............^"}, [3]bool{false, true, true}, [3]bool{}},
		{"['b', 'a', 'c'].map(x, x + 'a')", want{ok: true, max: unsized}, [3]bool{true, true, true}, [3]bool{true, true, false}},
	}
	for _, c := range cases {
		r := Compile(c.expr, "vap-variable", `{"kubernetesVersion":"1.30"}`)
		if r.OK != c.at130.ok || r.Message != c.at130.message || (r.OK && r.Cost.Max != c.at130.max) {
			t.Errorf("%s at 1.30: ok %v %q cost %+v; want %+v", c.expr, r.OK, r.Message, r.Cost, c.at130)
		}
		for i, v := range []string{"1.31", "1.32", "1.33"} {
			r = Compile(c.expr, "vap-variable", `{"kubernetesVersion":"`+v+`"}`)
			if r.OK != c.ok[i] || (r.OK && (r.Cost.Max == unsized) != c.unsized[i]) {
				t.Errorf("%s at %s: ok %v %q cost %+v", c.expr, v, r.OK, r.Message, r.Cost)
			}
		}
	}
	// v0.20 words the shared optMap target's type parameters as v0.17 did, without brackets
	r := Compile("optional.none().optMap(x, x + 1)", "vap-variable", `{"kubernetesVersion":"1.31"}`)
	if !strings.Contains(r.Message, "old:optional_type(_var0), new:optional_type(_var3)") {
		t.Errorf("optMap at 1.31: %q", r.Message)
	}
}

// The end of the input in a syntax error is '<EOF>' at every release (1.30's type parameters
// lose their brackets, "<_var0>" → "_var0", but not ANTLR's end of input).
func TestEndOfInputAt130(t *testing.T) {
	for _, v := range []string{"1.30", "1.31", "1.37"} {
		r := Compile("!!", "vap-variable", `{"kubernetesVersion":"`+v+`"}`)
		if r.OK || !strings.Contains(r.Message, "extraneous input '<EOF>' expecting") {
			t.Errorf("!! at %s: %q", v, r.Message)
		}
	}
}

// cel-go v0.22 at 1.32 (untypedIterVar2): a two-variable comprehension over a dyn range gives its
// second variable no type, so a stored expression that uses it does not compile; v0.23 (1.33)
// makes it dyn. The answers of the 1.32 and 1.33 apiservers' CEL (tools/cel-oracle, stored).
func TestUntypedIterVar2At132(t *testing.T) {
	const list = "object.spec.containers"
	cases := []struct {
		expr      string
		at132     string // "" when it compiles
		internal  bool   // an internal error (k8s.io/apiserver could not convert the checked types)
		costAt132 string // the static cost when it compiles at 1.32
		// refused at 1.33 as well, for its other error only
		refusedAt133 bool
	}{
		{expr: list + ".exists(i, v, v == 1)", at132: "compilation failed: ERROR: <input>:1:39: found no matching overload for '_==_' applied to '(, int)'\n | object.spec.containers.exists(i, v, v == 1)\n | ......................................^"},
		{expr: list + ".all(i, v, v)", at132: "compilation failed: ERROR: <input>:1:34: expected type 'bool' but found ''\n | object.spec.containers.all(i, v, v)\n | .................................^"},
		{expr: list + ".transformList(i, v, v.name)", at132: "compilation failed: ERROR: <input>:1:45: type '' does not support field selection\n | object.spec.containers.transformList(i, v, v.name)\n | ............................................^"},
		{expr: "object.metadata.labels.transformMap(k, v, v)", at132: "compilation failed: ERROR: <input>:1:36: expected type 'map(_var0, _var1)' but found 'map(dyn, )'\n | object.metadata.labels.transformMap(k, v, v)\n | ...................................^"},
		{expr: list + ".all(i, v, " + list + ".all(j, w, v == w))", at132: "compilation failed: ERROR: <input>:1:69: found no matching overload for '_==_' applied to '(, )'\n | object.spec.containers.all(i, v, object.spec.containers.all(j, w, v == w))\n | ....................................................................^"},
		// checked without an error, but the variable's reference keeps no type
		{expr: list + ".transformList(i, v, v)", at132: "unexpected compilation error: missing type conversion to proto: ", internal: true},
		{expr: list + ".all(i, v, type(v) == map)", at132: "unexpected compilation error: missing type conversion to proto: ", internal: true},
		// refused by this binary's checker too: v0.22's errors include the untyped variable's
		{expr: "1.all(i, v, v == 1)", at132: "compilation failed: ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)\n | 1.all(i, v, v == 1)\n | ^\nERROR: <input>:1:15: found no matching overload for '_==_' applied to '(, int)'\n | 1.all(i, v, v == 1)\n | ..............^", refusedAt133: true},
		// no reference to it, a list range, or the name bound again by a nested comprehension
		{expr: list + ".all(i, v, i < 2)", costAt132: "2..18446744073709551615"},
		{expr: "[1, 2].all(i, v, v == 1)", costAt132: "17..21"},
		{expr: list + ".all(i, v, [1].exists(v, v == 1))", costAt132: "2..18446744073709551615"},
	}
	for _, c := range cases {
		r := Compile(c.expr, "vap-variable", `{"kubernetesVersion":"1.32","stored":true}`)
		if c.at132 != "" {
			if r.OK || r.Message != c.at132 || (r.ErrorType == "Internal") != c.internal {
				t.Errorf("%s at 1.32: ok %v %s %q; want %q", c.expr, r.OK, r.ErrorType, r.Message, c.at132)
			}
		} else if !r.OK || fmt.Sprintf("%d..%d", r.Cost.Min, r.Cost.Max) != c.costAt132 {
			t.Errorf("%s at 1.32: ok %v %q cost %+v; want cost %s", c.expr, r.OK, r.Message, r.Cost, c.costAt132)
		}
		if r := Compile(c.expr, "vap-variable", `{"kubernetesVersion":"1.33","stored":true}`); r.OK == c.refusedAt133 {
			t.Errorf("%s at 1.33: ok %v %q", c.expr, r.OK, r.Message)
		}
	}
}

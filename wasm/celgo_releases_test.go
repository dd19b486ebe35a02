package main

import (
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

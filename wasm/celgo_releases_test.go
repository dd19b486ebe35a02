package main

import (
	"strings"
	"testing"
)

// cel-go v0.17 at 1.30 (celgo_releases.go, fixes.go): the answers of the 1.30 apiserver's CEL
// (tools/cel-oracle, k8s.io/apiserver v0.30.14), and 1.31's unchanged.
func TestCelGoV017At130(t *testing.T) {
	type want struct {
		ok      bool
		message string
		max     uint64
	}
	cases := []struct {
		expr       string
		at130      want
		at131Error bool
	}{
		{"[1].first()", want{message: "compilation failed: ERROR: <input>:1:10: undeclared reference to 'first' (in container '')\n | [1].first()\n | .........^"}, false},
		{"'%d'.format(['a'])", want{ok: true, max: 11}, true},
		{"'%d'.format([b'ab', 'x'])", want{ok: true, max: 11}, true},
		{"optional.none().optMap(x, x + 1)", want{message: "compilation failed: ERROR: <input>:1:14: incompatible type already exists for expression: id:2  call_expr:{function:\"optional.none\"}(2) old:optional(_var0), new:optional(_var3)\n | optional.none().optMap(x, x + 1)\n | .............^"}, false},
		{"['b', 'a', 'c'].map(x, x + 'a')", want{ok: true, max: 5534023222112865852}, false},
	}
	for _, c := range cases {
		r := Compile(c.expr, "vap-variable", `{"kubernetesVersion":"1.30"}`)
		if r.OK != c.at130.ok || r.Message != c.at130.message || (r.OK && r.Cost.Max != c.at130.max) {
			t.Errorf("%s at 1.30: ok %v %q cost %+v; want %+v", c.expr, r.OK, r.Message, r.Cost, c.at130)
		}
		r = Compile(c.expr, "vap-variable", `{"kubernetesVersion":"1.31"}`)
		if r.OK == c.at131Error || (r.OK && r.Cost.Max > 1000) {
			t.Errorf("%s at 1.31: ok %v %q cost %+v", c.expr, r.OK, r.Message, r.Cost)
		}
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

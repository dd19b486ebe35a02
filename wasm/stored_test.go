package main

import (
	"fmt"
	"testing"
)

// A library introduced in release N is usable in expressions already stored at N but in new
// ones only from N+1 (environment.StoredExpressions vs NewExpressions; versions.go). Each case
// is a library of the release it names: semver (1.33), the Kubernetes lists library v1 with
// includes() (1.37, the binary's own release in the 1.37 generation) and the CIDR library v1
// with isMask() (1.38).
func TestStoredCompile(t *testing.T) {
	cases := []struct {
		minor uint
		expr  string
	}{
		{33, "isSemver('1.0.0')"},
		{37, "[1, 2].includes(1)"},
		{38, "cidr('10.0.0.0/8').isMask()"},
	}
	ran := 0
	for _, c := range cases {
		if c.minor < oldestMinor || c.minor > binaryMinor {
			continue
		}
		ran++
		for _, ctx := range []string{"vap-validation", "vap-variable", "webhook-matchCondition"} {
			opts := fmt.Sprintf(`{"kubernetesVersion":"1.%d"}`, c.minor)
			stored := fmt.Sprintf(`{"kubernetesVersion":"1.%d","stored":true}`, c.minor)
			if r := Compile(c.expr, ctx, opts); r.OK {
				t.Errorf("1.%d %s new: %s compiled, want an undeclared reference", c.minor, ctx, c.expr)
			}
			if r := Compile(c.expr, ctx, stored); !r.OK {
				t.Errorf("1.%d %s stored: %s: %s", c.minor, ctx, c.expr, r.Message)
			} else if r.Cost == nil {
				t.Errorf("1.%d %s stored: no static cost", c.minor, ctx)
			}
		}
		// one release later the library is usable in new expressions too
		if c.minor < binaryMinor {
			if r := Compile(c.expr, "vap-validation", fmt.Sprintf(`{"kubernetesVersion":"1.%d"}`, c.minor+1)); !r.OK {
				t.Errorf("1.%d new: %s", c.minor+1, r.Message)
			}
		}
	}
	// a stored policy's variables are compiled as stored too (validating/plugin.go compilePolicy)
	last := cases[len(cases)-1]
	for _, c := range cases {
		if c.minor <= binaryMinor && c.minor >= oldestMinor {
			last = c
		}
	}
	opts := fmt.Sprintf(`{"kubernetesVersion":"1.%d","stored":true,"variables":[{"name":"v","expression":%q}]}`, last.minor, last.expr)
	if r := Compile("variables.v", "vap-validation", opts); !r.OK || r.Type != "bool" {
		t.Errorf("1.%d stored variable: %+v", last.minor, r)
	}
	if ran == 0 {
		t.Fatal("no case for this engine generation")
	}
}

package main

import (
	"testing"

	"github.com/google/cel-go/cel"
)

// The decorator reaches into cel-go's unexported or/orValue steps: a cel-go that renames them
// must fail here rather than evaluate as v0.29 at older targets.
func TestOptionalOrBefore137(t *testing.T) {
	env, err := cel.NewEnv(cel.OptionalTypes(), cel.Variable("x", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]any{
		"x.orValue(2)":                               int64(1),
		"x.or(optional.of(2))":                       int64(1),
		"optional.none().orValue(x)":                 int64(1),
		"optional.of(3).orValue(x)":                  int64(3),
		"optional.none().or(optional.of(4)).value()": int64(4),
	}
	for expr, want := range cases {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", expr, iss.Err())
		}
		for _, before := range []bool{false, true} {
			var opts []cel.ProgramOption
			if before {
				opts = append(opts, cel.CustomDecoratorV2(decorateOptionalOrBefore137))
			}
			prg, err := env.Program(ast, opts...)
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			out, _, err := prg.Eval(map[string]any{"x": int64(1)})
			switch {
			case before && (err != nil || out.Value() != want):
				t.Errorf("%s before 1.37: %v, %v; want %v", expr, out, err, want)
			case !before && expr[0] == 'x' && err == nil:
				t.Errorf("%s at 1.37: %v; want no such overload (if cel-go changed this, drop the fix)", expr, out)
			}
		}
	}
}

package main

import (
	"encoding/json"
	"reflect"
	"testing"

	celgo "github.com/google/cel-go/cel"
)

var traceCases = []string{
	"object.spec.replicas <= params.maxReplicas",
	"object.spec.replicas > 5 && object.metadata.name == 'web'",
	"object.spec.replicas < 5 || object.metadata.name.startsWith('x')",
	"(object.spec.replicas == 3 ? object.metadata.labels.team : 'none') == 'a'",
	"object.spec.containers.all(c, c.image.startsWith('registry.internal/'))",
	"object.spec.containers.exists(c, c.name == 'b')",
	"[].all(c, c > 1)",
	"object.spec.containers.map(c, c.name).size() + params.maxReplicas > 7",
	"object.metadata.labels.nope == 'x' || true",
	"(has(object.spec.nope) ? object.spec.nope : 'é😀' + object.metadata.name) != ''",
}

// intsOf makes JSON numbers CEL ints where they are integral, as the apiserver's unstructured
// objects hold them.
func intsOf(v any) any {
	switch t := v.(type) {
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	case map[string]any:
		for k, x := range t {
			t[k] = intsOf(x)
		}
	case []any:
		for i, x := range t {
			t[i] = intsOf(x)
		}
	}
	return v
}

// Each node of a trace holds what cel-go's own EvalState records for the same expression and
// input, planned by a plain cel-go environment with state tracking.
func TestTraceMatchesEvalState(t *testing.T) {
	if m := SetInputs("tr", benchInputs); m != "" {
		t.Fatal(m)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(benchInputs), &in); err != nil {
		t.Fatal(err)
	}
	env, err := celgo.NewEnv(celgo.Variable("object", celgo.DynType), celgo.Variable("params", celgo.DynType))
	if err != nil {
		t.Fatal(err)
	}
	act := map[string]any{"object": intsOf(in["object"]), "params": intsOf(in["params"])}
	for _, expr := range traceCases {
		got := Evaluate(expr, "vap-validation", `{"hasParams":true,"trace":true}`, "tr")
		if got.Trace == nil {
			t.Errorf("%q: no trace (%+v)", expr, got)
			continue
		}
		checked, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatal(iss.Err())
		}
		prg, err := env.Program(checked, celgo.EvalOptions(celgo.OptTrackState))
		if err != nil {
			t.Fatal(err)
		}
		_, det, _ := prg.Eval(act)
		want := traceOf(expr, checked.NativeRep(), det.State(), nil)
		for i := range got.Trace {
			got.Trace[i].Seen = nil // what cel-go's state has no record of (TestTraceSeen)
		}
		g, _ := json.Marshal(got.Trace)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%q:\n got %s\nwant %s", expr, g, w)
		}
	}
}

// Tracing changes neither the result nor the cost.
func TestTraceKeepsResultAndCost(t *testing.T) {
	if m := SetInputs("tr", benchInputs); m != "" {
		t.Fatal(m)
	}
	opts := `{"hasParams":true,"variables":[{"name":"n","expression":"object.spec.containers.size()"}]}`
	traced := `{"hasParams":true,"trace":true,"variables":[{"name":"n","expression":"object.spec.containers.size()"}]}`
	exprs := append([]string{
		"variables.n == 3 && object.spec.replicas > 1", "object.nope == 1", "[1,2,3].map(x, [1,2,3,4,5,6,7,8,9,10].map(y, x*y)).size() > 0",
		// watched predicates and operands (TestTraceSeen), nested
		"[[1, 2], [3], []].all(l, l.all(y, y < 3))",
		"object.spec.containers.filter(c, c.name != 'a' && c.image.startsWith('registry.')).size() == variables.n - 1",
		"[0, 1].exists(x, 1 / x == 1)",
	}, traceCases...)
	for _, e := range exprs {
		plain := Evaluate(e, "vap-validation", opts, "tr")
		tr := Evaluate(e, "vap-validation", traced, "tr")
		tr.Trace = nil
		if !reflect.DeepEqual(plain, tr) {
			t.Errorf("%q: plain %+v, traced %+v", e, plain, tr)
		}
	}
	// Past the per-call limit: the same failure, and no second run.
	runaway := "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, 'x'.repeat(0) + string(a+b+c+d+e+f))))))).size() > 0"
	plain := Evaluate(runaway, "vap-validation", "", "tr")
	tr := Evaluate(runaway, "vap-validation", `{"trace":true}`, "tr")
	if tr.Trace != nil {
		t.Errorf("runaway: a trace after the cost ran out")
	}
	if !reflect.DeepEqual(plain, tr) {
		t.Errorf("runaway: plain %+v, traced %+v", plain, tr)
	}
}

// Short-circuited operands and unevaluated macro bodies did not run; offsets are UTF-16.
func TestTraceRanAndOffsets(t *testing.T) {
	if m := SetInputs("tr", benchInputs); m != "" {
		t.Fatal(m)
	}
	expr := "'😀' == 'x' && object.spec.replicas > 1"
	r := Evaluate(expr, "vap-validation", `{"trace":true}`, "tr")
	find := func(start, end int) *traceNode {
		for i := range r.Trace {
			if r.Trace[i].From == start && r.Trace[i].To == end {
				return &r.Trace[i]
			}
		}
		t.Fatalf("no node %d-%d in %+v", start, end, r.Trace)
		return nil
	}
	// '😀' is 4 UTF-16 units with its quotes; == 'x' ends at 11.
	if n := find(0, 11); !n.Ran || n.Value != false {
		t.Errorf("left operand: %+v", n)
	}
	if n := find(15, 39); n.Ran {
		t.Errorf("right operand ran: %+v", n)
	}
	r = Evaluate("int('3') > 2", "vap-validation", `{"trace":true}`, "tr")
	if n := find(0, 8); !n.Ran {
		t.Errorf("int('3'): %+v", n)
	}
	r = Evaluate("[].all(c, c > 1)", "vap-validation", `{"trace":true}`, "tr")
	if n := find(10, 15); n.Ran {
		t.Errorf("predicate of an empty list ran: %+v", n)
	}
	// has(): the whole call, from "has" to its ")", is the node (cel-go's range is the "(")
	r = Evaluate("!has(object.spec.nope) && has( object.spec . replicas )", "vap-validation", `{"trace":true}`, "tr")
	if n := find(1, 22); !n.Ran || n.Value != false {
		t.Errorf("has(object.spec.nope): %+v", n)
	}
	if n := find(26, 55); !n.Ran || n.Value != true {
		t.Errorf("has( object.spec . replicas ): %+v", n)
	}
	// parentheses around a last argument: the call and the macro still end at their own ")"
	r = Evaluate("[1, 2].exists_one(x, (x == 3)) || int(('3')) == 3", "vap-validation", `{"trace":true}`, "tr")
	if n := find(0, 30); !n.Ran || n.Value != false {
		t.Errorf("exists_one with a parenthesized predicate: %+v", n)
	}
	if n := find(34, 44); !n.Ran {
		t.Errorf("int(('3')): %+v", n)
	}
}

// Watched nodes count every evaluation's outcome, true and false, where the evaluation state keeps
// only the last: macro predicates, and operands of && / || and ?: conditions inside a macro's body.
// Counted by hand (all and exists stop at the first false / true element).
func TestTraceSeen(t *testing.T) {
	if m := SetInputs("tr", benchInputs); m != "" {
		t.Fatal(m)
	}
	type seen = map[string]seenCount // the node's source text → its counts
	cases := []struct {
		expr string
		want seen
	}{
		{"[1, 2, 3, 4].all(x, x < 3)", seen{"x < 3": {2, 1}}},
		{"[1, 2, 3].all(x, x > 0)", seen{"x > 0": {3, 0}}},
		{"[1, 2, 3, 4].exists(x, x == 2)", seen{"x == 2": {1, 1}}},
		{"[1, 2, 3].exists(x, x > 5)", seen{"x > 5": {0, 3}}},
		{"[1, 2, 3].exists_one(x, x == 2)", seen{"x == 2": {1, 2}}},
		{"[1, 2, 3].filter(x, x % 2 == 1)", seen{"x % 2 == 1": {2, 1}}},
		{"[1, 2, 3].map(x, x > 1, x * 2)", seen{"x > 1": {2, 1}}},
		{`{"a": 1, "b": 2}.filter(k, k == "a")`, seen{`k == "a"`: {1, 1}}},
		// a variable and a field as the predicate (attributes)
		{"[false, true].exists(b, b)", seen{"b": {1, 1}}},
		{`[{"on": true}, {"on": false}].all(m, m.on)`, seen{"m.on": {1, 1}}},
		// nested: the inner predicate counts over every outer element
		{"[[1, 2], [3], []].all(l, l.all(y, y < 3))", seen{"l.all(y, y < 3)": {1, 1}, "y < 3": {2, 1}}},
		{"[[1, 5], [2], [7, 8]].filter(l, l.exists(y, y > 4))", seen{"l.exists(y, y > 4)": {2, 1}, "y > 4": {2, 2}}},
		{"object.spec.containers.all(c, object.spec.containers.exists_one(d, d.name == c.name))", seen{
			"object.spec.containers.exists_one(d, d.name == c.name)": {3, 0}, "d.name == c.name": {3, 6}}},
		// && and ?: inside a body
		{"[1, 2, 3].all(x, x > 0 && x < 3)", seen{"x > 0 && x < 3": {2, 1}, "x > 0": {3, 0}, "x < 3": {2, 1}}},
		{"[1, 2, 3].map(x, x == 2 ? 'two' : 'other')", seen{"x == 2": {1, 2}}},
		// errors count on neither side: 1 / 0 fails, exists absorbs it when another is true
		{"[0, 1].exists(x, 1 / x == 1)", seen{"1 / x == 1": {1, 0}}},
		// not evaluated (an empty range), or at most once (outside a body): nothing to count
		{"[].all(x, x > 1)", seen{}},
		{"1 < 2 && 2 < 3 ? [1].all(x, x > 0) : false", seen{"x > 0": {1, 0}}},
	}
	for _, c := range cases {
		r := Evaluate(c.expr, "vap-variable", `{"trace":true}`, "tr")
		if r.Trace == nil {
			t.Errorf("%q: no trace (%+v)", c.expr, r)
			continue
		}
		got := seen{}
		for _, n := range r.Trace {
			if n.Seen != nil {
				got[c.expr[n.From:n.To]] = *n.Seen
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: seen %v, want %v", c.expr, got, c.want)
		}
	}
}

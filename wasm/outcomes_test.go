package main

import (
	"strings"
	"testing"
)

// Each failure says its kind; the page never reads the message to learn it.
func TestOutcomeKinds(t *testing.T) {
	if m := SetInputs("k", `{"object":{"items":[1,2,3]}}`); m != "" {
		t.Fatal(m)
	}
	runaway := "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))"
	cases := []struct {
		expr, ctx, inputs  string
		kind, limit, stage string
	}{
		{"object.items.size() == 3", "vap-validation", "k", "", "", ""},
		{"object.spec.paused", "vap-validation", "k", kindCompile, "", "compile"},
		{"object.nope == 1", "vap-validation", "k", kindRuntime, "", "runtime"},
		{runaway, "vap-validation", "k", kindCostExceeded, limitPerExpression, "runtime"},
		{"true", "vap-validation", "no-such-inputs", kindInputs, "", "runtime"},
	}
	for _, c := range cases {
		r := Evaluate(c.expr, c.ctx, "", c.inputs)
		if r.Kind != c.kind || r.Limit != c.limit || r.Stage != c.stage || r.OK != (c.kind == "") {
			t.Errorf("%.40s: kind %q limit %q stage %q ok %v (%s), want %q %q %q", c.expr, r.Kind, r.Limit, r.Stage, r.OK, r.Message, c.kind, c.limit, c.stage)
		}
		if c.limit == limitPerExpression && !strings.HasSuffix(r.Message, costLimitExceeded) {
			t.Errorf("the apiserver's message is kept: %s", r.Message)
		}
	}
	if r := Compile("object.spec.paused", "vap-validation", ""); r.OK || r.Kind != kindCompile {
		t.Errorf("compile: %+v", r)
	}
	if r := Compile("true", "vap-validation", ""); !r.OK || r.Kind != "" {
		t.Errorf("compile ok: %+v", r)
	}
	if r := batchResults(EvaluateBatch("k", "\x00a\x00b\x00")); len(r) != 1 || r[0].Kind != kindEngine {
		t.Errorf("malformed batch: %+v", r)
	}
}

// The runtime budget (apiserver cel.ErrOutOfBudget) is a cost-exceeded outcome with limit
// "budget", for every item of the group that ran out.
func TestOutcomeBudget(t *testing.T) {
	if m := SetInputs("b", `{}`); m != "" {
		t.Fatal(m)
	}
	heavy := "authorizer.path('/x').check('get').allowed() || true"
	one := Evaluate(heavy, "vap-validation", "", "b")
	if !one.OK {
		t.Fatalf("one: %+v", one)
	}
	var items []batchItem
	for i := 0; i <= int(10_000_000 / *one.Cost); i++ {
		items = append(items, batchItem{Expression: heavy, Context: "vap-validation", Group: "g"})
	}
	got := evaluateItems(inputCache["b"], "b", entriesOf(items))
	if last := got[len(got)-1]; last.Kind != kindCostExceeded || last.Limit != limitBudget {
		t.Errorf("over budget: %+v", last)
	}
}

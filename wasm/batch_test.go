package main

import (
	"encoding/json"
	"strconv"
	"testing"
)

func batchJSON(t *testing.T, items []batchItem) string {
	t.Helper()
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A batch gives each item what Evaluate gives it, costs included.
func TestBatchMatchesEvaluate(t *testing.T) {
	if m := SetInputs("t", benchInputs); m != "" {
		t.Fatal(m)
	}
	opts := json.RawMessage(`{"hasParams":true,"variables":[{"name":"n","expression":"object.spec.containers.size()"}]}`)
	exprs := append([]string{"variables.n == 3", "object.nope == 1", "variables.n + 1"}, benchExprs...)
	for _, group := range []string{"", "p"} {
		var items []batchItem
		for _, e := range exprs {
			items = append(items, batchItem{Expression: e, Context: "vap-validation", Options: opts, Group: group})
		}
		items = append(items, batchItem{Expression: "variables.n", Context: "vap-variable", Options: opts, Group: group})
		got := evaluateItems(inputCache["t"], "t", entriesOf(items))
		for i, it := range items {
			want := Evaluate(it.Expression, it.Context, string(it.Options), "t")
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want)
			// In a group a variable is computed and charged once (the first expression that reads it).
			if group == "p" && i > 0 && (it.Expression == "variables.n + 1" || it.Context == "vap-variable") {
				if got[i].OK != want.OK || got[i].Display != want.Display {
					t.Errorf("group %q %q: got %s, want %s", group, it.Expression, g, w)
				}
				continue
			}
			if string(g) != string(w) {
				t.Errorf("group %q %q: got %s, want %s", group, it.Expression, g, w)
			}
		}
	}
}

// Items of a group share the policy budget (one ForInput, as the apiserver evaluates a
// policy's validations): when it runs out, the whole group fails with the apiserver's
// message, as the policy does; another group is unaffected.
func TestBatchGroupBudget(t *testing.T) {
	if m := SetInputs("t", `{}`); m != "" {
		t.Fatal(m)
	}
	heavy := "authorizer.path('/x').check('get').allowed() || true" // a large fixed cost, below the per-call limit
	one := Evaluate(heavy, "vap-validation", "", "t")
	if !one.OK {
		t.Fatalf("one: %+v", one)
	}
	fits := int(10_000_000 / *one.Cost)
	group := func(n int, name string) []batchItem {
		var items []batchItem
		for i := 0; i < n; i++ {
			items = append(items, batchItem{Expression: heavy, Context: "vap-validation", Group: name})
		}
		return items
	}
	ok := batchResults(EvaluateBatch("t", batchJSON(t, group(fits, "g"))))
	for _, r := range ok {
		if !r.OK || *r.Cost != *one.Cost {
			t.Fatalf("within budget: %+v", r)
		}
	}
	got := batchResults(EvaluateBatch("t", batchJSON(t, append(group(fits+1, "g"), group(1, "other")...))))
	const out = "validation failed due to running out of cost budget, no further validation rules will be run"
	for _, r := range got[:fits+1] {
		if r.OK || r.Message != out {
			t.Fatalf("over budget: %+v", r)
		}
	}
	if !got[fits+1].OK {
		t.Errorf("other group: %+v", got[fits+1])
	}
	// Without a group every item has its own budget.
	var alone []batchItem
	for _, it := range group(fits+1, "") {
		alone = append(alone, it)
	}
	for _, r := range batchResults(EvaluateBatch("t", batchJSON(t, alone))) {
		if !r.OK {
			t.Fatalf("ungrouped: %+v", r)
		}
	}
}

// The packed form src/cel/raw.ts sends gives what the JSON form gives.
func TestBatchPacked(t *testing.T) {
	if m := SetInputs("t", benchInputs); m != "" {
		t.Fatal(m)
	}
	items := []batchItem{
		{Expression: benchExprs[3], Context: "vap-validation", Options: json.RawMessage(`{"hasParams":true}`), Group: "g"},
		{Expression: "[1, 2].size() == 2", Context: "vap-validation"},
		{Expression: "object.spec.replicas +", Context: "vap-validation", Group: "g"},
	}
	packed := "\x00"
	for _, it := range items {
		packed += it.Expression + "\x00" + it.Context + "\x00" + string(it.Options) + "\x00" + it.Group + "\x00"
	}
	a, _ := json.Marshal(batchResults(EvaluateBatch("t", packed)))
	b, _ := json.Marshal(batchResults(EvaluateBatch("t", batchJSON(t, items))))
	if string(a) != string(b) {
		t.Errorf("packed %s\njson %s", a, b)
	}
	if r := batchResults(EvaluateBatch("t", "\x00a\x00b\x00")); len(r) != 1 || r[0].OK {
		t.Errorf("malformed: %+v", r)
	}
}

// batchResults: a batch's results (a test never sends unknown item ids unless it says so).
func batchResults(rs []evalResult, err error) []evalResult {
	if err != nil {
		panic(err)
	}
	return rs
}

// packIDs: items by id as src/cel/ops.ts sends them; define says which are sent with their fields.
func packIDs(reset bool, items []batchItem, ids []int, define []bool) string {
	s := "\x01"
	if reset {
		s = "\x02"
	}
	for i, it := range items {
		if define[i] {
			s += strconv.Itoa(ids[i]) + "\x01" + it.Expression + "\x00" + it.Context + "\x00" + string(it.Options) + "\x00" + it.Group + "\x00"
		} else {
			s += strconv.Itoa(ids[i]) + "\x00"
		}
	}
	return s
}

// Items registered by id answer as the same items sent as text; an id the engine does not know
// is errUnknownItems; EvaluateBatchOnce answers as SetInputs + EvaluateBatch.
func TestBatchItemsByID(t *testing.T) {
	items := leanItems()
	items = append(items, batchItem{Expression: "object.nope", Context: "vap-validation", Group: "lean"}, batchItem{Expression: "1 +", Context: "vap-validation"})
	inputs := leanInputs("deny-3-x", "team-1")
	if m := SetInputs("ids", inputs); m != "" {
		t.Fatal(m)
	}
	want, _ := json.Marshal(batchResults(EvaluateBatch("ids", packItems(items))))
	ids := make([]int, len(items))
	all := make([]bool, len(items))
	some := make([]bool, len(items))
	none := make([]bool, len(items))
	for i := range ids {
		ids[i] = i + 1
		all[i] = true
		some[i] = i%2 == 0
	}
	if _, err := EvaluateBatch("ids", packIDs(true, items, ids, some)); err != errUnknownItems {
		t.Fatalf("ids never given: %v", err)
	}
	for _, define := range [][]bool{all, none, none} {
		got, _ := json.Marshal(batchResults(EvaluateBatch("ids", packIDs(false, items, ids, define))))
		if string(got) != string(want) {
			t.Fatalf("by id: %s\nwant %s", got, want)
		}
		once, _ := json.Marshal(batchResults(EvaluateBatchOnce(inputs, packIDs(false, items, ids, none))))
		if string(once) != string(want) {
			t.Fatalf("once: %s\nwant %s", once, want)
		}
	}
	if _, err := EvaluateBatch("ids", packIDs(true, items, ids, none)); err != errUnknownItems {
		t.Fatalf("after a reset: %v", err)
	}
	if r := batchResults(EvaluateBatchOnce("{", packItems(items))); len(r) != 1 || r[0].Kind != kindInputs {
		t.Fatalf("bad inputs: %+v", r)
	}
}

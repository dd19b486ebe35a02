package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
)

// ---------------------------------------------------------------------------
// evaluateBatch(): many expressions against one stored input in one call.
//
// Items of one `group` are evaluated as the apiserver evaluates one policy for one
// request: they share the cost budget (the per-policy budget: match conditions their
// own, the rest one budget passed on in order, as validator.go passes what validations
// left to message expressions and audit annotations) and one CompositionContext (each
// variable is computed once and charged once). Consecutive items of a group that bind
// the same variables are evaluated by one ConditionEvaluator.ForInput, so the activation
// (request, object, namespace conversion) is built once for them. When a group's budget
// runs out, the apiserver stops evaluating that policy: that item and the rest of the
// group get its error. Items without a group are independent (one budget each).

type batchItem struct {
	Expression string          `json:"expression"`
	Context    string          `json:"context"`
	Options    json.RawMessage `json:"options"`
	Group      string          `json:"group"`
}

// EvaluateBatch evaluates items against stored inputs. items is a JSON array of batchItem,
// or (what src/cel/ops.ts sends: encoding/json is slow in WebAssembly, a quarter of a
// batch's time) "\x00" followed by expression, context, options JSON and group of each
// item, every field ended by "\x00" (used when no field contains a NUL character), or items
// by id (parseBatch).
// The error is errUnknownItems or nil (a batch it cannot read is one failure of kind engine).
func EvaluateBatch(inputsID, items string) ([]evalResult, error) {
	parsed, err := parseBatch(items)
	if err != nil {
		return batchFailure(err)
	}
	return evaluateItems(inputCache[inputsID], inputsID, parsed), nil
}

func batchFailure(err error) ([]evalResult, error) {
	if err == errUnknownItems {
		return nil, err
	}
	return []evalResult{{Stage: "runtime", Kind: kindEngine, Message: fmt.Sprintf("invalid batch: %v", err)}}, nil
}

// EvaluateBatchOnce: SetInputs, EvaluateBatch and DropInputs in one (the impact replay's lean
// verdicts: inputs used for one batch). Inputs that cannot be used are every item's failure.
func EvaluateBatchOnce(inputsJSON, items string) ([]evalResult, error) {
	parsed, err := parseBatch(items)
	if err != nil {
		return batchFailure(err)
	}
	in, err := parseInputs(inputsJSON)
	if err != nil {
		return []evalResult{{Stage: "runtime", Kind: kindInputs, Message: err.Error()}}, nil
	}
	return evaluateItems(in, "", parsed), nil
}

// batchEntry is an item with its options and compiled program, worked out once: per call for
// items sent as text, once for items registered by id.
type batchEntry struct {
	batchItem
	resolved bool
	opts     compileOptions
	c        *compiled
	failure  *evalResult // a compile failure
}

func (e *batchEntry) resolve() {
	if e.resolved {
		return
	}
	e.resolved = true
	o, err := parseOptionsCached(string(e.Options))
	if err != nil {
		e.failure = &evalResult{Stage: "compile", Kind: kindCompile, Message: err.Error()}
		return
	}
	e.opts = o
	c, err := cachedCompile(e.Expression, e.Context, o, runStage)
	if err != nil {
		e.failure = &evalResult{Stage: "compile", Kind: kindCompile, Message: err.Error()}
		return
	}
	if c.result.Error != nil {
		e.failure = &evalResult{Stage: "compile", Kind: kindCompile, Message: c.result.Error.Detail, Issues: issuesOf(c.result.Error)}
		return
	}
	e.c = c
}

// Items registered by id (index): the host numbers the distinct items it sends from 1 and
// sends an item's fields only the first time (src/cel/ops.ts packBatch).
var registeredItems []*batchEntry

// errUnknownItems: a batch named an item id this engine was never given (the host thinks it
// was: it sends the batch again with every item's fields).
var errUnknownItems = errors.New("unknown item id")

// parseBatch reads a batch: JSON, "\x00" and the fields of each item, or "\x01" (or "\x02":
// forget the registered items first) and per item its id ended by "\x00" (registered before)
// or by "\x01" and then its four fields, each ended by "\x00" (registered now).
func parseBatch(s string) ([]*batchEntry, error) {
	if strings.HasPrefix(s, "\x01") || strings.HasPrefix(s, "\x02") {
		if s[0] == 2 {
			registeredItems = registeredItems[:0]
		}
		return parseBatchIDs(s[1:])
	}
	var items []batchItem
	if !strings.HasPrefix(s, "\x00") {
		if err := json.Unmarshal([]byte(s), &items); err != nil {
			return nil, err
		}
	} else {
		fields := strings.Split(s[1:], "\x00")
		if len(fields)%4 != 1 || fields[len(fields)-1] != "" {
			return nil, fmt.Errorf("%d fields, not 4 per item", len(fields)-1)
		}
		items = make([]batchItem, 0, len(fields)/4)
		for i := 0; i+4 <= len(fields); i += 4 {
			items = append(items, batchItem{Expression: fields[i], Context: fields[i+1], Options: json.RawMessage(fields[i+2]), Group: fields[i+3]})
		}
	}
	return entriesOf(items), nil
}

func entriesOf(items []batchItem) []*batchEntry {
	entries := make([]*batchEntry, len(items))
	for i := range items {
		entries[i] = &batchEntry{batchItem: items[i]}
	}
	return entries
}

func parseBatchIDs(s string) ([]*batchEntry, error) {
	var entries []*batchEntry
	for len(s) > 0 {
		end := strings.IndexAny(s, "\x00\x01")
		if end < 0 {
			return nil, errors.New("an item id without its end")
		}
		id, err := strconv.Atoi(s[:end])
		if err != nil || id < 1 {
			return nil, fmt.Errorf("item id %q", s[:end])
		}
		defines := s[end] == 1
		s = s[end+1:]
		if !defines {
			if id >= len(registeredItems) || registeredItems[id] == nil {
				return nil, errUnknownItems
			}
			entries = append(entries, registeredItems[id])
			continue
		}
		var f [4]string
		for k := range f {
			n := strings.IndexByte(s, 0)
			if n < 0 {
				return nil, fmt.Errorf("item %d: %d fields, not 4", id, k)
			}
			f[k], s = s[:n], s[n+1:]
		}
		e := &batchEntry{batchItem: batchItem{Expression: f[0], Context: f[1], Options: json.RawMessage(f[2]), Group: f[3]}}
		for len(registeredItems) <= id {
			registeredItems = append(registeredItems, nil)
		}
		registeredItems[id] = e
		entries = append(entries, e)
	}
	return entries, nil
}

// costSink is where the cost of the expression being evaluated is added up.
type costSink struct{ cur *int64 }

// recordingProgram records the actual cost of each evaluation of a compiled program into
// its item, and points the sink at the item so that the variables it computes lazily
// (charged by the activation right after the evaluation) are added to it too.
type recordingProgram struct {
	celgo.Program
	sink *costSink
	item *int64
}

func (p recordingProgram) ContextEval(ctx context.Context, vars any) (ref.Val, *celgo.EvalDetails, error) {
	p.sink.cur = p.item
	v, det, err := p.Program.ContextEval(ctx, vars)
	if det != nil && det.ActualCost() != nil {
		*p.item += int64(*det.ActualCost())
	}
	return v, det, err
}

// groupState is the budget and composition context of one group (and budget kind).
type groupState struct {
	remaining int64
	failed    *evalResult
	contexts  map[*policyCompiler]context.Context
}

type pending struct {
	index   int
	ctxName string
	c       *compiled
	cost    int64
	expr    string
	trace   *[]traceNode // option trace: where the trace goes (trace.go)
}

// evaluateItems evaluates items against inputs (nil: inputsID is not known).
func evaluateItems(in *inputs, inputsID string, items []*batchEntry) []evalResult {
	out := make([]evalResult, len(items))
	if in == nil {
		for i := range out {
			out[i] = evalResult{Stage: "runtime", Kind: kindInputs, Message: fmt.Sprintf("unknown inputs id %q", inputsID)}
		}
		return out
	}
	ready := make([]*pending, len(items))
	for i, it := range items {
		it.resolve()
		if it.failure != nil {
			out[i] = *it.failure
			continue
		}
		ready[i] = &pending{index: i, ctxName: it.Context, c: it.c, expr: it.Expression}
		if it.opts.Trace {
			ready[i].trace = new([]traceNode)
		}
	}
	groups := map[string]*groupState{}
	sink := &costSink{}
	for i := 0; i < len(items); {
		p := ready[i]
		if p == nil {
			i++
			continue
		}
		key := budgetKey(items[i].Group, i, p.c)
		st := groups[key]
		if st == nil {
			st = &groupState{remaining: budgetFor(p.c), contexts: map[*policyCompiler]context.Context{}}
			groups[key] = st
		}
		// The chunk: this item and the following ones of the same group that bind alike.
		chunk := []*pending{p}
		j := i + 1
		if !mutating(p.c, p.ctxName) {
			for ; j < len(items) && ready[j] != nil && items[j].Group != "" &&
				budgetKey(items[j].Group, j, ready[j].c) == key && sameBindings(p, ready[j]); j++ {
				chunk = append(chunk, ready[j])
			}
		}
		i = j
		if st.failed != nil {
			for _, q := range chunk {
				out[q.index] = *st.failed
			}
			continue
		}
		ctx := st.contexts[p.c.policy]
		if ctx == nil {
			ctx = context.Background()
			if p.c.policy != nil {
				ctx = compositionOverride{CompositionContext: p.c.policy.cc.CreateContext(ctx), values: in.variables, sink: sink}
			}
			st.contexts[p.c.policy] = ctx
		}
		sink.cur = nil
		results, remaining, err := runChunk(ctx, chunk, in, st.remaining, sink)
		sink.cur = nil
		if err != nil {
			failed := runtimeFailure(err, nil)
			st.failed = &failed
			for _, q := range chunk {
				out[q.index] = failed
			}
			continue
		}
		if len(chunk) == 1 {
			chunk[0].cost = st.remaining - remaining
		}
		st.remaining = remaining
		for k, q := range chunk {
			out[q.index] = resultOf(q.c, q.ctxName, results[k], q.cost)
			if q.trace != nil && *q.trace != nil {
				out[q.index].Trace = *q.trace
			}
		}
	}
	return out
}

// runChunk evaluates items that share an activation with one ForInput.
func runChunk(ctx context.Context, chunk []*pending, in *inputs, budget int64, sink *costSink) ([]plugincel.EvaluationResult, int64, error) {
	p := chunk[0]
	bindings := bindingsFor(p.c, in)
	ns := namespaceFor(namespaceModeOf(p.c, p.ctxName), in)
	if mutating(p.c, p.ctxName) {
		ev := plugincel.NewMutatingEvaluator(traced(p, p.c.result))
		r, remaining, err := ev.ForInput(ctx, in.attrs, in.request, bindings, ns, budget)
		return []plugincel.EvaluationResult{r}, remaining, err
	}
	if len(chunk) == 1 {
		return plugincel.NewCondition([]plugincel.CompilationResult{traced(p, p.c.result)}).ForInput(ctx, in.attrs, in.request, bindings, ns, budget)
	}
	results := make([]plugincel.CompilationResult, len(chunk))
	for k, q := range chunk {
		r := q.c.result
		r.Program = recordingProgram{Program: r.Program, sink: sink, item: &q.cost}
		results[k] = traced(q, r)
	}
	return plugincel.NewCondition(results).ForInput(ctx, in.attrs, in.request, bindings, ns, budget)
}

// traced: the compilation result whose program also records a trace, when the item asks for one.
func traced(q *pending, r plugincel.CompilationResult) plugincel.CompilationResult {
	if q.trace != nil && r.Program != nil {
		r.Program = tracingProgram{Program: r.Program, expr: q.expr, t: q.c.tracerFor(q.expr, q.ctxName), trace: q.trace}
	}
	return r
}

// budgetKey names the budget an item is charged to: its group's match-condition budget or
// its group's policy budget; an item without a group has its own.
func budgetKey(group string, index int, c *compiled) string {
	if group == "" {
		return "\x00" + strconv.Itoa(index)
	}
	if c.spec.matcher {
		return "m\x00" + group
	}
	return "p\x00" + group
}

// sameBindings: two items can share one activation (one ForInput).
func sameBindings(a, b *pending) bool {
	return !mutating(b.c, b.ctxName) && a.c.policy == b.c.policy &&
		(a.c.spec.params && a.c.opts.HasParams) == (b.c.spec.params && b.c.opts.HasParams) &&
		a.c.spec.bindAuthorizer == b.c.spec.bindAuthorizer &&
		namespaceModeOf(a.c, a.ctxName) == namespaceModeOf(b.c, b.ctxName)
}

// Options strings are parsed once (encoding/json is slow in WebAssembly).
var optionsCache = map[string]compileOptions{}

func parseOptionsCached(s string) (compileOptions, error) {
	if o, ok := optionsCache[s]; ok {
		return o, nil
	}
	o, err := parseOptions(s)
	if err != nil {
		return o, err
	}
	if len(optionsCache) > 256 {
		clear(optionsCache)
	}
	optionsCache[s] = o
	return o, nil
}

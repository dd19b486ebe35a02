package main

import (
	"context"
	"sort"
	"strings"
	"unicode"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// ---------------------------------------------------------------------------
// Evaluation traces (option `trace`): the value of every sub-expression.
//
// The admission evaluation itself is not touched: its program, cost tracking, per-call
// limit and budget stay exactly as the apiserver runs them (cel-go plans state tracking and
// cost tracking as separate observers, and a planned program cannot have one added). After
// it, a second program of the same checked AST, planned with cel.OptTrackState, is run on the
// same activation; its EvalState is the trace. Lazily computed variables are cached by the
// composition context, so the second run computes (and charges) nothing new; it follows the
// same path, since CEL is side-effect free. When the first run ran out of cost, there is no
// second run (it would spend the same again) and no trace.

// traceNode is one node of the checked AST, at its SourceInfo.GetOffsetRange: Start/End are
// UTF-16 code-unit offsets into the expression (what the editor and JavaScript strings count).
// cel-go's range starts at a code-point offset and ends that many UTF-8 bytes of the node's
// token text later (parser/helper.go: Start + len(GetText())); both are converted here, once.
// For a call the range is its operator or function name; From/To span the whole
// sub-expression (the node and everything under it), for showing a value after it.
type traceNode struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	Value any    `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
	Ran   bool   `json:"ran"`
	// Seen: for a node that may evaluate more than once (see watchedNodes), how many of its
	// evaluations in this run were true and false; Value holds only the last one.
	Seen *seenCount `json:"seen,omitempty"`
}

// seenCount: evaluations of one watched node that gave true and false.
type seenCount struct {
	True  int `json:"true"`
	False int `json:"false"`
}

// tracer is the traced program of one compiled expression (cached with it).
type tracer struct {
	ast  *ast.AST
	prog celgo.Program
	err  error
	// watch: the slot in seen of each watched node (watchedNodes); seen: the counts of the
	// current traced run (made afresh for each; the engine evaluates one thing at a time).
	watch map[int64]int
	seen  []seenCount
}

func (c *compiled) tracerFor(expr, ctxName string) *tracer {
	if c.tracer != nil {
		return c.tracer
	}
	t := &tracer{}
	c.tracer = t
	o := c.opts
	o.Stateless = false // evaluation always composes (compileOptions.Stateless)
	env, _, err := envFor(ctxName, o)
	if err != nil {
		t.err = err
		return t
	}
	checked, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		t.err = iss.Err()
		return t
	}
	t.ast = checked.NativeRep()
	t.watch = map[int64]int{}
	watchedNodes(t.ast.Expr(), false, func(id int64) {
		if _, ok := t.watch[id]; !ok {
			t.watch[id] = len(t.watch)
		}
	})
	opts := []celgo.ProgramOption{celgo.EvalOptions(celgo.OptTrackState)}
	if len(t.watch) > 0 {
		opts = append(opts, celgo.CustomDecoratorV2(t.decorate))
	}
	t.prog, t.err = env.Program(checked, opts...)
	return t
}

// watchedNodes calls add with the id of every node whose last value does not tell which sides it
// took: the predicate of each comprehension (a macro's: `all` steps `@result && p`, `exists`
// `@result || p`, `exists_one`, `filter` and `map(x, p, f)` `p ? … : @result`; parser/macro.go),
// and, anywhere inside a comprehension's loop step (evaluated once per element), each operand of
// `&&`/`||` and each `?:` condition. Elsewhere a node runs at most once per evaluation and its
// value in the evaluation state is all there is to know.
func watchedNodes(e ast.Expr, inLoop bool, add func(int64)) {
	switch e.Kind() {
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.Result()} {
			watchedNodes(x, inLoop, add)
		}
		step := c.LoopStep()
		if p := predicateOf(c); p != nil {
			// the step is the macro's own (`@result && p`): only what is under it is the user's
			add(p.ID())
			for _, a := range step.AsCall().Args() {
				watchedNodes(a, true, add)
			}
			return
		}
		watchedNodes(step, true, add)
		return
	case ast.CallKind:
		if inLoop {
			args := e.AsCall().Args()
			switch e.AsCall().FunctionName() {
			case operators.LogicalAnd, operators.LogicalOr:
				for _, a := range args {
					add(a.ID())
				}
			case operators.Conditional:
				add(args[0].ID())
			}
		}
	}
	for _, c := range children(e) {
		watchedNodes(c, inLoop, add)
	}
}

// predicateOf: the predicate of a macro's comprehension, from the shape of its loop step, or nil.
func predicateOf(c ast.ComprehensionExpr) ast.Expr {
	step := c.LoopStep()
	if step.Kind() != ast.CallKind {
		return nil
	}
	call := step.AsCall()
	args := call.Args()
	accu := func(x ast.Expr) bool { return x.Kind() == ast.IdentKind && x.AsIdent() == c.AccuVar() }
	switch call.FunctionName() {
	case operators.LogicalAnd, operators.LogicalOr: // all, exists
		if len(args) == 2 && accu(args[0]) {
			return args[1]
		}
	case operators.Conditional: // exists_one, filter, map(x, p, f)
		if len(args) == 3 && accu(args[2]) {
			return args[0]
		}
	}
	return nil
}

// decorate wraps each watched node's Interpretable to count its outcomes. It runs before the
// state observer's decorator (cel-go plans custom decorators first), which then watches the
// wrapper under the same id. Watched nodes are operands of `&&`/`||` and `?:` conditions, whose
// parents use them as plain Interpretables, so hiding an attribute's interface changes nothing.
func (t *tracer) decorate(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
	if slot, ok := t.watch[i.ID()]; ok {
		return &seenWatch{InterpretableV2: i, t: t, slot: slot}, nil
	}
	return i, nil
}

// seenWatch counts the true and false outcomes of one watched node in the current traced run.
type seenWatch struct {
	interpreter.InterpretableV2
	t    *tracer
	slot int
}

func (w *seenWatch) Exec(f *interpreter.ExecutionFrame) ref.Val {
	v := w.InterpretableV2.Exec(f)
	if b, ok := v.(types.Bool); ok && w.t.seen != nil {
		if b {
			w.t.seen[w.slot].True++
		} else {
			w.t.seen[w.slot].False++
		}
	}
	return v
}

func (w *seenWatch) Eval(a interpreter.Activation) ref.Val { return evalWithFrame(a, w.Exec) }

// tracingProgram runs the admission program unchanged, then the traced one on the same activation.
type tracingProgram struct {
	celgo.Program
	expr  string
	t     *tracer
	trace *[]traceNode
}

func (p tracingProgram) ContextEval(ctx context.Context, vars any) (ref.Val, *celgo.EvalDetails, error) {
	v, det, err := p.Program.ContextEval(ctx, vars)
	if p.t.err == nil && !costExceeded(err) {
		seen := make([]seenCount, len(p.t.watch))
		p.t.seen = seen
		_, tdet, _ := p.t.prog.ContextEval(ctx, vars)
		p.t.seen = nil
		if tdet != nil && tdet.State() != nil {
			*p.trace = traceOf(p.expr, p.t.ast, tdet.State(), func(id int64) *seenCount {
				if slot, ok := p.t.watch[id]; ok {
					return &seen[slot]
				}
				return nil
			})
		}
	}
	return v, det, err
}

func costExceeded(err error) bool {
	return err != nil && strings.Contains(err.Error(), costLimitExceeded)
}

// traceOf lists every node of the AST that has a source range, in pre-order, with what the
// evaluation state recorded for it and, for watched nodes that ran, what seen counted (nil: none).
func traceOf(expr string, a *ast.AST, state interpreter.EvalState, seen func(int64) *seenCount) []traceNode {
	pos := sourcePositions(expr)
	src := []rune(expr)
	info := a.SourceInfo()
	out := []traceNode{}
	var visit func(e ast.Expr) (int, int)
	// visit appends e's node (when it has a range) and those under it; it answers the span
	// in code points (converted to UTF-16 at the end).
	visit = func(e ast.Expr) (int, int) {
		from, to := -1, -1
		idx := -1
		if r, ok := info.GetOffsetRange(e.ID()); ok {
			n := traceNode{Start: int(r.Start), End: pos.endCP(int(r.Start), int(r.Stop-r.Start))}
			from, to = n.Start, n.End
			if v, ok := state.Value(e.ID()); ok && v != nil {
				n.Ran = true
				if types.IsError(v) {
					n.Error = v.(*types.Err).Error()
				} else if types.IsUnknown(v) {
					n.Error = "unknown"
				} else {
					n.Value = valToJSON(v)
				}
			}
			if seen != nil {
				if c := seen(e.ID()); c != nil && (n.Ran || c.True+c.False > 0) {
					n.Seen = c
				}
			}
			idx = len(out)
			out = append(out, n)
		}
		for _, c := range children(e) {
			f, t := visit(c)
			if f >= 0 && (from < 0 || f < from) {
				from = f
			}
			if t > to {
				to = t
			}
		}
		if idx >= 0 {
			to = closeOf(e, src, out[idx].Start, out[idx].End, to)
			from = openOf(e, src, from)
			out[idx].From, out[idx].To = from, to
		}
		return from, to
	}
	visit(a.Expr())
	for i := range out {
		n := &out[i]
		n.Start, n.End, n.From, n.To = pos.utf16(n.Start), pos.utf16(n.End), pos.utf16(n.From), pos.utf16(n.To)
	}
	return out
}

// openOf extends a global call's start over its function name: cel-go's range of `int(x)`
// starts at "(", and so does that of `has(x.f)` (a test-only selection).
func openOf(e ast.Expr, src []rune, from int) int {
	global := e.Kind() == ast.CallKind && !e.AsCall().IsMemberFunction()
	has := e.Kind() == ast.SelectKind && e.AsSelect().IsTestOnly()
	if (!global && !has) || from <= 0 || from >= len(src) || src[from] != '(' {
		return from
	}
	i := from
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	j := i
	for j > 0 && (src[j-1] == '_' || src[j-1] == '.' || unicode.IsLetter(src[j-1]) || unicode.IsDigit(src[j-1])) {
		j--
	}
	if j == i {
		return from
	}
	return j
}

// closeOf extends a sub-expression's end (code points) over what closes it in the source but
// has no node: a selected field's name, a call's ")", an index's "]", a list's "]", a map's "}".
func closeOf(e ast.Expr, src []rune, start, end, to int) int {
	skip := func(i int) int {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		return i
	}
	closing := func(i int, r rune) int {
		i = skip(i)
		if i < len(src) && src[i] == ',' { // a trailing comma
			i = skip(i + 1)
		}
		if i < len(src) && src[i] == r {
			return i + 1
		}
		return to
	}
	switch e.Kind() {
	case ast.SelectKind:
		if e.AsSelect().IsTestOnly() {
			// has(x.f): the node's range is its "(", the operand x ends before ".f)"
			i := skip(to)
			if i >= len(src) || src[i] != '.' {
				return to
			}
			for i = skip(i + 1); i < len(src) && (src[i] == '_' || unicode.IsLetter(src[i]) || unicode.IsDigit(src[i])); i++ {
			}
			return closing(i, ')')
		}
		i := skip(end)
		if i < len(src) && src[i] == '?' { // optional field selection .?name
			i = skip(i + 1)
		}
		if i < len(src) && src[i] == '`' {
			for i++; i < len(src) && src[i] != '`'; i++ {
			}
			return min(i+1, len(src))
		}
		for i < len(src) && (src[i] == '_' || unicode.IsLetter(src[i]) || unicode.IsDigit(src[i])) {
			i++
		}
		return max(i, to)
	case ast.CallKind:
		fn := e.AsCall().FunctionName()
		switch {
		case fn == "_[_]" || fn == "_[?_]":
			return closing(to, ']')
		case !strings.HasPrefix(fn, "_") && !strings.HasPrefix(fn, "!") && !strings.HasPrefix(fn, "-"):
			return closing(pastParens(src, start, max(to, end), skip), ')')
		}
	case ast.ComprehensionKind:
		return closing(pastParens(src, start, max(to, end), skip), ')')
	case ast.ListKind:
		if start < len(src) && src[start] == '[' {
			return closing(max(to, end), ']')
		}
	case ast.MapKind, ast.StructKind:
		return closing(max(to, end), '}')
	}
	return to
}

// pastParens moves i over the ")" of parentheses opened after start (the call's own "(" left
// open) that have no node of their own: `f((x))`, `l.all(x, (x > 1))`.
func pastParens(src []rune, start, i int, skip func(int) int) int {
	open := 0
	var quote rune
	for k := max(start, 0); k < i && k < len(src); k++ {
		c := src[k]
		switch {
		case quote != 0:
			if c == '\\' {
				k++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(':
			open++
		case c == ')' && open > 0:
			open--
		}
	}
	for ; open > 1; open-- {
		j := skip(i)
		if j >= len(src) || src[j] != ')' {
			break
		}
		i = j + 1
	}
	return i
}

// children: the sub-expressions of e, in source order where it has one.
func children(e ast.Expr) []ast.Expr {
	switch e.Kind() {
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			return append([]ast.Expr{c.Target()}, c.Args()...)
		}
		return c.Args()
	case ast.SelectKind:
		return []ast.Expr{e.AsSelect().Operand()}
	case ast.ListKind:
		return e.AsList().Elements()
	case ast.MapKind:
		var out []ast.Expr
		for _, en := range e.AsMap().Entries() {
			m := en.AsMapEntry()
			out = append(out, m.Key(), m.Value())
		}
		return out
	case ast.StructKind:
		var out []ast.Expr
		for _, f := range e.AsStruct().Fields() {
			out = append(out, f.AsStructField().Value())
		}
		return out
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		return []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()}
	}
	return nil
}

// positions converts cel-go's source offsets of one expression to UTF-16 offsets.
type positions struct {
	bytes []int // code point i starts at byte bytes[i]; one more at the end
	units []int // and at UTF-16 unit units[i]
}

func sourcePositions(s string) positions {
	p := positions{bytes: make([]int, 0, len(s)+1), units: make([]int, 0, len(s)+1)}
	u := 0
	for b, r := range s {
		p.bytes = append(p.bytes, b)
		p.units = append(p.units, u)
		if r >= 0x10000 {
			u += 2
		} else {
			u++
		}
	}
	p.bytes = append(p.bytes, len(s))
	p.units = append(p.units, u)
	return p
}

// utf16 of a code-point offset.
func (p positions) utf16(cp int) int { return p.units[min(max(cp, 0), len(p.units)-1)] }

// endCP: the code point at or after n bytes from code point cp.
func (p positions) endCP(cp, n int) int {
	cp = min(max(cp, 0), len(p.bytes)-1)
	return min(sort.SearchInts(p.bytes, p.bytes[cp]+n), len(p.bytes)-1)
}

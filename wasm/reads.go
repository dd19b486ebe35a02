package main

import (
	"github.com/google/cel-go/common/ast"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
)

// ---------------------------------------------------------------------------
// reads(): the parts of the objects an expression can read.
//
// A caller that evaluates many expressions against large objects (the impact replay) sends
// only what they read: for each of object, oldObject, namespaceObject and params, the field
// paths the expression selects from it. A path is a chain of field selections from the
// variable (`object.metadata.name` → ["metadata", "name"]), ended where anything else is done
// with the value (indexed, iterated, passed to a function, compared): the whole value there
// is read. A variable used on its own is read whole. The policy's variables
// (options.variables) are read by the expressions that use them: their reads are added (all
// of them: a superset is always safe). The expression is parsed, not checked: a parse error
// reads everything.
//
// Why the answer is exact for evaluation: CEL reaches a variable's contents only by selecting
// from it, so every value an evaluation touches lies under one of these paths; a projection
// that keeps each path's value whole (and, on the way down, any value that is not a map, so
// that a selection from it fails as it would) gives the same values, the same errors and the
// same cost (src/cel/reads.test.ts holds projected and whole inputs equal on evaluation).

// readRoots: the variables whose reads are reported. The request is small, but its uid, name
// and namespace differ from one request to the next: cut to what is read, equal inputs recur
// and the impact replay reuses their answers. The authorizer's checks are made as the
// request's user on its resource: an expression that uses it reads the request whole.
var readRoots = []string{plugincel.ObjectVarName, plugincel.OldObjectVarName, plugincel.NamespaceVarName, plugincel.ParamsVarName, plugincel.RequestVarName}

// readsResult: per variable, null when read whole, else its paths (none: not read at all).
type readsResult map[string][][]string

// Reads answers the paths expr (and the options' variables) reads of each root variable.
func Reads(expr, ctxName, optsJSON string) readsResult {
	out := readsResult{}
	for _, r := range readRoots {
		out[r] = [][]string{}
	}
	o, err := parseOptions(optsJSON)
	if err != nil {
		return wholeReads()
	}
	env, _, err := envFor(ctxName, o)
	if err != nil {
		return wholeReads()
	}
	exprs := []string{expr}
	for _, v := range o.Variables {
		exprs = append(exprs, v.Expression)
	}
	for _, e := range exprs {
		parsed, iss := env.Parse(e)
		if iss != nil && iss.Err() != nil {
			return wholeReads()
		}
		collectReads(parsed.NativeRep().Expr(), out)
	}
	return out
}

func wholeReads() readsResult {
	out := readsResult{}
	for _, r := range readRoots {
		out[r] = nil
	}
	return out
}

// collectReads adds e's reads to out (a root already read whole stays whole).
func collectReads(e ast.Expr, out readsResult) {
	if root, path, ok := selectChain(e); ok {
		if paths, seen := out[root]; seen && paths != nil {
			if len(path) == 0 {
				out[root] = nil
			} else {
				out[root] = append(paths, path)
			}
		}
		return
	}
	if e.Kind() == ast.IdentKind && e.AsIdent() == plugincel.AuthorizerVarName {
		out[plugincel.RequestVarName] = nil
	}
	for _, c := range children(e) {
		collectReads(c, out)
	}
}

// selectChain: whether e is a root variable followed by field selections (has() included),
// and the fields selected. A comprehension's own variables never reach here as roots unless
// they shadow one, which only adds reads.
func selectChain(e ast.Expr) (string, []string, bool) {
	var fields []string
	for e.Kind() == ast.SelectKind {
		s := e.AsSelect()
		fields = append(fields, s.FieldName())
		e = s.Operand()
	}
	if e.Kind() != ast.IdentKind {
		return "", nil, false
	}
	name := e.AsIdent()
	for _, r := range readRoots {
		if r == name {
			for i, j := 0, len(fields)-1; i < j; i, j = i+1, j-1 {
				fields[i], fields[j] = fields[j], fields[i]
			}
			return name, fields, true
		}
	}
	return "", nil, false
}

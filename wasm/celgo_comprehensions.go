package main

import (
	"reflect"
	"strconv"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/decls"
	"github.com/google/cel-go/common/types"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// untypedIterVar2 is cel-go v0.22's checking of a two-variable comprehension whose range is
// neither a list nor a map (dyn: object.spec.containers.exists(i, v, v == 1)): checker.go
// checkComprehension declares the second variable with no type (nil), where v0.23 declares it
// dyn. A nil type matches no overload and no field selection, so the 1.32 apiserver refuses
// "found no matching overload for '_==_' applied to '(, int)'" what this binary's checker
// accepts. cel-go cannot be told to declare it so; this validator checks the expression again
// with the references to each such variable renamed to an identifier declared with no type,
// and reports what that check finds. A validator runs only on an expression that type-checked:
// where another error already refuses it, withUntypedIterVar2Errors adds these (v0.22 lists both).
type untypedIterVar2 struct{}

const untypedIterVar2Name = "workbench.celgo_v022.untyped_iter_var2"

func (untypedIterVar2) Name() string { return untypedIterVar2Name }

func (untypedIterVar2) Validate(env *celgo.Env, _ celgo.ValidatorConfig, checked *ast.AST, iss *celgo.Issues) {
	rechecked, errs := untypedRecheck(env, ast.NewExprFactory().CopyExpr(checked.Expr()), checked.SourceInfo(), checked.GetType)
	if errs == nil {
		return
	}
	for _, e := range errs.Errors() {
		iss.ReportErrorAtID(e.ExprID, "%s", e.Message)
	}
	if errs.Err() != nil {
		return
	}
	// Checked without an error, a reference to the variable still has no type, which the
	// apiserver's cel.AstToCheckedExpr cannot convert (plugincel compile.go: "unexpected
	// compilation error: missing type conversion to proto: "); untypedInternalError words it so.
	if _, err := celgo.AstToCheckedExpr(rechecked); err != nil {
		iss.ReportErrorAtID(checked.Expr().ID(), "%s", err.Error())
	}
}

// untypedRecheck checks root (a copy of the expression, renamed in place) again with the second
// variable of each two-variable comprehension whose range is neither a list nor a map
// (rangeType: the checked types; type parameters are dyn by then) declared with no type. nil
// issues: there is no such comprehension.
func untypedRecheck(env *celgo.Env, root ast.Expr, info *ast.SourceInfo, rangeType func(int64) *types.Type) (*celgo.Ast, *celgo.Issues) {
	fac := ast.NewExprFactory()
	var untyped []*decls.VariableDecl
	ast.PreOrderVisit(root, ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() != ast.ComprehensionKind || !e.AsComprehension().HasIterVar2() {
			return
		}
		comp := e.AsComprehension()
		switch rangeType(comp.IterRange().ID()).Kind() {
		case types.ListKind, types.MapKind:
			return
		}
		fresh := "@untyped" + strconv.FormatInt(e.ID(), 10) + ":" + comp.IterVar2()
		renameFree(fac, comp.LoopCondition(), comp.IterVar2(), fresh)
		renameFree(fac, comp.LoopStep(), comp.IterVar2(), fresh)
		untyped = append(untyped, decls.NewVariable(fresh, nil))
	}))
	if len(untyped) == 0 {
		return nil, nil
	}
	fail := func(err error) (*celgo.Ast, *celgo.Issues) {
		errs := common.NewErrors(nil)
		errs.ReportErrorAtID(root.ID(), common.NoLocation, "%s", err.Error())
		return nil, celgo.NewIssues(errs)
	}
	again, err := env.Extend(withoutDeclarations(nil, []string{untypedIterVar2Name}), celgo.VariableDecls(untyped...))
	if err != nil {
		return fail(err)
	}
	pe, err := ast.ExprToProto(root)
	if err != nil {
		return fail(err)
	}
	pi, err := ast.SourceInfoToProto(info)
	if err != nil {
		return fail(err)
	}
	rechecked, iss := again.Check(celgo.ParsedExprToAst(&exprpb.ParsedExpr{Expr: pe, SourceInfo: pi}))
	if iss == nil {
		iss = celgo.NewIssues(common.NewErrors(nil))
	}
	return rechecked, iss
}

// untypedIterVar2Errors is what cel-go v0.22 reports for an expression that this binary's checker
// already refuses (where untypedIterVar2, a validator, does not run): its errors and those of
// each untyped second variable, or nil when it has no such comprehension. The ranges' types come
// from cel-go's checker, which types every node even where it reports errors (cel.Env.Check keeps
// only the errors): its env is the Env's unexported chk.
func untypedIterVar2Errors(env *celgo.Env, expr string) *celgo.Issues {
	parsed, iss := env.Parse(expr)
	if iss.Err() != nil || !hasIterVar2(parsed.NativeRep().Expr()) {
		return nil
	}
	if again, iss := env.Parse(expr); iss.Err() == nil {
		env.Check(again) // builds the env's checker env (the check rewrites the AST it is given)
	}
	// a cel-go without it answers as this binary does (TestUntypedIterVar2At132 fails)
	chk := unexportedFieldPtr[*checker.Env](reflect.ValueOf(env).Elem(), "chk")
	if chk == nil || *chk == nil {
		return nil
	}
	fac := ast.NewExprFactory()
	native := parsed.NativeRep()
	checked, _ := checker.Check(ast.NewAST(fac.CopyExpr(native.Expr()), native.SourceInfo()), parsed.Source(), *chk)
	_, errs := untypedRecheck(env, fac.CopyExpr(native.Expr()), native.SourceInfo(), checked.GetType)
	if errs == nil || errs.Err() == nil {
		return nil
	}
	// on the expression's own source, which the messages quote
	out := celgo.NewIssuesWithSourceInfo(common.NewErrors(parsed.Source()), native.SourceInfo())
	for _, e := range errs.Errors() {
		out.ReportErrorAtID(e.ExprID, "%s", e.Message)
	}
	return out
}

// hasIterVar2: the expression has a two-variable comprehension.
func hasIterVar2(root ast.Expr) bool {
	found := false
	ast.PreOrderVisit(root, ast.NewExprVisitor(func(e ast.Expr) {
		found = found || (e.Kind() == ast.ComprehensionKind && e.AsComprehension().HasIterVar2())
	}))
	return found
}

// untypedInternalError is a compile result refused by untypedIterVar2 for an expression that
// checked as v0.22 checks it, as k8s.io/apiserver words that refusal: an internal error without
// issues.
func untypedInternalError(r *plugincel.CompilationResult) {
	if r.Error == nil {
		return
	}
	ce, ok := r.Error.Cause.(*apiservercel.CompilationError)
	if !ok || ce.Issues == nil || len(ce.Issues.Errors()) != 1 || !strings.HasPrefix(ce.Issues.Errors()[0].Message, missingProtoType) {
		return
	}
	r.Error = &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: "unexpected compilation error: " + ce.Issues.Errors()[0].Message}
}

// missingProtoType: cel-go common/types TypeToExprType's error for a type it cannot convert.
const missingProtoType = "missing type conversion to proto: "

// renameFree renames the identifier `from` to `to` in e where it is not bound by a nested
// comprehension (the checker's scopes: a comprehension's iteration variables and accumulator in
// its loop, its accumulator in its result; its range and initial value outside both).
func renameFree(fac ast.ExprFactory, e ast.Expr, from, to string) {
	switch e.Kind() {
	case ast.IdentKind:
		if e.AsIdent() == from {
			e.SetKindCase(fac.NewIdent(e.ID(), to))
		}
	case ast.SelectKind:
		renameFree(fac, e.AsSelect().Operand(), from, to)
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			renameFree(fac, c.Target(), from, to)
		}
		for _, a := range c.Args() {
			renameFree(fac, a, from, to)
		}
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			renameFree(fac, el, from, to)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			renameFree(fac, en.AsMapEntry().Key(), from, to)
			renameFree(fac, en.AsMapEntry().Value(), from, to)
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			renameFree(fac, f.AsStructField().Value(), from, to)
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		renameFree(fac, c.IterRange(), from, to)
		renameFree(fac, c.AccuInit(), from, to)
		if c.IterVar() != from && c.IterVar2() != from && c.AccuVar() != from {
			renameFree(fac, c.LoopCondition(), from, to)
			renameFree(fac, c.LoopStep(), from, to)
		}
		if c.AccuVar() != from {
			renameFree(fac, c.Result(), from, to)
		}
	}
}

// withUntypedIterVar2Errors gives a compile error at a release whose checker leaves the second
// variable untyped (celGoRelease.untypedIterVar2) that release's errors: with those of each untyped
// variable (untypedIterVar2Errors), in the environment of the stage (envFor's mirror of it).
func withUntypedIterVar2Errors(r *plugincel.CompilationResult, expr, ctxName string, o compileOptions, stage envStage) {
	if r.Error == nil {
		return
	}
	// x.all(i, v, p) has two commas at least: most refused expressions need no parse here
	if _, ok := r.Error.Cause.(*apiservercel.CompilationError); !ok || strings.Count(expr, ",") < 2 {
		return
	}
	o.Stored = stage == runStage
	env, _, err := envFor(ctxName, o)
	if err != nil {
		return
	}
	if iss := untypedIterVar2Errors(env, expr); iss != nil {
		e := *r.Error
		e.Detail = "compilation failed: " + iss.String() // plugincel compile.go
		e.Cause = apiservercel.NewCompilationError(iss)
		r.Error = &e
	}
}

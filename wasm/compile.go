package main

import (
	"fmt"
	"strconv"

	celgo "github.com/google/cel-go/cel"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

type compiled struct {
	spec   contextSpec
	result plugincel.CompilationResult
	policy *policyCompiler // nil for webhooks
	opts   compileOptions
	tracer *tracer // trace.go, built on the first traced evaluation
	minor  uint    // the target release
}

// Programs for evaluation are cached (the same expression is evaluated against many inputs).
var (
	programCache    = map[string]*compiled{}
	programCacheMax = 512
)

func cachedCompile(expr, ctxName string, o compileOptions, stage envStage) (*compiled, error) {
	// Concatenation, not fmt: this runs for every evaluation, and fmt is slow in WebAssembly.
	key := ctxName + "\x00" + strconv.FormatBool(o.HasParams) + "\x00" + strconv.Itoa(int(stage)) + "\x00" + strconv.FormatBool(o.Stateless) + "\x00" +
		o.KubernetesVersion + "\x00" + policyKey(o.HasParams, visibleVariables(ctxName, o)) + "\x00" + expr
	if c, ok := programCache[key]; ok {
		return c, nil
	}
	c, err := compileIn(expr, ctxName, o, stage)
	if err != nil {
		return nil, err
	}
	if len(programCache) >= programCacheMax {
		for k := range programCache { // evict an arbitrary half
			delete(programCache, k)
			if len(programCache) < programCacheMax/2 {
				break
			}
		}
	}
	programCache[key] = c
	return c, nil
}

// compileIn compiles an expression in the environment of its target release at a stage.
func compileIn(expr, ctxName string, o compileOptions, stage envStage) (*compiled, error) {
	spec, ok := contexts[ctxName]
	if !ok {
		return nil, fmt.Errorf("unknown context %q", ctxName)
	}
	minor, err := targetMinor(o.KubernetesVersion)
	if err != nil {
		return nil, err
	}
	es := envSetFor(minor, stage)
	c := &compiled{spec: spec, opts: o, minor: minor}
	accessor := spec.accessor(expr)
	if r := releaseSyntaxError(expr, minor, accessor); r != nil {
		c.result = *r
		return c, nil
	}
	if composes(spec, o, stage) {
		pc, err := getPolicyCompiler(es, o.HasParams, visibleVariables(ctxName, o))
		if err != nil {
			return nil, err
		}
		c.policy = pc
		c.result = pc.cc.CompileCELExpression(accessor, optionalDecls(spec, o), es.envType)
	} else {
		c.result = statelessCompiler(es).CompileCELExpression(accessor, optionalDecls(spec, o), es.envType)
	}
	if celGoReleases[minor].untypedIterVar2 {
		withUntypedIterVar2Errors(&c.result, expr, ctxName, o, stage)
	}
	untypedInternalError(&c.result)
	withReleaseMessages(&c.result, minor, func() (*celgo.Env, *celgo.Ast) {
		env, err := es.set.Env(es.envType)
		if err != nil {
			return nil, nil
		}
		a, _ := env.Parse(expr)
		return env, a
	})
	return c, nil
}

// ---------------------------------------------------------------------------
// compile()

type issue struct {
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

type costRange struct {
	Min uint64 `json:"min"`
	Max uint64 `json:"max"`
}

type compileResult struct {
	OK        bool       `json:"ok"`
	Type      string     `json:"type,omitempty"`
	Kind      string     `json:"kind,omitempty"` // outcomes.go: compile when not ok
	Message   string     `json:"message,omitempty"`
	ErrorType string     `json:"errorType,omitempty"`
	Issues    []issue    `json:"issues"`
	Cost      *costRange `json:"cost,omitempty"`
}

func issuesOf(err *apiservercel.Error) []issue {
	out := []issue{}
	if err == nil {
		return out
	}
	if ce, ok := err.Cause.(*apiservercel.CompilationError); ok && ce.Issues != nil {
		for _, e := range ce.Issues.Errors() {
			out = append(out, issue{Message: e.Message, Line: e.Location.Line(), Column: e.Location.Column() + 1})
		}
		return out
	}
	// Result-type errors and program instantiation errors have no position: the whole expression.
	out = append(out, issue{Message: err.Detail, Line: 1, Column: 1})
	return out
}

func errorTypeName(t apiservercel.ErrorType) string {
	switch t {
	case apiservercel.ErrorTypeInvalid:
		return "Invalid"
	case apiservercel.ErrorTypeRequired:
		return "Required"
	case apiservercel.ErrorTypeInternal:
		return "Internal"
	}
	return string(t)
}

// Compile compiles an expression the way the API server validates it when the object is
// written (environment.NewExpressions of the target release), or with Stored as it compiles
// an expression it already stores (environment.StoredExpressions).
func Compile(expr, ctxName, optsJSON string) compileResult {
	o, err := parseOptions(optsJSON)
	if err != nil {
		return compileResult{Kind: kindCompile, Message: err.Error(), ErrorType: "Internal", Issues: []issue{}}
	}
	c, err := compileIn(expr, ctxName, o, o.compileStage())
	if err != nil {
		return compileResult{Kind: kindCompile, Message: err.Error(), ErrorType: "Internal", Issues: []issue{}}
	}
	if c.result.Error != nil {
		return compileResult{
			Kind:      kindCompile,
			Message:   c.result.Error.Detail,
			ErrorType: errorTypeName(c.result.Error.Type),
			Issues:    issuesOf(c.result.Error),
		}
	}
	res := compileResult{OK: true, Issues: []issue{}}
	if c.result.OutputType != nil {
		res.Type = c.result.OutputType.String()
	}
	if env, _, err := envFor(ctxName, o); err == nil {
		if ast, iss := env.Compile(expr); iss == nil || iss.Err() == nil {
			if est, err := env.EstimateCost(ast, staticCostEstimator(c.minor)); err == nil {
				res.Cost = &costRange{Min: est.Min, Max: est.Max}
			}
		}
	}
	return res
}

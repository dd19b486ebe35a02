// Package main is the CEL engine of Admission Workbench: cel-go and the
// k8s.io/apiserver CEL environment and libraries (pinned in go.mod to the
// Kubernetes 1.36 release), compiled to WebAssembly.
//
// Everything that decides a result goes through the apiserver's own code:
//   - the base environment is environment.MustBaseEnvSet(DefaultCompatibilityVersion()),
//     exactly as the validating/mutating policy plugins and the webhook dispatcher build it;
//   - compilation is plugincel.Compiler.CompileCELExpression (webhooks) or a
//     plugincel.CompositedCompiler (policies, which declares `variables`), called with
//     the same OptionalVariableDeclarations as the plugins and with expression accessors
//     whose result types are those of the apiserver's (matchconditions.MatchCondition
//     itself; copies of validating.* and patch.* in accessors.go, checked by a test);
//   - evaluation is ConditionEvaluator.ForInput / MutatingEvaluator.ForInput, i.e. the
//     apiserver builds the activation (request via the unstructured converter,
//     namespaceObject, lazy variables, authorizer values) and charges the cost budget.
//
// The only code here that mirrors rather than calls apiserver code is envFor (used for
// the static cost estimate, the type under the cursor and the declarations listing):
// it re-assembles the same EnvOptions as plugincel's createEnvForOpts, which is
// unexported.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/lazy"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/apiserver/pkg/cel/mutation/dynamic"
)

// ---------------------------------------------------------------------------
// Contexts

type contextSpec struct {
	// policy: compiled with a CompositedCompiler (declares `variables`); false for webhooks.
	policy bool
	// authorizer: HasAuthorizer at compile time.
	authorizer bool
	// bindAuthorizer: whether the apiserver binds the authorizer when evaluating.
	bindAuthorizer bool
	// patchTypes: HasPatchTypes (MAP mutations).
	patchTypes bool
	// matcher: evaluated by matchconditions.Matcher (namespaceObject is not bound, smaller budget).
	matcher bool
	// params: params can be declared (policy with paramKind).
	params   bool
	accessor func(expr string) plugincel.ExpressionAccessor
}

var contexts = map[string]contextSpec{
	// webhook/accessors.go GetCompiledMatcher: HasParams false, HasAuthorizer true; no composition.
	"webhook-matchCondition": {policy: false, authorizer: true, bindAuthorizer: true, matcher: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &matchconditions.MatchCondition{Expression: e} }},
	// validating/plugin.go compilePolicy: optionalVars = {HasParams, HasAuthorizer: true}
	"vap-matchCondition": {policy: true, authorizer: true, bindAuthorizer: true, matcher: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &matchconditions.MatchCondition{Expression: e} }},
	"vap-validation": {policy: true, authorizer: true, bindAuthorizer: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &validationCondition{Expression: e} }},
	// expressionOptionalVars = {HasParams, HasAuthorizer: false}; bound without authorizer.
	"vap-messageExpression": {policy: true, authorizer: false, bindAuthorizer: false, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor {
			return &messageExpressionCondition{MessageExpression: e}
		}},
	// compiled with the authorizer declared, evaluated with OptionalVariableBindings{VersionedParams} only.
	"vap-auditAnnotation": {policy: true, authorizer: true, bindAuthorizer: false, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor {
			return &auditAnnotationCondition{ValueExpression: e}
		}},
	"vap-variable": {policy: true, authorizer: true, bindAuthorizer: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor {
			return &variableExpression{Name: "__workbench__", Expression: e}
		}},
	// mutating/compilation.go compilePolicy: opts = {HasParams, HasAuthorizer: true}
	"map-matchCondition": {policy: true, authorizer: true, bindAuthorizer: true, matcher: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &matchconditions.MatchCondition{Expression: e} }},
	// patchOptions = opts + HasPatchTypes
	"map-applyConfiguration": {policy: true, authorizer: true, bindAuthorizer: true, patchTypes: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor {
			return &applyConfigurationCondition{Expression: e}
		}},
	"map-jsonPatch": {policy: true, authorizer: true, bindAuthorizer: true, patchTypes: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &jsonPatchCondition{Expression: e} }},
}

// ---------------------------------------------------------------------------
// Options

type variableDef struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

type compileOptions struct {
	HasParams bool          `json:"hasParams"`
	Variables []variableDef `json:"variables"`
	// VariableName: in vap-variable, the variable being compiled; only the variables
	// before it are declared (CompileAndStoreVariables compiles them in order).
	VariableName string `json:"variableName"`
}

func parseOptions(s string) (compileOptions, error) {
	var o compileOptions
	if strings.TrimSpace(s) == "" {
		return o, nil
	}
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		return o, fmt.Errorf("invalid options: %w", err)
	}
	return o, nil
}

// visibleVariables returns the variables declared for an expression of the given context.
func visibleVariables(ctxName string, o compileOptions) []variableDef {
	if ctxName == "vap-variable" && o.VariableName != "" {
		for i, v := range o.Variables {
			if v.Name == o.VariableName {
				return o.Variables[:i]
			}
		}
	}
	return o.Variables
}

// ---------------------------------------------------------------------------
// Compilers (cached)

var (
	baseOnce    sync.Once
	baseEnvSet  *environment.EnvSet
	compatVer   *version.Version
	webhookOnce sync.Once
	webhookComp plugincel.Compiler
)

func initBase() {
	baseOnce.Do(func() {
		compatVer = environment.DefaultCompatibilityVersion()
		baseEnvSet = environment.MustBaseEnvSet(compatVer)
	})
}

// webhookCompiler is built on first use (NewCompiler builds all eight variable
// combinations eagerly, which takes a while in WASM).
func webhookCompiler() plugincel.Compiler {
	initBase()
	webhookOnce.Do(func() {
		// webhook/generic/webhook.go: cel.NewConditionCompiler(environment.MustBaseEnvSet(DefaultCompatibilityVersion()))
		webhookComp = plugincel.NewCompiler(environment.MustBaseEnvSet(compatVer))
	})
	return webhookComp
}

// Warm builds what the first policy compile needs, so that loading includes it.
func Warm() {
	initBase()
	_, _ = getPolicyCompiler(false, nil)
	_, _, _ = envFor("vap-validation", compileOptions{})
}

// policyCompiler is one CompositedCompiler with a policy's variables compiled and stored.
type policyCompiler struct {
	cc        *plugincel.CompositedCompiler
	variables []variableDef
	results   []plugincel.CompilationResult
	lastUsed  int64
}

var (
	policyCache = map[string]*policyCompiler{}
	useCounter  int64
)

const policyCacheSize = 24

// policyKey identifies a policy compiler. Without variables, hasParams does not matter: a
// CompositedCompiler serves every OptionalVariableDeclarations combination.
func policyKey(hasParams bool, vars []variableDef) string {
	if len(vars) == 0 {
		return "-"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v|", hasParams)
	for _, v := range vars {
		b.WriteString(strconv.Quote(v.Name))
		b.WriteByte('=')
		b.WriteString(strconv.Quote(v.Expression))
		b.WriteByte(';')
	}
	return b.String()
}

// getPolicyCompiler returns the CompositedCompiler of a policy with these variables. One
// compiler serves authoring (NewExpressions) and evaluation (StoredExpressions): its env sets
// hold both environments; the variables themselves are compiled with NewExpressions. In 1.36
// both environments declare the same libraries (every option is introduced by 1.34, the
// compatibility version is 1.35, and the one feature-gated library, AuthzSelectors, is GA).
func getPolicyCompiler(hasParams bool, vars []variableDef) (*policyCompiler, error) {
	initBase()
	key := policyKey(hasParams, vars)
	useCounter++
	if pc, ok := policyCache[key]; ok {
		pc.lastUsed = useCounter
		return pc, nil
	}
	cc, err := plugincel.NewCompositedCompiler(baseEnvSet)
	if err != nil {
		return nil, err
	}
	pc := &policyCompiler{cc: cc, variables: vars, lastUsed: useCounter}
	opts := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	for _, v := range vars {
		r := cc.CompileAndStoreVariable(&variableExpression{Name: v.Name, Expression: v.Expression}, opts, environment.NewExpressions)
		pc.results = append(pc.results, r)
	}
	if len(policyCache) >= policyCacheSize {
		var oldestKey string
		oldest := int64(math.MaxInt64)
		for k, p := range policyCache {
			if p.lastUsed < oldest {
				oldest, oldestKey = p.lastUsed, k
			}
		}
		delete(policyCache, oldestKey)
	}
	policyCache[key] = pc
	return pc, nil
}

func optionalDecls(spec contextSpec, o compileOptions) plugincel.OptionalVariableDeclarations {
	return plugincel.OptionalVariableDeclarations{
		HasParams:     spec.params && o.HasParams,
		HasAuthorizer: spec.authorizer,
		HasPatchTypes: spec.patchTypes,
	}
}

type compiled struct {
	spec   contextSpec
	result plugincel.CompilationResult
	policy *policyCompiler // nil for webhooks
	opts   compileOptions
}

// Programs for evaluation are cached (the same expression is evaluated against many inputs).
var (
	programCache    = map[string]*compiled{}
	programCacheMax = 512
)

func cachedCompile(expr, ctxName string, o compileOptions, envType environment.Type) (*compiled, error) {
	key := fmt.Sprintf("%s\x00%v\x00%v\x00%s\x00%s", ctxName, o.HasParams, envType, policyKey(o.HasParams, visibleVariables(ctxName, o)), expr)
	if c, ok := programCache[key]; ok {
		return c, nil
	}
	c, err := compileIn(expr, ctxName, o, envType)
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

func compileIn(expr, ctxName string, o compileOptions, envType environment.Type) (*compiled, error) {
	initBase()
	spec, ok := contexts[ctxName]
	if !ok {
		return nil, fmt.Errorf("unknown context %q", ctxName)
	}
	c := &compiled{spec: spec, opts: o}
	accessor := spec.accessor(expr)
	if spec.policy {
		pc, err := getPolicyCompiler(o.HasParams, visibleVariables(ctxName, o))
		if err != nil {
			return nil, err
		}
		c.policy = pc
		c.result = pc.cc.CompileCELExpression(accessor, optionalDecls(spec, o), envType)
	} else {
		c.result = webhookCompiler().CompileCELExpression(accessor, optionalDecls(spec, o), envType)
	}
	return c, nil
}

// ---------------------------------------------------------------------------
// The mirrored environment (static cost, types under the cursor, declarations)

var envCache = map[string]*celgo.Env{}

func envFor(ctxName string, o compileOptions) (*celgo.Env, *policyCompiler, error) {
	initBase()
	spec, ok := contexts[ctxName]
	if !ok {
		return nil, nil, fmt.Errorf("unknown context %q", ctxName)
	}
	var base *environment.EnvSet
	var pc *policyCompiler
	key := ctxName
	if spec.policy {
		var err error
		vars := visibleVariables(ctxName, o)
		pc, err = getPolicyCompiler(o.HasParams, vars)
		if err != nil {
			return nil, nil, err
		}
		key += fmt.Sprintf("|%v|%s", o.HasParams, policyKey(o.HasParams, vars))
		if env, ok := envCache[key]; ok && envCachePC[key] == pc {
			return env, pc, nil
		}
		base = compositedEnvSet(pc)
	} else {
		if env, ok := envCache[key]; ok {
			return env, nil, nil
		}
		base = baseEnvSet
	}
	decl := optionalDecls(spec, o)
	// Mirror of plugincel.createEnvForOpts (compile.go), which is unexported.
	requestType := plugincel.BuildRequestType()
	namespaceType := plugincel.BuildNamespaceType()
	envOpts := []celgo.EnvOption{
		celgo.Variable(plugincel.ObjectVarName, celgo.DynType),
		celgo.Variable(plugincel.OldObjectVarName, celgo.DynType),
		celgo.Variable(plugincel.NamespaceVarName, namespaceType.CelType()),
		celgo.Variable(plugincel.RequestVarName, requestType.CelType()),
	}
	if decl.HasParams {
		envOpts = append(envOpts, celgo.Variable(plugincel.ParamsVarName, celgo.DynType))
	}
	if decl.HasAuthorizer {
		envOpts = append(envOpts,
			celgo.Variable(plugincel.AuthorizerVarName, library.AuthorizerType),
			celgo.Variable(plugincel.RequestResourceAuthorizerVarName, library.ResourceCheckType))
	}
	extended, err := base.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        envOpts,
		DeclTypes:         []*apiservercel.DeclType{namespaceType, requestType},
	}, environment.StrictCostOpt)
	if err != nil {
		return nil, nil, err
	}
	if decl.HasPatchTypes {
		extended, err = extended.Extend(environment.VersionedOptions{
			IntroducedVersion: version.MajorMinor(1, 0),
			EnvOptions: []celgo.EnvOption{
				common.ResolverEnvOption(&mutation.DynamicTypeResolver{}),
				environment.UnversionedLib(library.JSONPatch),
			},
		})
		if err != nil {
			return nil, nil, err
		}
	}
	env, err := extended.Env(environment.NewExpressions)
	if err != nil {
		return nil, nil, err
	}
	if len(envCache) > 64 {
		envCache = map[string]*celgo.Env{}
		envCachePC = map[string]*policyCompiler{}
	}
	envCache[key] = env
	envCachePC[key] = pc
	return env, pc, nil
}

var envCachePC = map[string]*policyCompiler{}

// compositedEnvSet rebuilds the composited env set of NewCompositedCompiler on top of the
// base env set: `variables` is declared as the object type kubernetes.variables whose fields
// are the policy's compiled variables.
func compositedEnvSet(pc *policyCompiler) *environment.EnvSet {
	fields := map[string]*apiservercel.DeclField{}
	mapType := apiservercel.NewObjectType("kubernetes.variables", fields)
	for i, v := range pc.variables {
		if i < len(pc.results) {
			mapType.Fields[v.Name] = apiservercel.NewDeclField(v.Name, declTypeOf(pc.results[i].OutputType), true, nil, nil)
		}
	}
	es, err := baseEnvSet.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        []celgo.EnvOption{celgo.Variable("variables", mapType.CelType())},
		DeclTypes:         []*apiservercel.DeclType{mapType},
	})
	if err != nil {
		return baseEnvSet
	}
	return es
}

// declTypeOf mirrors composition.go convertCelTypeToDeclType.
func declTypeOf(t *celgo.Type) *apiservercel.DeclType {
	if t == nil {
		return apiservercel.DynType
	}
	switch t {
	case celgo.AnyType:
		return apiservercel.AnyType
	case celgo.BoolType:
		return apiservercel.BoolType
	case celgo.BytesType:
		return apiservercel.BytesType
	case celgo.DoubleType:
		return apiservercel.DoubleType
	case celgo.DurationType:
		return apiservercel.DurationType
	case celgo.IntType:
		return apiservercel.IntType
	case celgo.NullType:
		return apiservercel.NullType
	case celgo.StringType:
		return apiservercel.StringType
	case celgo.TimestampType:
		return apiservercel.TimestampType
	case celgo.UintType:
		return apiservercel.UintType
	}
	params := t.Parameters()
	if t.Kind() == celgo.ListType(celgo.DynType).Kind() && len(params) == 1 {
		return apiservercel.NewListType(declTypeOf(params[0]), -1)
	}
	if t.Kind() == celgo.MapType(celgo.DynType, celgo.DynType).Kind() && len(params) == 2 {
		return apiservercel.NewMapType(declTypeOf(params[0]), declTypeOf(params[1]), -1)
	}
	return apiservercel.DynType
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
// written (environment.NewExpressions).
func Compile(expr, ctxName, optsJSON string) compileResult {
	o, err := parseOptions(optsJSON)
	if err != nil {
		return compileResult{Message: err.Error(), ErrorType: "Internal", Issues: []issue{}}
	}
	c, err := compileIn(expr, ctxName, o, environment.NewExpressions)
	if err != nil {
		return compileResult{Message: err.Error(), ErrorType: "Internal", Issues: []issue{}}
	}
	if c.result.Error != nil {
		return compileResult{
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
			if est, err := env.EstimateCost(ast, &library.CostEstimator{SizeEstimator: &sizeEstimator{}}); err == nil {
				res.Cost = &costRange{Min: est.Min, Max: est.Max}
			}
		}
	}
	return res
}

// ---------------------------------------------------------------------------
// Inputs

type authzRule struct {
	Verb        *string `json:"verb"`
	Group       *string `json:"group"`
	Resource    *string `json:"resource"`
	Subresource *string `json:"subresource"`
	Namespace   *string `json:"namespace"`
	Name        *string `json:"name"`
	Path        *string `json:"path"`
	User        *string `json:"user"`
	Decision    string  `json:"decision"`
	Reason      string  `json:"reason"`
	Error       string  `json:"error"`
}

type rawInputs struct {
	Object          json.RawMessage            `json:"object"`
	OldObject       json.RawMessage            `json:"oldObject"`
	Request         json.RawMessage            `json:"request"`
	Params          json.RawMessage            `json:"params"`
	NamespaceObject json.RawMessage            `json:"namespaceObject"`
	Variables       map[string]json.RawMessage `json:"variables"`
	Authorizer      *struct {
		Rules []authzRule `json:"rules"`
	} `json:"authorizer"`
}

type inputs struct {
	object, oldObject, params runtime.Object
	request                   *admissionv1.AdmissionRequest
	attrs                     *admission.VersionedAttributes
	namespace                 *corev1.Namespace
	variables                 map[string]ref.Val
	authz                     *ruleAuthorizer
}

var inputCache = map[string]*inputs{}

// decodeJSON decodes JSON the way the apiserver's unstructured decoding does: integers
// (no fraction, no exponent, within int64) become int64, other numbers float64.
func decodeJSON(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return convertNumbers(v), nil
}

func convertNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = convertNumbers(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = convertNumbers(e)
		}
		return t
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(t), 64)
		return f
	}
	return v
}

func toObject(raw json.RawMessage) (runtime.Object, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a JSON object, got %T", v)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

func parseInputs(s string) (*inputs, error) {
	var r rawInputs
	if strings.TrimSpace(s) != "" {
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			return nil, fmt.Errorf("invalid inputs: %w", err)
		}
	}
	in := &inputs{}
	var err error
	if in.object, err = toObject(r.Object); err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	if in.oldObject, err = toObject(r.OldObject); err != nil {
		return nil, fmt.Errorf("oldObject: %w", err)
	}
	if in.params, err = toObject(r.Params); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	req := &admissionv1.AdmissionRequest{}
	if len(bytes.TrimSpace(r.Request)) > 0 && string(bytes.TrimSpace(r.Request)) != "null" {
		if err := json.Unmarshal(r.Request, req); err != nil {
			return nil, fmt.Errorf("request: %w", err)
		}
	}
	// As CreateAdmissionRequest: no uid/object/oldObject, requestKind/requestResource always set,
	// dryRun always set.
	req.UID = ""
	req.Object = runtime.RawExtension{}
	req.OldObject = runtime.RawExtension{}
	if req.RequestKind == nil {
		k := req.Kind
		req.RequestKind = &k
	}
	if req.RequestResource == nil {
		rr := req.Resource
		req.RequestResource = &rr
	}
	if req.RequestSubResource == "" {
		req.RequestSubResource = req.SubResource
	}
	if req.DryRun == nil {
		f := false
		req.DryRun = &f
	}
	in.request = req
	if len(bytes.TrimSpace(r.NamespaceObject)) > 0 && string(bytes.TrimSpace(r.NamespaceObject)) != "null" {
		ns := &corev1.Namespace{}
		if err := json.Unmarshal(r.NamespaceObject, ns); err != nil {
			return nil, fmt.Errorf("namespaceObject: %w", err)
		}
		in.namespace = ns
	}
	if len(r.Variables) > 0 {
		in.variables = map[string]ref.Val{}
		for name, raw := range r.Variables {
			v, err := decodeJSON(raw)
			if err != nil {
				return nil, fmt.Errorf("variables.%s: %w", name, err)
			}
			in.variables[name] = nativeToVal(v)
		}
	}
	if r.Authorizer != nil {
		in.authz = &ruleAuthorizer{rules: r.Authorizer.Rules}
	}
	// The admission attributes the activation and the authorizer read.
	extra := map[string][]string{}
	for k, v := range req.UserInfo.Extra {
		extra[k] = []string(v)
	}
	userInfo := &user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: extra}
	gvk := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	gvr := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	var optionsObj runtime.Object
	if len(req.Options.Raw) > 0 {
		if o, err := toObject(req.Options.Raw); err == nil && o != nil {
			optionsObj = o
		}
	}
	attrs := admission.NewAttributesRecord(in.object, in.oldObject, gvk, req.Namespace, req.Name, gvr, req.SubResource,
		admission.Operation(req.Operation), optionsObj, *req.DryRun, userInfo)
	in.attrs = &admission.VersionedAttributes{
		Attributes:         attrs,
		VersionedKind:      gvk,
		VersionedObject:    in.object,
		VersionedOldObject: in.oldObject,
	}
	return in, nil
}

// SetInputs parses and stores test inputs under an id (marshalled once, used by many evaluations).
func SetInputs(id, inputsJSON string) string {
	in, err := parseInputs(inputsJSON)
	if err != nil {
		return err.Error()
	}
	inputCache[id] = in
	return ""
}

func DropInputs(id string) { delete(inputCache, id) }

// ---------------------------------------------------------------------------
// evaluate()

type evalResult struct {
	OK         bool    `json:"ok"`
	Value      any     `json:"value,omitempty"`
	Type       string  `json:"type,omitempty"`
	StaticType string  `json:"staticType,omitempty"`
	Display    string  `json:"display,omitempty"`
	Cost       *int64  `json:"cost,omitempty"`
	Stage      string  `json:"stage,omitempty"`
	Message    string  `json:"message,omitempty"`
	Issues     []issue `json:"issues,omitempty"`
}

// compositionOverride lets test inputs give variable values directly: it wraps the
// apiserver's CompositionContext and replaces the lazy callbacks of the given names.
type compositionOverride struct {
	plugincel.CompositionContext
	values map[string]ref.Val
}

func (c compositionOverride) Variables(activation any) ref.Val {
	v := c.CompositionContext.Variables(activation)
	if lm, ok := v.(*lazy.MapValue); ok {
		for name, val := range c.values {
			val := val
			lm.Append(name, func(*lazy.MapValue) ref.Val { return val })
		}
	}
	return v
}

// Evaluate evaluates an expression against stored inputs (inputsID) the way admission does
// (environment.StoredExpressions, the apiserver's activation and budgets).
//
// There is no Go-side deadline: cel-go reads ctx.Done() once per evaluation and in js/wasm
// no timer can fire while the evaluation runs synchronously. The per-call cost limit and
// the worker's wall-clock deadline (src/cel/browser.ts) bound the time instead.
func Evaluate(expr, ctxName, optsJSON, inputsID string) evalResult {
	o, err := parseOptions(optsJSON)
	if err != nil {
		return evalResult{Stage: "compile", Message: err.Error()}
	}
	in, ok := inputCache[inputsID]
	if !ok {
		return evalResult{Stage: "runtime", Message: fmt.Sprintf("unknown inputs id %q", inputsID)}
	}
	c, err := cachedCompile(expr, ctxName, o, environment.StoredExpressions)
	if err != nil {
		return evalResult{Stage: "compile", Message: err.Error()}
	}
	if c.result.Error != nil {
		return evalResult{Stage: "compile", Message: c.result.Error.Detail, Issues: issuesOf(c.result.Error)}
	}
	ctx := context.Background()
	bindings := plugincel.OptionalVariableBindings{}
	if c.spec.params && o.HasParams {
		bindings.VersionedParams = in.params
	}
	if c.spec.bindAuthorizer {
		if in.authz != nil {
			bindings.Authorizer = in.authz
		} else {
			bindings.Authorizer = &ruleAuthorizer{}
		}
	}
	var ns *corev1.Namespace
	switch {
	case c.spec.matcher:
		// matchconditions.Matcher passes no namespace.
	case ctxName == "vap-auditAnnotation" || c.spec.patchTypes:
		// validator.go (audit annotations) and the MAP dispatcher pass the namespace as is.
		ns = in.namespace
	default:
		// validator.go: validations and message expressions get CreateNamespaceObject(namespace).
		ns = plugincel.CreateNamespaceObject(in.namespace)
	}
	budget := int64(celconfig.RuntimeCELCostBudget)
	if c.spec.matcher {
		budget = celconfig.RuntimeCELCostBudgetMatchConditions
	}
	var evalRes plugincel.EvaluationResult
	var remaining int64
	if c.policy != nil {
		cctx := c.policy.cc.CreateContext(ctx)
		if len(in.variables) > 0 {
			ctx = compositionOverride{CompositionContext: cctx, values: in.variables}
		} else {
			ctx = cctx
		}
	}
	if c.spec.patchTypes || ctxName == "vap-variable" {
		ev := plugincel.NewMutatingEvaluator(c.result)
		evalRes, remaining, err = ev.ForInput(ctx, in.attrs, in.request, bindings, ns, budget)
	} else {
		cond := plugincel.NewCondition([]plugincel.CompilationResult{c.result})
		var results []plugincel.EvaluationResult
		results, remaining, err = cond.ForInput(ctx, in.attrs, in.request, bindings, ns, budget)
		if err == nil && len(results) == 1 {
			evalRes = results[0]
		}
	}
	if err != nil {
		return evalResult{Stage: "runtime", Message: err.Error()}
	}
	cost := budget - remaining
	if evalRes.Error != nil {
		return evalResult{Stage: "runtime", Message: evalRes.Error.Error(), Cost: &cost}
	}
	v := evalRes.EvalResult
	if ctxName == "map-applyConfiguration" {
		// patch/smd.go applyConfigPatcher: the post-evaluation type-name check.
		if objVal, ok := v.(*dynamic.ObjectVal); ok {
			if err := objVal.CheckTypeNamesMatchFieldPathNames(); err != nil {
				return evalResult{Stage: "runtime", Message: fmt.Sprintf("type mismatch: %v", err), Cost: &cost}
			}
		}
	}
	if ctxName == "map-jsonPatch" {
		// patch/json_patch.go evaluatePatchExpression: Object{} values are type-name checked.
		if l, ok := v.(traits.Lister); ok {
			for it := l.Iterator(); it.HasNext() == types.True; {
				if op, ok := it.Next().(*mutation.JSONPatchVal); ok && op.Val != nil {
					if objVal, ok := op.Val.(*dynamic.ObjectVal); ok {
						if err := objVal.CheckTypeNamesMatchFieldPathNames(); err != nil {
							return evalResult{Stage: "runtime", Message: fmt.Sprintf("type mismatch: %v", err), Cost: &cost}
						}
					}
				}
			}
		}
	}
	res := evalResult{OK: true, Value: valToJSON(v), Type: typeName(v), Display: display(v), Cost: &cost}
	if c.result.OutputType != nil {
		res.StaticType = c.result.OutputType.String()
	}
	return res
}

// ---------------------------------------------------------------------------
// info()

type info struct {
	KubernetesVersion    string `json:"kubernetesVersion"`
	CompatibilityVersion string `json:"compatibilityVersion"`
	APIServerModule      string `json:"apiserverModule"`
	CelGoModule          string `json:"celGoModule"`
	PerCallLimit         int64  `json:"perCallLimit"`
	RuntimeCELCostBudget int64  `json:"runtimeCelCostBudget"`
	MatchConditionBudget int64  `json:"runtimeCelCostBudgetMatchConditions"`
	MaxMessageExprBytes  int    `json:"maxEvaluatedMessageExpressionSizeBytes"`
	CheckFrequency       int    `json:"checkFrequency"`
}

func Info() info {
	initBase()
	i := info{
		CompatibilityVersion: compatVer.String(),
		PerCallLimit:         celconfig.PerCallLimit,
		RuntimeCELCostBudget: celconfig.RuntimeCELCostBudget,
		MatchConditionBudget: celconfig.RuntimeCELCostBudgetMatchConditions,
		MaxMessageExprBytes:  celconfig.MaxEvaluatedMessageExpressionSizeBytes,
		CheckFrequency:       celconfig.CheckFrequency,
	}
	i.APIServerModule, i.CelGoModule, i.KubernetesVersion = moduleVersions()
	return i
}

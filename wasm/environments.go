package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/mutation"
)

// ---------------------------------------------------------------------------
// Compilers (cached)

var statelessComps = map[string]plugincel.Compiler{}

// statelessCompiler is the compiler without variable composition: webhooks' matchConditions
// (webhook/generic/webhook.go: cel.NewConditionCompiler(environment.MustBaseEnvSet(…))) and the
// write-time compiler of validation.go's createCompiler(false). Built on first use (NewCompiler
// builds all eight variable combinations eagerly, which takes a while in WASM).
func statelessCompiler(es *envSetRef) plugincel.Compiler {
	c, ok := statelessComps[es.key]
	if !ok {
		c = plugincel.NewCompiler(es.set)
		statelessComps[es.key] = c
	}
	return c
}

// composes says whether an expression is compiled by a policy's CompositedCompiler
// (`variables` declared): policy contexts, except write-time compiles asked to be stateless.
func composes(spec contextSpec, o compileOptions, stage envStage) bool {
	return spec.policy && !(o.Stateless && stage == writeStage)
}

// policyCompiler is one CompositedCompiler with a policy's variables compiled and stored.
type policyCompiler struct {
	base      *envSetRef
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

// getPolicyCompiler returns the CompositedCompiler of a policy with these variables, compiled
// in the env type of the stage (validating/plugin.go compilePolicy compiles a stored policy's
// variables with StoredExpressions; validation of a new one with NewExpressions). In the
// binary's own release the StoredExpressions environment has the libraries introduced in that
// release more than the NewExpressions one (1.37: includes(); 1.38: isMask()).
func getPolicyCompiler(es *envSetRef, hasParams bool, vars []variableDef) (*policyCompiler, error) {
	key := es.key + "|" + string(es.envType) + "|" + policyKey(hasParams, vars)
	useCounter++
	if pc, ok := policyCache[key]; ok {
		pc.lastUsed = useCounter
		return pc, nil
	}
	cc, err := plugincel.NewCompositedCompiler(es.set)
	if err != nil {
		return nil, err
	}
	pc := &policyCompiler{base: es, cc: cc, variables: vars, lastUsed: useCounter}
	opts := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	for _, v := range vars {
		r := cc.CompileAndStoreVariable(&variableExpression{Name: v.Name, Expression: v.Expression}, opts, es.envType)
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

// ---------------------------------------------------------------------------
// The mirrored environment (static cost, types under the cursor, declarations)

var envCache = map[string]*celgo.Env{}

// envFor is the environment an expression is compiled in: the target's NewExpressions, or
// with Stored its StoredExpressions (compileOptions.compileStage).
func envFor(ctxName string, o compileOptions) (*celgo.Env, *policyCompiler, error) {
	spec, ok := contexts[ctxName]
	if !ok {
		return nil, nil, fmt.Errorf("unknown context %q", ctxName)
	}
	minor, err := targetMinor(o.KubernetesVersion)
	if err != nil {
		return nil, nil, err
	}
	stage := o.compileStage()
	es := envSetFor(minor, stage)
	var base *environment.EnvSet
	var pc *policyCompiler
	key := es.key + "|" + string(es.envType) + "|" + ctxName
	if composes(spec, o, stage) {
		vars := visibleVariables(ctxName, o)
		pc, err = getPolicyCompiler(es, o.HasParams, vars)
		if err != nil {
			return nil, nil, err
		}
		key += fmt.Sprintf("|%v|%s", o.HasParams, policyKey(o.HasParams, vars))
		if env, ok := envCache[key]; ok && envCachePC[key] == pc {
			return env, pc, nil
		}
		base = compositedEnvSet(pc)
	} else {
		key += fmt.Sprintf("|stateless|%v", spec.params && o.HasParams)
		if env, ok := envCache[key]; ok {
			return env, nil, nil
		}
		base = es.set
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
	env, err := extended.Env(es.envType)
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
	es, err := pc.base.set.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        []celgo.EnvOption{celgo.Variable("variables", mapType.CelType())},
		DeclTypes:         []*apiservercel.DeclType{mapType},
	})
	if err != nil {
		return pc.base.set
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

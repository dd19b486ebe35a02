package main

// Type checking of a ValidatingAdmissionPolicy as kube-controller-manager's
// validatingadmissionpolicy-status-controller does it (it writes the result into
// status.typeChecking.expressionWarnings): k8s.io/apiserver v0.37.2
// pkg/admission/plugin/policy/validating/typechecking.go, copied here because importing
// that package links the whole admission plugin (client-go's clientset, informers: 596
// more packages) into cel.wasm. The copy keeps the code as it is (same order, same
// messages, same quirks: maxTypesToCheck, wildcards and subresources skipped, the type
// names with time.Now().Nanosecond()) with two changes, both marked: the env set is the
// target release's (a release-N controller compiles at its DefaultCompatibilityVersion,
// N-1: envSetFor(N, writeStage)), and there is no klog. typecheck_test.go runs the
// apiserver's own TypeChecker beside it on the same schemas; tools/typecheck-oracle runs
// it with k8s.io/kubernetes' generated definitions.
//
// The schemas: the asset tools/typecheck-oracle writes (public/cel/schemas-1.3x.json: the
// built-in kinds' definitions, refs as "#/definitions/NAME"), loaded once per release
// (setSchemas), resolved as resolver.DefinitionsSchemaResolver does (PopulateRefs, copied
// below), plus the CustomResourceDefinitions of the request (as the apiserver publishes
// them: apiVersion, kind and metadata added to openAPIV3Schema).

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

// ---------------------------------------------------------------------------
// The engine's side: setSchemas and typeCheck

type schemaAsset struct {
	Release string
	GVKs    map[string]string
	// raw: each definition's JSON, built into a schema on first use (a check reads a few
	// hundred of the asset's thousand; decoding all of them took a second in WebAssembly).
	raw  map[string]json.RawMessage
	mu   sync.Mutex
	done map[string]*schemaNode
}

// definition is the named definition's schema, built once.
func (a *schemaAsset) definition(name string) (*schemaNode, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.done[name]; ok {
		return s, s != nil
	}
	var s *schemaNode
	if raw, ok := a.raw[name]; ok {
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			s = schemaFromJSON(m)
		}
	}
	a.done[name] = s
	return s, s != nil
}

// The asset as JSON reads it: the schemas are built by schemaFromJSON (schema.go), not as
// kube-openapi's spec.Schema, whose JSON library (go-json-experiment) would add 0.64 MB of code.
type schemaAssetJSON struct {
	Release     string                     `json:"release"`
	GVKs        map[string]string          `json:"gvks"`
	Definitions map[string]json.RawMessage `json:"definitions"`
}

var (
	schemaMu     sync.Mutex
	schemaAssets = map[string]*schemaAsset{}
	// declTypeCache: a kind's DeclType, built once per schema (12 ms natively for a Deployment,
	// seconds in WebAssembly on a loaded machine). Upstream builds them once per Check and reuses
	// them for every expression; reusing them across policies only keeps the kind's type name
	// (kind + a nanosecond count) the same.
	declTypeCache = map[string]*apiservercel.DeclType{}
)

const maxDeclTypesKept = 256

// cachedDeclType is declType(gvk) kept under the schema it was built from.
func (c *TypeChecker) cachedDeclType(gvk schema.GroupVersionKind) (*apiservercel.DeclType, error) {
	key := ""
	if r, ok := c.SchemaResolver.(*assetResolver); ok {
		key = r.keyOf(gvk)
	}
	if key != "" {
		schemaMu.Lock()
		t, ok := declTypeCache[key]
		schemaMu.Unlock()
		if ok {
			return t, nil
		}
	}
	t, err := c.declType(gvk)
	if err == nil && key != "" {
		schemaMu.Lock()
		if len(declTypeCache) >= maxDeclTypesKept {
			declTypeCache = map[string]*apiservercel.DeclType{}
		}
		declTypeCache[key] = t
		schemaMu.Unlock()
	}
	return t, err
}

// SetSchemas keeps a schema asset under a key (the release it was generated from).
func SetSchemas(key, assetJSON string) map[string]any {
	var j schemaAssetJSON
	if err := json.Unmarshal([]byte(assetJSON), &j); err != nil {
		return map[string]any{"ok": false, "message": "schemas " + key + ": " + err.Error()}
	}
	a := &schemaAsset{Release: j.Release, GVKs: j.GVKs, raw: j.Definitions, done: map[string]*schemaNode{}}
	schemaMu.Lock()
	schemaAssets[key] = a
	declTypeCache = map[string]*apiservercel.DeclType{}
	schemaMu.Unlock()
	return map[string]any{"ok": true, "kinds": len(a.GVKs), "definitions": len(a.raw)}
}

type typeCheckMapping struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
}

type typeCheckCRD struct {
	Group   string          `json:"group"`
	Version string          `json:"version"`
	Kind    string          `json:"kind"`
	Schema  json.RawMessage `json:"schema"`
}

type typeCheckOptions struct {
	KubernetesVersion string             `json:"kubernetesVersion"`
	Schemas           string             `json:"schemas"`
	Mappings          []typeCheckMapping `json:"mappings"`
	CRDs              []typeCheckCRD     `json:"crds"`
}

type typeCheckResult struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
	// SchemasMissing: the options' schemas are not loaded (setSchemas first; a new engine has none).
	SchemasMissing bool                  `json:"schemasMissing,omitempty"`
	Warnings       []v1ExpressionWarning `json:"warnings"`
}

// TypeCheck runs the controller's Check on a policy (JSON) with the options' schemas and REST mapping.
func TypeCheck(policyJSON, optionsJSON string) typeCheckResult {
	var o typeCheckOptions
	if err := json.Unmarshal([]byte(optionsJSON), &o); err != nil {
		return typeCheckResult{Message: "options: " + err.Error(), Warnings: []v1ExpressionWarning{}}
	}
	minor, err := targetMinor(o.KubernetesVersion)
	if err != nil {
		return typeCheckResult{Message: err.Error(), Warnings: []v1ExpressionWarning{}}
	}
	var policy v1ValidatingAdmissionPolicy
	if err := json.Unmarshal([]byte(policyJSON), &policy); err != nil {
		return typeCheckResult{Message: "policy: " + err.Error(), Warnings: []v1ExpressionWarning{}}
	}
	schemaMu.Lock()
	asset := schemaAssets[o.Schemas]
	schemaMu.Unlock()
	if asset == nil && o.Schemas != "" {
		return typeCheckResult{Message: "schemas " + o.Schemas + " are not loaded", SchemasMissing: true, Warnings: []v1ExpressionWarning{}}
	}
	res := &assetResolver{asset: asset, assetKey: o.Schemas, crds: map[schema.GroupVersionKind]*schemaNode{}, crdJSON: map[schema.GroupVersionKind]string{}}
	for _, c := range o.CRDs {
		var m map[string]any
		if err := json.Unmarshal(c.Schema, &m); err != nil {
			continue // the apiserver would not serve such a CRD's schema either
		}
		gvk := schema.GroupVersionKind{Group: c.Group, Version: c.Version, Kind: c.Kind}
		res.crds[gvk] = publishedCRDSchema(schemaFromJSON(m))
		res.crdJSON[gvk] = string(c.Schema)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, m := range o.Mappings {
		gvk := schema.GroupVersionKind{Group: m.Group, Version: m.Version, Kind: m.Kind}
		gv := gvk.GroupVersion()
		mapper.AddSpecific(gvk, gv.WithResource(m.Resource), gv.WithResource(strings.ToLower(m.Kind)), meta.RESTScopeNamespace)
	}
	c := &TypeChecker{SchemaResolver: res, RestMapper: mapper, envSet: envSetFor(minor, writeStage).set}
	w := c.Check(&policy)
	if w == nil {
		w = []v1ExpressionWarning{}
	}
	return typeCheckResult{OK: true, Warnings: w}
}

// publishedCRDSchema: what the apiserver's /openapi/v3 serves for a custom resource
// (apiextensions-apiserver controller/openapi/builder): apiVersion and kind as strings,
// metadata as ObjectMeta.
func publishedCRDSchema(s *schemaNode) *schemaNode {
	out := *s
	props := make(map[string]*schemaNode, len(s.properties)+3)
	for k, v := range s.properties {
		props[k] = v
	}
	props["apiVersion"] = stringSchema()
	props["kind"] = stringSchema()
	props["metadata"] = &schemaNode{ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
	out.properties = props
	if len(out.typ) == 0 {
		out.typ = []string{"object"}
	}
	return &out
}

var errSchemaNotFound = errors.New("schema not found") // resolver.ErrSchemaNotFound

// assetResolver resolves a GVK as resolver.DefinitionsSchemaResolver does, over the asset's
// definitions; the CRDs' schemas refer to the same definitions (ObjectMeta).
type assetResolver struct {
	asset    *schemaAsset
	assetKey string
	crds     map[schema.GroupVersionKind]*schemaNode
	crdJSON  map[schema.GroupVersionKind]string
}

// keyOf names the schema a kind resolves to ("" when it does not resolve).
func (r *assetResolver) keyOf(gvk schema.GroupVersionKind) string {
	if r.asset != nil {
		if _, ok := r.asset.GVKs[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]; ok {
			return "asset\x00" + r.assetKey + "\x00" + gvk.String()
		}
	}
	if j, ok := r.crdJSON[gvk]; ok {
		return "crd\x00" + r.assetKey + "\x00" + gvk.String() + "\x00" + j
	}
	return ""
}

func (r *assetResolver) schemaOf(ref string) (*schemaNode, bool) {
	if r.asset == nil {
		return nil, false
	}
	s, ok := r.asset.definition(strings.TrimPrefix(ref, "#/definitions/"))
	if !ok {
		return nil, false
	}
	c := *s // populateRefs may not change it, but DefinitionsSchemaResolver hands out copies too
	return &c, true
}

func (r *assetResolver) ResolveSchema(gvk schema.GroupVersionKind) (*schemaNode, error) {
	if r.asset != nil {
		if name, ok := r.asset.GVKs[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]; ok {
			return populateRefsFrom(r.schemaOf, "#/definitions/"+name)
		}
	}
	if s, ok := r.crds[gvk]; ok {
		return populateRefs(r.schemaOf, sets.New[string](), s)
	}
	return nil, fmt.Errorf("cannot resolve %v: %w", gvk, errSchemaNotFound)
}

// populateRefsFrom is resolver.PopulateRefs (k8s.io/apiserver pkg/cel/openapi/resolver/refs.go).
func populateRefsFrom(schemaOf func(ref string) (*schemaNode, bool), rootRef string) (*schemaNode, error) {
	visitedRefs := sets.New[string]()
	rootSchema, ok := schemaOf(rootRef)
	visitedRefs.Insert(rootRef)
	if !ok {
		return nil, fmt.Errorf("internal error: cannot resolve Ref for root schema %q: %w", rootRef, errSchemaNotFound)
	}
	return populateRefs(schemaOf, visitedRefs, rootSchema)
}

// populateRefs: resolver/refs.go's on schemaNode (properties hold pointers: a property is
// changed when its populated schema is another node).
func populateRefs(schemaOf func(ref string) (*schemaNode, bool), visited sets.Set[string], schema *schemaNode) (*schemaNode, error) {
	result := *schema
	changed := false

	ref, isRef := refOf(schema)
	if isRef {
		if visited.Has(ref) {
			// for circular ref, return an empty object as placeholder
			return &schemaNode{typ: []string{"object"}}, nil
		}
		visited.Insert(ref)
		// restore visited state at the end of the recursion.
		defer func() {
			visited.Delete(ref)
		}()
		// replace the whole schema with the referred one.
		resolved, ok := schemaOf(ref)
		if !ok {
			return nil, fmt.Errorf("internal error: cannot resolve Ref %q: %w", ref, errSchemaNotFound)
		}
		result = *resolved
		changed = true
	}
	// schema is an object, populate its properties and additionalProperties
	props := make(map[string]*schemaNode, len(schema.properties))
	propsChanged := false
	for name, prop := range result.properties {
		populated, err := populateRefs(schemaOf, visited, prop)
		if err != nil {
			return nil, err
		}
		if populated != prop {
			propsChanged = true
		}
		props[name] = populated
	}
	if propsChanged {
		changed = true
		result.properties = props
	}
	if result.additionalProperties != nil && result.additionalProperties.schema != nil {
		populated, err := populateRefs(schemaOf, visited, result.additionalProperties.schema)
		if err != nil {
			return nil, err
		}
		if populated != result.additionalProperties.schema {
			changed = true
			newProps := *result.additionalProperties
			newProps.schema = populated
			result.additionalProperties = &newProps
		}
	}
	// schema is a list, populate its items
	if result.items != nil {
		populated, err := populateRefs(schemaOf, visited, result.items)
		if err != nil {
			return nil, err
		}
		if populated != result.items {
			changed = true
			result.items = populated
		}
	}
	if changed {
		return &result, nil
	}
	return schema, nil
}

func refOf(schema *schemaNode) (string, bool) {
	if schema.ref != "" { // upstream: schema.Ref.GetURL() != nil
		return schema.ref, true
	}
	// A Ref may be wrapped in allOf to preserve its description
	// see https://github.com/kubernetes/kubernetes/issues/106387
	// For kube-openapi, allOf is only used for wrapping a Ref.
	for _, allOf := range schema.allOf {
		if ref, isRef := refOf(allOf); isRef {
			return ref, isRef
		}
	}
	return "", false
}

// ---------------------------------------------------------------------------
// The parts of admissionregistration/v1 the checker reads, as JSON reads them. Decoding into
// k8s.io/api's own types made their generated protobuf code reachable: +0.17 MB brotli.

type v1Rule struct {
	APIGroups   []string `json:"apiGroups"`
	APIVersions []string `json:"apiVersions"`
	Resources   []string `json:"resources"`
}

type v1Variable struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

type v1Validation struct {
	Expression        string `json:"expression"`
	MessageExpression string `json:"messageExpression"`
}

type v1ValidatingAdmissionPolicy struct {
	Spec struct {
		ParamKind *struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		} `json:"paramKind"`
		MatchConstraints *struct {
			ResourceRules []struct{ v1Rule } `json:"resourceRules"` // NamedRuleWithOperations: its Rule is inline
		} `json:"matchConstraints"`
		Validations []v1Validation `json:"validations"`
		Variables   []v1Variable   `json:"variables"`
	} `json:"spec"`
}

type v1ExpressionWarning struct {
	FieldRef string `json:"fieldRef"`
	Warning  string `json:"warning"`
}

// ---------------------------------------------------------------------------
// validating/typechecking.go (k8s.io/apiserver v0.37.2), copied

type schemaResolver interface {
	ResolveSchema(gvk schema.GroupVersionKind) (*schemaNode, error)
}

const maxTypesToCheck = 10

type TypeChecker struct {
	SchemaResolver schemaResolver
	RestMapper     meta.RESTMapper
	envSet         *environment.EnvSet // changed: the target release's (upstream: MustBaseEnvSet(DefaultCompatibilityVersion()))
}

type TypeCheckingContext struct {
	gvks          []schema.GroupVersionKind
	declTypes     []*apiservercel.DeclType
	paramGVK      schema.GroupVersionKind
	paramDeclType *apiservercel.DeclType

	variables []v1Variable

	// changed: each kind's compiler, with the policy's variables compiled, built on its first
	// expression and used for the others (upstream builds it again for every expression; the
	// env, the variables and so the results are the same).
	compilers []*plugincel.CompositedCompiler
}

type typeOverwrite struct {
	object *apiservercel.DeclType
	params *apiservercel.DeclType
}

type TypeCheckingResult struct {
	GVK    schema.GroupVersionKind
	Issues error
	Err    error
}

type TypeCheckingResults []*TypeCheckingResult

func (rs TypeCheckingResults) String() string {
	var messages []string
	for _, r := range rs {
		message := r.String()
		if message != "" {
			messages = append(messages, message)
		}
	}
	return strings.Join(messages, "\n")
}

func (r *TypeCheckingResult) String() string {
	if r.Issues == nil && r.Err == nil {
		return ""
	}
	if r.Err != nil {
		return fmt.Sprintf("%v: type checking error: %v\n", r.GVK, r.Err)
	}
	return fmt.Sprintf("%v: %s\n", r.GVK, r.Issues)
}

func (c *TypeChecker) Check(policy *v1ValidatingAdmissionPolicy) []v1ExpressionWarning {
	ctx := c.CreateContext(policy)

	var warnings []v1ExpressionWarning

	fieldRef := field.NewPath("spec", "validations")
	for i, v := range policy.Spec.Validations {
		results := c.CheckExpression(ctx, v.Expression)
		if len(results) != 0 {
			warnings = append(warnings, v1ExpressionWarning{
				FieldRef: fieldRef.Index(i).Child("expression").String(),
				Warning:  results.String(),
			})
		}
		if v.MessageExpression == "" {
			continue
		}
		results = c.CheckExpression(ctx, v.MessageExpression)
		if len(results) != 0 {
			warnings = append(warnings, v1ExpressionWarning{
				FieldRef: fieldRef.Index(i).Child("messageExpression").String(),
				Warning:  results.String(),
			})
		}
	}

	return warnings
}

func (c *TypeChecker) CreateContext(policy *v1ValidatingAdmissionPolicy) *TypeCheckingContext {
	ctx := new(TypeCheckingContext)
	allGvks := c.typesToCheck(policy)
	gvks := make([]schema.GroupVersionKind, 0, len(allGvks))
	declTypes := make([]*apiservercel.DeclType, 0, len(allGvks))
	for _, gvk := range allGvks {
		declType, err := c.cachedDeclType(gvk) // changed: kept across checks
		if err != nil {
			// changed: no klog of internal errors
			continue
		}
		gvks = append(gvks, gvk)
		declTypes = append(declTypes, declType)
	}
	ctx.gvks = gvks
	ctx.declTypes = declTypes

	paramsGVK := c.paramsGVK(policy)
	paramsDeclType, err := c.cachedDeclType(paramsGVK) // changed: kept across checks
	if err != nil {
		paramsDeclType = nil
	}
	ctx.paramGVK = paramsGVK
	ctx.paramDeclType = paramsDeclType
	ctx.variables = policy.Spec.Variables
	return ctx
}

func (c *TypeChecker) compiler(ctx *TypeCheckingContext, typeOverwrite typeOverwrite) (*plugincel.CompositedCompiler, error) {
	envSet, err := buildEnvSet(
		c.envSet, // changed
		/* hasParams */ !ctx.paramGVK.Empty(),
		/* hasAuthorizer */ true,
		typeOverwrite)
	if err != nil {
		return nil, err
	}
	compiler, err := plugincel.NewCompositedCompilerForTypeChecking(envSet)
	if err != nil {
		return nil, err
	}
	compiler.Compiler = &typeCheckingCompiler{typeOverwrite: typeOverwrite, compiler: compiler}
	return compiler, nil
}

func (c *TypeChecker) CheckExpression(ctx *TypeCheckingContext, expression string) TypeCheckingResults {
	var results TypeCheckingResults
	if ctx.compilers == nil {
		ctx.compilers = make([]*plugincel.CompositedCompiler, len(ctx.gvks))
	}
	for i, gvk := range ctx.gvks {
		options := plugincel.OptionalVariableDeclarations{
			HasParams:     !ctx.paramGVK.Empty(),
			HasAuthorizer: true,
		}
		compiler := ctx.compilers[i]
		if compiler == nil {
			declType := ctx.declTypes[i]
			var err error
			compiler, err = c.compiler(ctx, typeOverwrite{
				object: declType,
				params: ctx.paramDeclType,
			})
			if err != nil {
				continue // changed: upstream utilruntime.HandleError(err)
			}
			compiler.CompileAndStoreVariables(convertv1beta1Variables(ctx.variables), options, environment.StoredExpressions)
			ctx.compilers[i] = compiler
		}
		result := compiler.CompileCELExpression(celExpression(expression), options, environment.StoredExpressions)
		if err := result.Error; err != nil {
			typeCheckingResult := &TypeCheckingResult{GVK: gvk}
			if err.Type == apiservercel.ErrorTypeInvalid {
				typeCheckingResult.Issues = err
			} else {
				typeCheckingResult.Err = err
			}
			results = append(results, typeCheckingResult)
		}
	}
	return results
}

// convertv1beta1Variables: validating/plugin.go's.
func convertv1beta1Variables(variables []v1Variable) []plugincel.NamedExpressionAccessor {
	namedExpressions := make([]plugincel.NamedExpressionAccessor, len(variables))
	for i, variable := range variables {
		namedExpressions[i] = &variableExpression{Name: variable.Name, Expression: variable.Expression}
	}
	return namedExpressions
}

type celExpression string

func (c celExpression) GetExpression() string {
	return string(c)
}

func (c celExpression) ReturnTypes() []*cel.Type {
	return []*cel.Type{cel.AnyType}
}
func generateUniqueTypeName(kind string) string {
	return fmt.Sprintf("%s%d", kind, time.Now().Nanosecond())
}

func (c *TypeChecker) declType(gvk schema.GroupVersionKind) (*apiservercel.DeclType, error) {
	if gvk.Empty() {
		return nil, nil
	}
	s, err := c.SchemaResolver.ResolveSchema(gvk)
	if err != nil {
		return nil, err
	}
	declType := common.SchemaDeclType(s, true) // changed: our schema type (schema.go), not openapi.Schema{spec.Schema}
	if declType == nil {
		return nil, nil
	}
	return declType.MaybeAssignTypeName(generateUniqueTypeName(gvk.Kind)), nil
}

func (c *TypeChecker) paramsGVK(policy *v1ValidatingAdmissionPolicy) schema.GroupVersionKind {
	if policy.Spec.ParamKind == nil {
		return schema.GroupVersionKind{}
	}
	gv, err := schema.ParseGroupVersion(policy.Spec.ParamKind.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}
	}
	return gv.WithKind(policy.Spec.ParamKind.Kind)
}

func (c *TypeChecker) typesToCheck(p *v1ValidatingAdmissionPolicy) []schema.GroupVersionKind {
	gvks := sets.New[schema.GroupVersionKind]()
	if p.Spec.MatchConstraints == nil || len(p.Spec.MatchConstraints.ResourceRules) == 0 {
		return nil
	}
	restMapperRefreshAttempted := false
	for _, rule := range p.Spec.MatchConstraints.ResourceRules {
		groups := extractGroups(&rule.v1Rule)
		if len(groups) == 0 {
			continue
		}
		versions := extractVersions(&rule.v1Rule)
		if len(versions) == 0 {
			continue
		}
		resources := extractResources(&rule.v1Rule)
		if len(resources) == 0 {
			continue
		}
		sort.Strings(groups)
		sort.Strings(versions)
		sort.Strings(resources)
		count := 0
		for _, group := range groups {
			for _, version := range versions {
				for _, resource := range resources {
					gvr := schema.GroupVersionResource{
						Group:    group,
						Version:  version,
						Resource: resource,
					}
					resolved, err := c.RestMapper.KindsFor(gvr)
					if err != nil {
						if restMapperRefreshAttempted {
							continue
						}
						c.tryRefreshRESTMapper()
						restMapperRefreshAttempted = true
						resolved, err = c.RestMapper.KindsFor(gvr)
						if err != nil {
							continue
						}
					}
					for _, r := range resolved {
						if !r.Empty() {
							gvks.Insert(r)
							count++
							if count == maxTypesToCheck {
								if gvks.Len() == 0 {
									return nil
								}
								return sortGVKList(gvks.UnsortedList())
							}
						}
					}
				}
			}
		}
	}
	if gvks.Len() == 0 {
		return nil
	}
	return sortGVKList(gvks.UnsortedList())
}

func extractGroups(rule *v1Rule) []string {
	groups := make([]string, 0, len(rule.APIGroups))
	for _, group := range rule.APIGroups {
		if strings.ContainsAny(group, "*") {
			return nil
		}
		groups = append(groups, group)
	}
	return groups
}

func extractVersions(rule *v1Rule) []string {
	versions := make([]string, 0, len(rule.APIVersions))
	for _, version := range rule.APIVersions {
		if strings.ContainsAny(version, "*") {
			return nil
		}
		versions = append(versions, version)
	}
	return versions
}

func extractResources(rule *v1Rule) []string {
	resources := make([]string, 0, len(rule.Resources))
	for _, resource := range rule.Resources {
		if strings.ContainsAny(resource, "*/") {
			continue
		}
		resources = append(resources, resource)
	}
	return resources
}

func sortGVKList(list []schema.GroupVersionKind) []schema.GroupVersionKind {
	sort.Slice(list, func(i, j int) bool {
		if g := strings.Compare(list[i].Group, list[j].Group); g != 0 {
			return g < 0
		}
		if v := strings.Compare(list[i].Version, list[j].Version); v != 0 {
			return v < 0
		}
		return strings.Compare(list[i].Kind, list[j].Kind) < 0
	})
	return list
}

func (c *TypeChecker) tryRefreshRESTMapper() {
	if r, ok := c.RestMapper.(meta.ResettableRESTMapper); ok {
		r.Reset()
	}
}

// changed: the base env set is a parameter (upstream: MustBaseEnvSet(DefaultCompatibilityVersion())).
func buildEnvSet(baseEnv *environment.EnvSet, hasParams bool, hasAuthorizer bool, types typeOverwrite) (*environment.EnvSet, error) {
	requestType := plugincel.BuildRequestType()
	namespaceType := plugincel.BuildNamespaceType()

	var varOpts []cel.EnvOption
	var declTypes []*apiservercel.DeclType

	declTypes = append(declTypes, namespaceType)
	varOpts = append(varOpts, createVariableOpts(namespaceType, plugincel.NamespaceVarName)...)

	declTypes = append(declTypes, requestType)
	varOpts = append(varOpts, createVariableOpts(requestType, plugincel.RequestVarName)...)

	if types.object != nil {
		declTypes = append(declTypes, types.object)
	}
	varOpts = append(varOpts, createVariableOpts(types.object, plugincel.ObjectVarName, plugincel.OldObjectVarName)...)

	if hasParams {
		if types.params != nil {
			declTypes = append(declTypes, types.params)
		}
		varOpts = append(varOpts, createVariableOpts(types.params, plugincel.ParamsVarName)...)
	}

	if hasAuthorizer {
		varOpts = append(varOpts, cel.Variable("authorizer", library.AuthorizerType))
	}

	return baseEnv.Extend(
		environment.VersionedOptions{
			IntroducedVersion: version.MajorMinor(1, 0),
			EnvOptions:        varOpts,
			DeclTypes:         declTypes,
		},
	)
}

func createVariableOpts(declType *apiservercel.DeclType, variables ...string) []cel.EnvOption {
	opts := make([]cel.EnvOption, 0, len(variables))
	t := cel.DynType
	if declType != nil {
		t = declType.CelType()
	}
	for _, v := range variables {
		opts = append(opts, cel.Variable(v, t))
	}
	return opts
}

type typeCheckingCompiler struct {
	compiler      *plugincel.CompositedCompiler
	typeOverwrite typeOverwrite
}

func (c *typeCheckingCompiler) CompileCELExpression(expressionAccessor plugincel.ExpressionAccessor, options plugincel.OptionalVariableDeclarations, mode environment.Type) plugincel.CompilationResult {
	resultError := func(errorString string, errType apiservercel.ErrorType) plugincel.CompilationResult {
		return plugincel.CompilationResult{
			Error: &apiservercel.Error{
				Type:   errType,
				Detail: errorString,
			},
			ExpressionAccessor: expressionAccessor,
		}
	}
	env, err := c.compiler.Env(mode)
	if err != nil {
		return resultError(fmt.Sprintf("fail to build env: %v", err), apiservercel.ErrorTypeInternal)
	}
	ast, issues := env.Compile(expressionAccessor.GetExpression())
	if issues != nil {
		return resultError(issues.String(), apiservercel.ErrorTypeInvalid)
	}
	return plugincel.CompilationResult{
		OutputType: ast.OutputType(),
	}
}

var _ plugincel.Compiler = (*typeCheckingCompiler)(nil)

package main

// Type checking of a ValidatingAdmissionPolicy as kube-controller-manager's
// validatingadmissionpolicy-status-controller does it (it writes the result into
// status.typeChecking.expressionWarnings). The checker itself is k8s.io/apiserver's, copied:
// upstream_typechecking_1.go and _2.go (validating/typechecking.go) and upstream_refs.go
// (resolver/refs.go's PopulateRefs), each change marked "workbench:". Importing the package would
// link the whole admission plugin (client-go's clientset, informers: 596 more packages) into
// cel.wasm. This file is the engine's side: TypeCheck and SetSchemas, the schema resolver, the
// mirrors of the admissionregistration/v1 fields the checker reads, and what the copy calls that
// upstream has elsewhere or does not have (its caches). The copy keeps upstream's quirks
// (maxTypesToCheck, wildcards and subresources skipped, type names with time.Now().Nanosecond());
// the env set is the target release's (a release-N controller compiles at its
// DefaultCompatibilityVersion, N-1: envSetFor(N, writeStage)), and there is no klog.
// typecheck_test.go runs the apiserver's own TypeChecker beside it on the same schemas;
// tools/typecheck-oracle runs it with k8s.io/kubernetes' generated definitions.
//
// The schemas: the asset tools/typecheck-oracle writes (public/cel/schemas-1.3x.json: the
// built-in kinds' definitions, refs as "#/definitions/NAME"), loaded once per release
// (setSchemas), resolved as resolver.DefinitionsSchemaResolver does (with upstream_refs.go's
// PopulateRefs), plus the CustomResourceDefinitions of the request (as the apiserver publishes
// them: apiVersion, kind and metadata added to openAPIV3Schema).

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
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

// ErrSchemaNotFound is resolver.ErrSchemaNotFound (under its name, which upstream_refs.go uses).
var ErrSchemaNotFound = errors.New("schema not found")

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
			return PopulateRefs(r.schemaOf, "#/definitions/"+name)
		}
	}
	if s, ok := r.crds[gvk]; ok {
		return populateRefs(r.schemaOf, sets.New[string](), s)
	}
	return nil, fmt.Errorf("cannot resolve %v: %w", gvk, ErrSchemaNotFound)
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
// What the copy of validating/typechecking.go calls that upstream has elsewhere or not at all

// schemaResolver: resolver.SchemaResolver over schemaNode.
type schemaResolver interface {
	ResolveSchema(gvk schema.GroupVersionKind) (*schemaNode, error)
}

// cachedCompiler is c.compiler(ctx, types) for the context's i-th kind, built on the kind's first
// expression and kept for the others (upstream builds it again for every expression; the env,
// the variables and so the results are the same). built: the compiler is new, and
// CheckExpression compiles the policy's variables into it.
func (c *TypeChecker) cachedCompiler(ctx *TypeCheckingContext, i int, types typeOverwrite) (compiler *plugincel.CompositedCompiler, built bool, err error) {
	if ctx.compilers == nil {
		ctx.compilers = make([]*plugincel.CompositedCompiler, len(ctx.gvks))
	}
	if ctx.compilers[i] != nil {
		return ctx.compilers[i], false, nil
	}
	compiler, err = c.compiler(ctx, types)
	if err != nil {
		return nil, false, err
	}
	ctx.compilers[i] = compiler
	return compiler, true, nil
}

// convertv1beta1Variables: validating/plugin.go's, with the v1 mirror and variableExpression
// (accessors.go) for validating.Variable.
func convertv1beta1Variables(variables []v1Variable) []plugincel.NamedExpressionAccessor {
	namedExpressions := make([]plugincel.NamedExpressionAccessor, len(variables))
	for i, variable := range variables {
		namedExpressions[i] = &variableExpression{Name: variable.Name, Expression: variable.Expression}
	}
	return namedExpressions
}

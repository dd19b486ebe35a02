// The CEL oracle: one release's k8s.io/apiserver and cel-go compile and evaluate expressions
// in the ValidatingAdmissionPolicy validation context, as that release's apiserver does:
// write time (the policy is created: environment.NewExpressions of
// MustBaseEnvSet(DefaultCompatibilityVersion())) and admission (validating/plugin.go
// compilePolicy: a CompositedCompiler, environment.StoredExpressions, ForInput with the
// runtime budget). Which release is the module's (go.mod 1.37; -tags k8s13N -modfile
// go.1.N.mod the others); release_*.go hold the API that changed between them.
//
// stdin: {"inputs": {"object":…, "request":…, "namespaceObject":…}, "expressions": ["…", …],
// "stored": false, "compileOnly": false}; stored: the compile answer is the expression compiled as already stored
// (environment.StoredExpressions, as the apiserver compiles a policy it keeps in etcd, e.g.
// after an upgrade) instead of as written; compileOnly: the write-time compile alone, no
// evaluation (the eval answers are left empty).
// stdout: one answer per expression (see answer).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

type input struct {
	Inputs struct {
		Object          map[string]any                `json:"object"`
		Request         *admissionv1.AdmissionRequest `json:"request"`
		NamespaceObject *corev1.Namespace             `json:"namespaceObject"`
	} `json:"inputs"`
	Expressions []string `json:"expressions"`
	Stored      bool     `json:"stored"`
	CompileOnly bool     `json:"compileOnly"`
}

type compileAnswer struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
	Min     uint64 `json:"min"`
	Max     uint64 `json:"max"`
}

type evalAnswer struct {
	OK      bool   `json:"ok"`
	Value   any    `json:"value,omitempty"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message,omitempty"`
	Cost    int64  `json:"cost"`
}

type answer struct {
	Compile compileAnswer `json:"compile"`
	Eval    evalAnswer    `json:"eval"`
}

type accessor string

func (a accessor) GetExpression() string   { return string(a) }
func (a accessor) ReturnTypes() []*celType { return []*celType{celAnyType} }

// noOpinion answers every check as an authorizer without rules (the engine's default).
type noOpinion struct{}

func (noOpinion) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, "", nil
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "cel-oracle:", err)
		os.Exit(2)
	}
	var obj runtime.Object
	if in.Inputs.Object != nil {
		obj = &unstructured.Unstructured{Object: normalize(in.Inputs.Object).(map[string]any)}
	}
	req := in.Inputs.Request
	if req == nil {
		req = &admissionv1.AdmissionRequest{}
	}
	userInfo := &user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups}
	gvk := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	gvr := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	attrs := admission.NewAttributesRecord(obj, nil, gvk, req.Namespace, req.Name, gvr, req.SubResource, admission.Operation(req.Operation), nil, false, userInfo)
	versioned := versionedAttributes(attrs, gvk, obj)
	request := plugincel.CreateAdmissionRequest(attrs, req.Resource, req.Kind)
	ns := plugincel.CreateNamespaceObject(in.Inputs.NamespaceObject)

	base := baseEnvSet()
	compileMode := environment.NewExpressions
	if in.Stored {
		compileMode = environment.StoredExpressions
	}
	staticEnv := staticCostEnv(base, compileMode)
	out := make([]answer, len(in.Expressions))
	for i, expr := range in.Expressions {
		a := &out[i]
		// Write time: the policy's expressions compiled as new expressions (or as stored ones).
		write := compileCondition(base, expr, compileMode)
		if write.err != nil {
			a.Compile.Message = write.err.Detail
		} else {
			a.Compile.OK = true
			if ast, iss := staticEnv.Compile(expr); iss == nil || iss.Err() == nil {
				if est, err := staticEnv.EstimateCost(ast, &library.CostEstimator{SizeEstimator: noSizes{}}); err == nil {
					a.Compile.Min, a.Compile.Max = est.Min, est.Max
				}
			}
		}
		if in.CompileOnly {
			continue
		}
		// Admission: the stored expression compiled and evaluated as the plugin does.
		run := compileCondition(base, expr, environment.StoredExpressions)
		if run.err != nil {
			a.Eval.Message = run.err.Detail
			continue
		}
		results, remaining, err := run.forInput(context.Background(), versioned, request, plugincel.OptionalVariableBindings{Authorizer: noOpinion{}}, ns, celconfig.RuntimeCELCostBudget)
		a.Eval.Cost = celconfig.RuntimeCELCostBudget - remaining
		switch {
		case err != nil:
			a.Eval.Message = err.Error()
		case results[0].Error != nil:
			a.Eval.Message = results[0].Error.Error()
		default:
			a.Eval.OK = true
			a.Eval.Value = toJSON(results[0].EvalResult)
			a.Eval.Type = results[0].EvalResult.Type().TypeName()
		}
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "cel-oracle:", err)
		os.Exit(1)
	}
}

// staticCostEnv is the compile environment (of mode) with the policy's variables declared, for the
// static cost estimate (plugincel's createEnvForOpts, which is unexported, with the strict cost option).
func staticCostEnv(base *environment.EnvSet, mode environment.Type) *celEnv {
	requestType := plugincel.BuildRequestType()
	namespaceType := plugincel.BuildNamespaceType()
	extended, err := base.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []celEnvOption{
			celVariable(plugincel.ObjectVarName, celDynType),
			celVariable(plugincel.OldObjectVarName, celDynType),
			celVariable(plugincel.NamespaceVarName, namespaceType.CelType()),
			celVariable(plugincel.RequestVarName, requestType.CelType()),
			celVariable(plugincel.AuthorizerVarName, library.AuthorizerType),
			celVariable(plugincel.RequestResourceAuthorizerVarName, library.ResourceCheckType),
		},
		DeclTypes: []*apiservercel.DeclType{namespaceType, requestType},
	}, environment.StrictCostOpt)
	if err != nil {
		panic(err)
	}
	env, err := extended.Env(mode)
	if err != nil {
		panic(err)
	}
	return env
}

// normalize turns JSON numbers decoded as float64 into int64 where they are integers, as the
// apiserver's JSON decoding of an unstructured object does.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalize(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	}
	return v
}

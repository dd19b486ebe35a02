package main

import (
	"strings"
	"testing"

	celgo "github.com/google/cel-go/cel"

	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The local accessor copies must require exactly the apiserver's result types.
func TestAccessorsMatchAPIServer(t *testing.T) {
	pairs := []struct {
		name        string
		ours, their plugincel.ExpressionAccessor
	}{
		{"validation", &validationCondition{}, &validating.ValidationCondition{}},
		{"messageExpression", &messageExpressionCondition{}, &validating.MessageExpressionCondition{}},
		{"auditAnnotation", &auditAnnotationCondition{}, &validating.AuditAnnotationCondition{}},
		{"variable", &variableExpression{}, &validating.Variable{}},
		{"applyConfiguration", &applyConfigurationCondition{}, &patch.ApplyConfigurationCondition{}},
		{"jsonPatch", &jsonPatchCondition{}, &patch.JSONPatchCondition{}},
	}
	for _, p := range pairs {
		a, b := p.ours.ReturnTypes(), p.their.ReturnTypes()
		if len(a) != len(b) {
			t.Fatalf("%s: %v vs %v", p.name, a, b)
		}
		for i := range a {
			if !a[i].IsExactType(b[i]) || a[i].String() != b[i].String() {
				t.Errorf("%s: result type %d: ours %v, apiserver %v", p.name, i, a[i], b[i])
			}
		}
	}
	_ = celgo.BoolType
}

// Compile through the engine and through the apiserver's own accessors: same outcome.
func TestCompileMatchesAPIServerAccessors(t *testing.T) {
	cases := []struct{ ctx, expr string }{
		{"vap-validation", "object.spec.paused"},
		{"vap-validation", "object.spec.paused == true"},
		{"vap-messageExpression", "'x' + object.metadata.name"},
		{"vap-messageExpression", "authorizer.path('/x').check('get').allowed() ? 'a' : 'b'"},
		{"vap-auditAnnotation", "null"},
		{"map-applyConfiguration", "Object{spec: Object.spec{replicas: 3}}"},
		{"map-jsonPatch", "[JSONPatch{op: 'add', path: '/x', value: 1}]"},
		{"map-jsonPatch", "JSONPatch{op: 'add', path: '/x', value: 1}"},
	}
	for _, c := range cases {
		ours := Compile(c.expr, c.ctx, "")
		spec := contexts[c.ctx]
		var acc plugincel.ExpressionAccessor
		switch c.ctx {
		case "vap-validation":
			acc = &validating.ValidationCondition{Expression: c.expr}
		case "vap-messageExpression":
			acc = &validating.MessageExpressionCondition{MessageExpression: c.expr}
		case "vap-auditAnnotation":
			acc = &validating.AuditAnnotationCondition{ValueExpression: c.expr}
		case "map-applyConfiguration":
			acc = &patch.ApplyConfigurationCondition{Expression: c.expr}
		case "map-jsonPatch":
			acc = &patch.JSONPatchCondition{Expression: c.expr}
		}
		pc, err := getPolicyCompiler(envSetFor(binaryMinor, writeStage), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		theirs := pc.cc.CompileCELExpression(acc, optionalDecls(spec, compileOptions{}), environment.NewExpressions)
		theirMsg := ""
		if theirs.Error != nil {
			theirMsg = theirs.Error.Detail
		}
		if ours.OK != (theirs.Error == nil) || ours.Message != theirMsg {
			t.Errorf("%s %q: ours ok=%v %q, apiserver %q", c.ctx, c.expr, ours.OK, ours.Message, theirMsg)
		}
	}
}

// validation.go compiles a ValidatingAdmissionPolicy without spec.variables (and every
// matchCondition) with the stateless compiler: `variables` is undeclared there, while a
// composited compile declares it as an empty object type. Evaluation always composes.
func TestStatelessCompile(t *testing.T) {
	const expr = "variables.x == 1"
	stateless := Compile(expr, "vap-validation", `{"stateless":true}`)
	if stateless.OK || !strings.Contains(stateless.Message, "undeclared reference to 'variables'") {
		t.Errorf("stateless: %+v", stateless)
	}
	composited := Compile(expr, "vap-validation", "")
	if composited.OK || !strings.Contains(composited.Message, "undefined field 'x'") {
		t.Errorf("composited: %+v", composited)
	}
	withParams := Compile("params.x == 1", "vap-validation", `{"stateless":true,"hasParams":true}`)
	if !withParams.OK {
		t.Errorf("stateless with params: %+v", withParams)
	}
	noParams := Compile("params.x == 1", "vap-validation", `{"stateless":true}`)
	if noParams.OK {
		t.Errorf("stateless without params compiled params: %+v", noParams)
	}
	mc := Compile(expr, "vap-matchCondition", `{"stateless":true}`)
	if mc.OK || !strings.Contains(mc.Message, "undeclared reference to 'variables'") {
		t.Errorf("matchCondition: %+v", mc)
	}
}

package main

import (
	celgo "github.com/google/cel-go/cel"
	celtypes "github.com/google/cel-go/common/types"
)

// Expression accessors with the result types the apiserver requires. They are copies of
// the accessor types in k8s.io/apiserver/pkg/admission/plugin/policy/validating
// (interface.go, message.go) and .../policy/mutating/patch (smd.go, json_patch.go):
// importing those packages links client-go, informers and structured-merge-diff and
// grows cel.wasm from ~40 MB to ~99 MB. accessors_test.go (native go test) checks that
// these return exactly the same types as the apiserver's own accessors.

// validating.ValidationCondition
type validationCondition struct{ Expression string }

func (v *validationCondition) GetExpression() string { return v.Expression }
func (v *validationCondition) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.BoolType}
}

// validating.MessageExpressionCondition
type messageExpressionCondition struct{ MessageExpression string }

func (m *messageExpressionCondition) GetExpression() string { return m.MessageExpression }
func (m *messageExpressionCondition) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.StringType}
}

// validating.AuditAnnotationCondition
type auditAnnotationCondition struct{ ValueExpression string }

func (v *auditAnnotationCondition) GetExpression() string { return v.ValueExpression }
func (v *auditAnnotationCondition) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.StringType, celgo.NullType}
}

// validating.Variable
type variableExpression struct {
	Name       string
	Expression string
}

func (v *variableExpression) GetExpression() string { return v.Expression }
func (v *variableExpression) GetName() string       { return v.Name }
func (v *variableExpression) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.AnyType, celgo.DynType}
}

// patch.ApplyConfigurationCondition
var applyConfigObjectType = celtypes.NewObjectType("Object")

type applyConfigurationCondition struct{ Expression string }

func (v *applyConfigurationCondition) GetExpression() string { return v.Expression }
func (v *applyConfigurationCondition) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{applyConfigObjectType}
}

// patch.JSONPatchCondition
var jsonPatchType = celtypes.NewObjectType("JSONPatch")

type jsonPatchCondition struct{ Expression string }

func (v *jsonPatchCondition) GetExpression() string { return v.Expression }
func (v *jsonPatchCondition) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.ListType(jsonPatchType)}
}

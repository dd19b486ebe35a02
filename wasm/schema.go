package main

// The OpenAPI schema as the type checker reads it: schemaNode, built from the schema's JSON, and
// its common.Schema methods, which are k8s.io/apiserver v0.37.2 pkg/cel/openapi's adaptor
// (adaptor.go, extensions.go) over spec.Schema, rewritten for this type. The engine does not use
// kube-openapi's spec.Schema: once a *spec.Schema is held in an interface its UnmarshalJSON and
// MarshalJSONTo stay linked, and with them kube-openapi's JSON library (0.64 MB of code in
// cel.wasm) that the engine never calls. typecheck_test.go compares every getter and the
// resulting DeclTypes with the apiserver's adaptor over spec.Schema read by spec's own JSON.

import (
	"encoding/json"

	"k8s.io/apiserver/pkg/cel/common"
)

// schemaNode holds what spec.Schema holds of the fields common.Schema reads (and $ref, which
// resolving reads). A node is not changed once built: resolving refs makes copies.
type schemaNode struct {
	ref                  string
	typ                  []string
	format, pattern      string
	properties           map[string]*schemaNode // nil when the JSON has no "properties"
	additionalProperties *schemaOrBool
	items                *schemaNode // nil when absent or an array of schemas (spec's Items.Schema)
	required             []string
	nullable             bool
	enum                 []any
	defaultValue         any
	minimum, maximum     *float64
	exclusiveMinimum     bool
	exclusiveMaximum     bool
	multipleOf           *float64
	uniqueItems          bool
	minItems, maxItems   *int64
	minLength, maxLength *int64
	minProps, maxProps   *int64
	allOf, anyOf, oneOf  []*schemaNode
	not                  *schemaNode
	extensions           map[string]any // "x-"/"X-" keys as written (spec.Extensions' readers look up lower-case keys)
}

type schemaOrBool struct {
	allows bool
	schema *schemaNode
}

// schemaFromJSON builds a schema from its JSON form (OpenAPI v3 / v2 schema, or a CRD's
// JSONSchemaProps) as spec.Schema.UnmarshalJSON reads the same fields; extensions are the keys
// starting with "x-".
func schemaFromJSON(m map[string]any) *schemaNode {
	s := &schemaNode{}
	for k, v := range m {
		switch k {
		case "$ref":
			s.ref, _ = v.(string)
		case "type":
			switch t := v.(type) {
			case string:
				s.typ = []string{t}
			case []any:
				s.typ = stringsOf(t)
			}
		case "format":
			s.format, _ = v.(string)
		case "pattern":
			s.pattern, _ = v.(string)
		case "properties":
			if props, ok := v.(map[string]any); ok {
				s.properties = make(map[string]*schemaNode, len(props))
				for name, p := range props {
					if pm, ok := p.(map[string]any); ok {
						s.properties[name] = schemaFromJSON(pm)
					}
				}
			}
		case "additionalProperties":
			switch a := v.(type) {
			case bool:
				s.additionalProperties = &schemaOrBool{allows: a}
			case map[string]any:
				s.additionalProperties = &schemaOrBool{allows: true, schema: schemaFromJSON(a)}
			}
		case "items":
			if it, ok := v.(map[string]any); ok {
				s.items = schemaFromJSON(it)
			}
		case "required":
			if r, ok := v.([]any); ok {
				s.required = stringsOf(r)
			}
		case "nullable":
			s.nullable, _ = v.(bool)
		case "enum":
			s.enum, _ = v.([]any)
		case "default":
			s.defaultValue = v
		case "minimum":
			s.minimum = floatOf(v)
		case "maximum":
			s.maximum = floatOf(v)
		case "exclusiveMinimum":
			s.exclusiveMinimum, _ = v.(bool)
		case "exclusiveMaximum":
			s.exclusiveMaximum, _ = v.(bool)
		case "multipleOf":
			s.multipleOf = floatOf(v)
		case "uniqueItems":
			s.uniqueItems, _ = v.(bool)
		case "minItems":
			s.minItems = intOf(v)
		case "maxItems":
			s.maxItems = intOf(v)
		case "minLength":
			s.minLength = intOf(v)
		case "maxLength":
			s.maxLength = intOf(v)
		case "minProperties":
			s.minProps = intOf(v)
		case "maxProperties":
			s.maxProps = intOf(v)
		case "allOf":
			s.allOf = schemasOf(v)
		case "anyOf":
			s.anyOf = schemasOf(v)
		case "oneOf":
			s.oneOf = schemasOf(v)
		case "not":
			if n, ok := v.(map[string]any); ok {
				s.not = schemaFromJSON(n)
			}
		default:
			if len(k) > 1 && (k[0] == 'x' || k[0] == 'X') && k[1] == '-' { // spec keeps the key as written
				if s.extensions == nil {
					s.extensions = map[string]any{}
				}
				s.extensions[k] = v
			}
		}
	}
	return s
}

func stringsOf(l []any) []string {
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func schemasOf(v any) []*schemaNode {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]*schemaNode, 0, len(l))
	for _, x := range l {
		if m, ok := x.(map[string]any); ok {
			out = append(out, schemaFromJSON(m))
		}
	}
	return out
}

func floatOf(v any) *float64 {
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}

func intOf(v any) *int64 {
	if f, ok := v.(float64); ok {
		i := int64(f)
		return &i
	}
	return nil
}

func stringSchema() *schemaNode { return &schemaNode{typ: []string{"string"}} } // spec.StringProperty()

func typeContains(s *schemaNode, t string) bool { // spec.StringOrArray.Contains on a missing property: false
	if s == nil {
		return false
	}
	for _, x := range s.typ {
		if x == t {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// common.Schema: pkg/cel/openapi/adaptor.go's methods

var _ common.Schema = (*schemaNode)(nil)
var _ common.SchemaOrBool = (*schemaOrBool)(nil)

func (sb *schemaOrBool) Schema() common.Schema {
	if sb.schema == nil {
		return nil
	}
	return sb.schema
}

func (sb *schemaOrBool) Allows() bool { return sb.allows }

func (s *schemaNode) Type() string {
	if len(s.typ) == 0 {
		return ""
	}
	return s.typ[0]
}

func (s *schemaNode) Format() string  { return s.format }
func (s *schemaNode) Pattern() string { return s.pattern }

func (s *schemaNode) Items() common.Schema {
	if s.items == nil {
		return nil
	}
	return s.items
}

func (s *schemaNode) Properties() map[string]common.Schema {
	if s.properties == nil {
		return nil
	}
	res := make(map[string]common.Schema, len(s.properties))
	for n, prop := range s.properties {
		res[n] = prop
	}
	return res
}

// HasProperties and Property: common.Schema's from k8s.io/apiserver v0.38 (the 1.38 engine),
// as its adaptor answers them; the v0.37 interface does not ask for them.
func (s *schemaNode) HasProperties() bool { return s.properties != nil }

func (s *schemaNode) Property(key string) (common.Schema, bool) {
	if prop, ok := s.properties[key]; ok {
		return prop, true
	}
	return nil, false
}

func (s *schemaNode) AdditionalProperties() common.SchemaOrBool {
	if s.additionalProperties == nil {
		return nil
	}
	return s.additionalProperties
}

func (s *schemaNode) Default() any             { return s.defaultValue }
func (s *schemaNode) Minimum() *float64        { return s.minimum }
func (s *schemaNode) IsExclusiveMinimum() bool { return s.exclusiveMinimum }
func (s *schemaNode) Maximum() *float64        { return s.maximum }
func (s *schemaNode) IsExclusiveMaximum() bool { return s.exclusiveMaximum }
func (s *schemaNode) MultipleOf() *float64     { return s.multipleOf }
func (s *schemaNode) UniqueItems() bool        { return s.uniqueItems }
func (s *schemaNode) MinItems() *int64         { return s.minItems }
func (s *schemaNode) MaxItems() *int64         { return s.maxItems }
func (s *schemaNode) MinLength() *int64        { return s.minLength }
func (s *schemaNode) MaxLength() *int64        { return s.maxLength }
func (s *schemaNode) MinProperties() *int64    { return s.minProps }
func (s *schemaNode) MaxProperties() *int64    { return s.maxProps }
func (s *schemaNode) Required() []string       { return s.required }
func (s *schemaNode) Enum() []any              { return s.enum }
func (s *schemaNode) Nullable() bool           { return s.nullable }
func (s *schemaNode) AllOf() []common.Schema   { return asSchemas(s.allOf) }
func (s *schemaNode) AnyOf() []common.Schema   { return asSchemas(s.anyOf) }
func (s *schemaNode) OneOf() []common.Schema   { return asSchemas(s.oneOf) }

func asSchemas(l []*schemaNode) []common.Schema {
	var res []common.Schema // nil when empty, as the adaptor's append loop gives
	for _, x := range l {
		res = append(res, x)
	}
	return res
}

func (s *schemaNode) Not() common.Schema {
	if s.not == nil {
		return nil
	}
	return s.not
}

// extensions.go's readers (spec.Extensions.GetBool / GetString / GetStringSlice / GetObject).

const intOrStringFormat = "int-or-string" // intstr.IntOrString{}.OpenAPISchemaFormat()

func (s *schemaNode) extBool(key string) bool {
	v, ok := s.extensions[key].(bool)
	return v && ok
}

func (s *schemaNode) IsXIntOrString() bool {
	return s.format == intOrStringFormat || s.extBool("x-kubernetes-int-or-string")
}
func (s *schemaNode) IsXEmbeddedResource() bool { return s.extBool("x-kubernetes-embedded-resource") }
func (s *schemaNode) IsXPreserveUnknownFields() bool {
	return s.extBool("x-kubernetes-preserve-unknown-fields")
}

func (s *schemaNode) XListType() string {
	v, _ := s.extensions["x-kubernetes-list-type"].(string)
	return v
}

func (s *schemaNode) XMapType() string {
	v, _ := s.extensions["x-kubernetes-map-type"].(string)
	return v
}

func (s *schemaNode) XListMapKeys() []string {
	arr, ok := s.extensions["x-kubernetes-list-map-keys"].([]any)
	if !ok {
		return nil
	}
	var keys []string
	for _, x := range arr {
		k, ok := x.(string)
		if !ok {
			return nil
		}
		keys = append(keys, k)
	}
	return keys
}

// validationRule is openapi.ValidationRule.
type validationRule struct {
	RuleField              string `json:"rule"`
	MessageField           string `json:"message"`
	MessageExpressionField string `json:"messageExpression"`
	PathField              string `json:"fieldPath"`
}

func (v validationRule) Rule() string              { return v.RuleField }
func (v validationRule) Message() string           { return v.MessageField }
func (v validationRule) FieldPath() string         { return v.PathField }
func (v validationRule) MessageExpression() string { return v.MessageExpressionField }

func (s *schemaNode) XValidations() []common.ValidationRule {
	var rules []validationRule
	if v, ok := s.extensions["x-kubernetes-validations"]; ok { // GetObject: through JSON
		b, err := json.Marshal(v)
		if err != nil || json.Unmarshal(b, &rules) != nil {
			return nil
		}
	}
	results := make([]common.ValidationRule, len(rules))
	for i, rule := range rules {
		results[i] = rule
	}
	return results
}

// WithTypeAndObjectMeta is common.WithTypeAndObjectMeta (pkg/cel/common/schemas.go) on this type.
func (s *schemaNode) WithTypeAndObjectMeta() common.Schema {
	if s.properties != nil &&
		typeContains(s.properties["kind"], "string") &&
		typeContains(s.properties["apiVersion"], "string") &&
		typeContains(s.properties["metadata"], "object") &&
		s.properties["metadata"].properties != nil &&
		typeContains(s.properties["metadata"].properties["name"], "string") &&
		typeContains(s.properties["metadata"].properties["generateName"], "string") {
		return s
	}
	result := *s
	props := make(map[string]*schemaNode, len(s.properties))
	for k, prop := range s.properties {
		props[k] = prop
	}
	props["kind"] = stringSchema()
	props["apiVersion"] = stringSchema()
	props["metadata"] = &schemaNode{
		typ:        []string{"object"},
		properties: map[string]*schemaNode{"name": stringSchema(), "generateName": stringSchema()},
	}
	result.properties = props
	return &result
}

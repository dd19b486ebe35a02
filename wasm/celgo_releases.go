package main

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/decls"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"
	"google.golang.org/protobuf/reflect/protoreflect"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// ---------------------------------------------------------------------------
// cel-go per target release. Each Kubernetes release's k8s.io/apiserver runs its own cel-go;
// the engine runs this binary's (v0.29, k8s.io/apiserver v0.37). What changed in cel-go itself,
// not in a versioned apiserver library, is not in the env set of an older compatibility
// version: this table says, per release, what the engine puts back. Library behaviour fixed in
// Go code is in runtimeFixes (fixes.go); parser and checker behaviour is here. Checked against each
// release's own apiserver by tools/cel-oracle (the oracles of 1.30–1.33, 1.36 and 1.37).

// backtickSyntax: how a release's parser reads a backtick-escaped field (object.`my-label`).
type backtickSyntax int

const (
	backticksSupported   backtickSyntax = iota // cel-go v0.29+: escaped field names
	backticksUnsupported                       // v0.23–v0.28: the grammar knows them, the parser refuses: "unsupported syntax: '`'"
	backticksUnknown                           // before v0.23: the lexer does not know '`': "token recognition error at: '`'" per backtick
)

type celGoRelease struct {
	celGo     string // the cel-go version of the release's k8s.io/apiserver (go.mod)
	backticks backtickSyntax
	// optionalType: the optional type's name (common/types/optional.go OptionalType), as a
	// result's type says it: "optional" until v0.17, "optional_type" from v0.20.
	optionalType string
	// unsizedIterationVars: the static cost estimator knows no size for a comprehension's
	// variable (v0.17 checker/cost.go costIdent only tracks its path); v0.23 takes it from the
	// range's elements (pushIterValue), so ['a', 'b'].map(x, x + 'c') has a bounded cost. v0.20
	// and v0.22 estimate as v0.17 (the oracles of 1.31 and 1.32).
	unsizedIterationVars bool
	// unsizedDynAndOptional: the static cost estimator of v0.17–v0.22 knows no size for dyn(x)
	// nor for an optional of a scalar (v0.23 copies x's, and its isScalar unwraps an optional),
	// so dyn(1) == dyn(1) may cost up to (2^64-1) x 0.1 (releaseEstimator.equalityBefore133).
	unsizedDynAndOptional bool
	// unbracketedTypeParams: a type parameter in a message is "_var0", not "<_var0>" (common/types
	// types.go String: the brackets came with v0.26; the oracles of 1.30 and 1.31 show it).
	unbracketedTypeParams bool
	// v017Messages: cel-go v0.17's wording of checker messages (withReleaseMessages): an
	// expression as its protobuf text (v0.20 prints a Go struct, as this binary's does).
	v017Messages bool
	// untypedIterVar2: v0.22's checker gives a two-variable comprehension's second variable no
	// type when the range is neither a list nor a map (untypedIterVar2, celgo_comprehensions.go);
	// v0.23 makes it dyn. Two-variable comprehensions are 1.32's library: stored expressions only.
	untypedIterVar2 bool
}

var celGoReleases = map[uint]celGoRelease{
	30: {celGo: "v0.17.8", backticks: backticksUnknown, optionalType: "optional", unsizedIterationVars: true, unsizedDynAndOptional: true, unbracketedTypeParams: true, v017Messages: true},
	31: {celGo: "v0.20.1", backticks: backticksUnknown, unsizedIterationVars: true, unsizedDynAndOptional: true, unbracketedTypeParams: true},
	32: {celGo: "v0.22.0", backticks: backticksUnknown, unsizedIterationVars: true, unsizedDynAndOptional: true, unbracketedTypeParams: true, untypedIterVar2: true},
	33: {celGo: "v0.23.2", backticks: backticksUnsupported, unbracketedTypeParams: true},
	34: {celGo: "v0.26.0", backticks: backticksUnsupported},
	35: {celGo: "v0.26.0", backticks: backticksUnsupported},
	36: {celGo: "v0.26.0", backticks: backticksUnsupported},
	37: {celGo: "v0.29.2", backticks: backticksSupported},
}

// releaseTypeName is a result's type name as the release's cel-go names it.
func releaseTypeName(name string, minor uint) string {
	if o := celGoReleases[minor].optionalType; o != "" && name == "optional_type" {
		return o
	}
	return name
}

// withReleaseMessages words a compile error's messages as the release's cel-go does: the
// optional type's name ("found no matching overload … applied to 'string.(optional(int))'"),
// type parameters without brackets (v0.17 "_var0", v0.29 "<_var0>") and an expression in
// "incompatible type already exists for expression: …(id)", which v0.17 printed as its
// protobuf Expr and v0.29 prints as a Go struct. In the messages only: the source lines quoted
// under them (" | …") are the expression's text. parse gives the env and the expression's
// AST (the ids).
func withReleaseMessages(r *plugincel.CompilationResult, minor uint, parse func() (*celgo.Env, *celgo.Ast)) {
	rel := celGoReleases[minor]
	if r.Error == nil || (rel.optionalType == "" && !rel.unbracketedTypeParams) {
		return
	}
	var env *celgo.Env
	var parsed *celgo.Ast
	rename := func(s string) string {
		if rel.optionalType != "" {
			s = strings.ReplaceAll(s, "optional_type(", rel.optionalType+"(")
		}
		if rel.unbracketedTypeParams {
			// not ANTLR's end of input in a syntax error ("extraneous input '<EOF>'"), which these printed so too
			s = typeParam.ReplaceAllStringFunc(s, func(m string) string {
				if m == "<EOF>" {
					return m
				}
				return m[1 : len(m)-1]
			})
		}
		if !rel.v017Messages {
			return s
		}
		return incompatibleExpr.ReplaceAllStringFunc(s, func(m string) string {
			g := incompatibleExpr.FindStringSubmatch(m)
			id, _ := strconv.ParseInt(g[2], 10, 64)
			if parsed == nil {
				env, parsed = parse()
			}
			if text, ok := exprProtoText(env, parsed, id); ok {
				return g[1] + text + "(" + g[2] + ") old:"
			}
			return m
		})
	}
	lines := strings.Split(r.Error.Detail, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, " |") {
			lines[i] = rename(l)
		}
	}
	e := *r.Error
	e.Detail = strings.Join(lines, "\n")
	if ce, ok := e.Cause.(*apiservercel.CompilationError); ok && ce.Issues != nil {
		for _, err := range ce.Issues.Errors() {
			err.Message = rename(err.Message)
		}
	}
	r.Error = &e
}

var (
	typeParam        = regexp.MustCompile(`<(_var\d+|[A-Z]\w*)>`)
	incompatibleExpr = regexp.MustCompile(`(incompatible type already exists for expression: )(?:.*?)\((\d+)\) old:`)
)

// releaseSyntaxError is the compile error a release's parser gives an expression this
// binary's parser accepts (nil when there is none): backtick-escaped fields before 1.37.
func releaseSyntaxError(expr string, minor uint, accessor plugincel.ExpressionAccessor) *plugincel.CompilationResult {
	rel := celGoReleases[minor]
	if rel.backticks == backticksSupported || !strings.Contains(expr, "`") {
		return nil
	}
	src := common.NewTextSource(expr)
	errs := parseErrors(src, rel.backticks)
	if errs == nil {
		return nil
	}
	issues := celgo.NewIssues(errs)
	return &plugincel.CompilationResult{
		ExpressionAccessor: accessor,
		Error: &apiservercel.Error{
			Type:   apiservercel.ErrorTypeInvalid,
			Detail: "compilation failed: " + issues.String(), // plugincel compile.go resultError
			Cause:  apiservercel.NewCompilationError(issues),
		},
	}
}

// parseErrors parses as the release's parser would: escapes refused, and (before v0.23) each
// backtick of an escaped field a lexer error, the rest parsed without it. nil: no backtick
// field, so the release parses it as this binary does.
func parseErrors(src common.Source, b backtickSyntax) *common.Errors {
	p, err := parser.NewParser(parser.EnableIdentEscapeSyntax(false), parser.EnableOptionalSyntax(true), parser.Macros(parser.AllMacros...))
	if err != nil {
		return nil
	}
	_, errs := p.Parse(src)
	var ticks []common.Location
	for _, e := range errs.GetErrors() {
		if e.Message == "unsupported syntax: '`'" {
			ticks = append(ticks, e.Location)
		}
	}
	if len(ticks) == 0 {
		return nil
	}
	if b == backticksUnsupported {
		return errs
	}
	// The v0.17 lexer skips an unknown character: blank both backticks of each escaped field
	// and parse the rest; the errors are reported on the original text.
	text := []rune(src.Content())
	out := common.NewErrors(src)
	for _, l := range ticks {
		open, ok := src.LocationOffset(l)
		if !ok || int(open) >= len(text) {
			return errs
		}
		end := int(open) + 1
		for end < len(text) && text[end] != '`' {
			end++
		}
		text[open] = ' '
		out.ReportError(l, "Syntax error: token recognition error at: '`'")
		if end < len(text) {
			text[end] = ' '
			if loc, ok := src.OffsetLocation(int32(end)); ok {
				out.ReportError(loc, "Syntax error: token recognition error at: '`'")
			}
		}
	}
	_, rest := p.Parse(common.NewTextSource(string(text)))
	for _, e := range rest.GetErrors() {
		out.ReportError(e.Location, "%s", e.Message)
	}
	return out
}

// withoutDeclarations is an env option taking out of an env the functions and AST validators
// that a release's cel-go did not have, where the apiserver asks for a library at no version
// (cel.OptionalTypes()) or the library's own version gained them (ext.Strings' format
// validator): cel-go has no option to drop either. The env's checker is rebuilt from its
// remaining declarations (the validated ones it would copy from its parent still hold them).
func withoutDeclarations(functions, validators []string) celgo.EnvOption {
	return func(e *celgo.Env) (*celgo.Env, error) {
		v := reflect.ValueOf(e).Elem()
		fns := unexportedFieldPtr[map[string]*decls.FunctionDecl](v, "functions")
		vals := unexportedFieldPtr[[]celgo.ASTValidator](v, "validators")
		chkOpts := unexportedFieldPtr[[]checker.Option](v, "chkOpts")
		if fns == nil || vals == nil || chkOpts == nil {
			return nil, fmt.Errorf("cel-go's Env has no functions/validators/chkOpts: withoutDeclarations needs updating")
		}
		for _, f := range functions {
			delete(*fns, f)
		}
		kept := []celgo.ASTValidator{}
		for _, val := range *vals {
			if !slices.Contains(validators, val.Name()) {
				kept = append(kept, val)
			}
		}
		*vals = kept
		*chkOpts = nil // only checker.ValidatedDeclarations of the parent env (cel/env.go Extend)
		return e, nil
	}
}

// optionalMacrosSharingTarget are optMap and optFlatMap as cel-go v0.17–v0.20 expand them: the
// optional's expression appears twice (target.hasValue() ? … target.value() …) as one node with
// one id, where v0.22 copies it. The checker then types both uses as one, so
// optional.none().optMap(x, x + 1) fails to type-check there.
func optionalMacrosSharingTarget() celgo.EnvOption {
	expand := func(name string, wrapOf bool) celgo.MacroFactory {
		return func(meh celgo.MacroExprFactory, target ast.Expr, args []ast.Expr) (ast.Expr, *common.Error) {
			if args[0].Kind() != ast.IdentKind {
				return nil, meh.NewError(args[0].ID(), name+"() variable name must be a simple identifier")
			}
			v := args[0].AsIdent()
			var body ast.Expr = meh.NewComprehension(meh.NewList(), "#unused", v,
				meh.NewMemberCall("value", target), meh.NewLiteral(types.False), meh.NewIdent(v), args[1])
			if wrapOf {
				body = meh.NewCall("optional.of", body)
			}
			return meh.NewCall(operators.Conditional, meh.NewMemberCall("hasValue", target), body, meh.NewCall("optional.none")), nil
		}
	}
	return celgo.Macros(
		celgo.ReceiverMacro("optMap", 2, expand("optMap", true)),
		celgo.ReceiverMacro("optFlatMap", 2, expand("optFlatMap", false)),
	)
}

// formatLiteralsExempt is what v0.17 kept of format() checking: its homogeneous-literal
// validator exempts the lists under a format() call (cel/validator.go Configure), as v0.29's
// format validator does in its place; it checks nothing itself.
type formatLiteralsExempt struct{}

func (formatLiteralsExempt) Name() string { return "cel.validator.string_format" }

func (formatLiteralsExempt) Configure(c celgo.MutableValidatorConfig) error {
	exempt := c.GetOrDefault(celgo.HomogeneousAggregateLiteralExemptFunctions, []string{}).([]string)
	return c.Set(celgo.HomogeneousAggregateLiteralExemptFunctions, append(exempt, "format"))
}

func (formatLiteralsExempt) Validate(*celgo.Env, celgo.ValidatorConfig, *ast.AST, *celgo.Issues) {}

// exprProtoText is the expression with this id as cel-go v0.17's %v printed it: the protobuf
// Expr in text format, one line. protobuf-go puts one or two spaces between fields, chosen by a
// hash of the running binary (internal/detrand) so that nobody parses the text; the engine puts
// the two of the 1.30 oracle's build, so each 1.30 apiserver build says it with one or the other.
func exprProtoText(env *celgo.Env, a *celgo.Ast, id int64) (string, bool) {
	if env == nil || a == nil {
		return "", false
	}
	var found ast.Expr
	ast.PreOrderVisit(a.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if found == nil && e.ID() == id {
			found = e
		}
	}))
	if found == nil {
		return "", false
	}
	pb, err := ast.ExprToProto(found)
	if err != nil {
		return "", false
	}
	m := pb.ProtoReflect()
	qualifyCalls(m, env.HasFunction)
	return protoText(m, "  "), true
}

// qualifyCalls does what the checker did to the Expr before v0.17 printed it: a call on a
// qualified name that is a declared function (optional.none()) becomes that function's call.
func qualifyCalls(m protoreflect.Message, declared func(string) bool) {
	fields := m.Descriptor().Fields()
	if call := fields.ByName("call_expr"); call != nil && m.Has(call) {
		c := m.Get(call).Message()
		target, function := c.Descriptor().Fields().ByName("target"), c.Descriptor().Fields().ByName("function")
		if c.Has(target) {
			if q := qualifiedName(c.Get(target).Message()); q != "" && declared(q+"."+c.Get(function).String()) {
				c.Clear(target)
				c.Set(function, protoreflect.ValueOfString(q+"."+c.Get(function).String()))
			}
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				qualifyCalls(v.List().Get(i).Message(), declared)
			}
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			qualifyCalls(v.Message(), declared)
		}
		return true
	})
}

// qualifiedName is a.b.c of an identifier or a chain of selections on one ("" otherwise).
func qualifiedName(m protoreflect.Message) string {
	fields := m.Descriptor().Fields()
	if id := fields.ByName("ident_expr"); id != nil && m.Has(id) {
		return m.Get(id).Message().Get(m.Get(id).Message().Descriptor().Fields().ByName("name")).String()
	}
	if sel := fields.ByName("select_expr"); sel != nil && m.Has(sel) {
		s := m.Get(sel).Message()
		sf := s.Descriptor().Fields()
		if s.Get(sf.ByName("test_only")).Bool() {
			return ""
		}
		if q := qualifiedName(s.Get(sf.ByName("operand")).Message()); q != "" {
			return q + "." + s.Get(sf.ByName("field")).String()
		}
	}
	return ""
}

// protoText is prototext's single-line form of a message with sep between fields.
func protoText(m protoreflect.Message, sep string) string {
	var b strings.Builder
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		one := func(v protoreflect.Value) {
			if b.Len() > 0 {
				b.WriteString(sep)
			}
			b.WriteString(string(fd.Name()) + ":")
			switch fd.Kind() {
			case protoreflect.MessageKind, protoreflect.GroupKind:
				b.WriteString("{" + protoText(v.Message(), sep) + "}")
			case protoreflect.StringKind:
				b.WriteString(strconv.Quote(v.String()))
			case protoreflect.BytesKind:
				b.WriteString(strconv.Quote(string(v.Bytes())))
			case protoreflect.EnumKind:
				if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
					b.WriteString(string(ev.Name()))
				} else {
					b.WriteString(strconv.Itoa(int(v.Enum())))
				}
			default:
				b.WriteString(fmt.Sprint(v.Interface()))
			}
		}
		switch {
		case fd.IsList():
			for j, l := 0, m.Get(fd).List(); j < l.Len(); j++ {
				one(l.Get(j))
			}
		case fd.IsMap():
			// an Expr has no map fields
		default:
			one(m.Get(fd))
		}
	}
	return b.String()
}

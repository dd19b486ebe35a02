package main

import (
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/parser"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// ---------------------------------------------------------------------------
// cel-go per target release. Each Kubernetes release's k8s.io/apiserver runs its own cel-go;
// the engine runs this binary's (v0.29, k8s.io/apiserver v0.37). What changed in cel-go itself,
// not in a versioned apiserver library, is not in the env set of an older compatibility
// version: this table says, per release, what the engine puts back. Library behaviour fixed in
// Go code is in runtimeFixes (fixes.go); parser behaviour is here. Checked against each
// release's own apiserver by tools/cel-oracle (the oracles of 1.30, 1.33, 1.36 and 1.37).

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
}

var celGoReleases = map[uint]celGoRelease{
	30: {celGo: "v0.17.8", backticks: backticksUnknown, optionalType: "optional"},
	31: {celGo: "v0.20.1", backticks: backticksUnknown},
	32: {celGo: "v0.22.0", backticks: backticksUnknown},
	33: {celGo: "v0.23.2", backticks: backticksUnsupported},
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

// withReleaseTypeNames words a compile error's types as the release's cel-go does (the
// optional type's name in "found no matching overload … applied to 'string.(optional(int))'"),
// in the messages only: the source lines quoted under them (" | …") are the expression's text.
func withReleaseTypeNames(r *plugincel.CompilationResult, minor uint) {
	o := celGoReleases[minor].optionalType
	if o == "" || r.Error == nil || !strings.Contains(r.Error.Detail, "optional_type(") {
		return
	}
	rename := func(s string) string { return strings.ReplaceAll(s, "optional_type(", o+"(") }
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

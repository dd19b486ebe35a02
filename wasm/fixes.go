package main

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"k8s.io/apimachinery/pkg/api/resource"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// ---------------------------------------------------------------------------
// Runtime fixes: library behaviour that changed between releases without a new
// library version, so the env set of an older compatibility version has the newer
// behaviour. For a target before `from`, the engine redefines the named overloads with
// the older release's implementation (cel-go replaces an overload's binding when it is
// declared again with the same id and signature: common/decls FunctionDecl.AddOverload).
// What changed in cel-go's interpreter itself (a runtime cost, the optional library's `or`)
// goes back through program options (fixes_celgo.go): a cost tracker per overload, which cel-go
// consults before any estimator, or a decorator of the planned program. The type checker is
// unchanged; only evaluation differs.

type runtimeFix struct {
	name    string
	since   uint // the library's IntroducedVersion minor (0: always there): not declared before it
	from    uint // the first minor release with the fix
	before  []cel.EnvOption
	program []cel.ProgramOption
	source  string
}

var runtimeFixes = []runtimeFix{
	{
		name: "optional-library-v2",
		from: 33,
		// cel-go's optional library version 2 (first(), last(), optional.unwrap(), unwrapOpt())
		// came with v0.23; k8s.io/apiserver asks for cel.OptionalTypes() at no version, so the
		// newest its cel-go has: 1.30's v0.17, 1.31's v0.20 and 1.32's v0.22 have none of them
		// ("undeclared reference to 'first'", the oracles of all three).
		before: []cel.EnvOption{withoutDeclarations([]string{"first", "last", "optional.unwrap", "unwrapOpt"}, nil)},
		source: "github.com/google/cel-go cel/library.go optionalLib.CompileOptions (v0.17.8: versions 0 and 1; v0.23.2: lib.version >= 2)",
	},
	{
		name: "optional-macros-shared-target",
		from: 32,
		// v0.17's and v0.20's optMap/optFlatMap use the optional's expression twice as one node
		// (v0.22 copies it): optional.none().optMap(x, x + 1) fails to type-check at 1.30 and 1.31.
		before: []cel.EnvOption{optionalMacrosSharingTarget()},
		source: "github.com/google/cel-go cel/library.go optMap/optFlatMap (v0.17.8, v0.20.1: meh.ReceiverCall(valueFunc, target); v0.22.0: meh.Copy(target))",
	},
	{
		name: "string-format-validator",
		from: 31,
		// cel-go v0.17's ext.Strings checks no format() call when compiling: a bad clause or
		// argument ('%d'.format(['a'])) compiles and fails when evaluated. v0.20 adds the
		// cel.validator.string_format AST validator from strings version 1.
		before: []cel.EnvOption{
			withoutDeclarations(nil, []string{"cel.validator.string_format"}),
			cel.ASTValidators(formatLiteralsExempt{}),
		},
		source: "github.com/google/cel-go ext/strings.go stringLib.CompileOptions (v0.17.8: no validator; v0.20.1: cel.ASTValidators(stringFormatValidator{}))",
	},
	{
		name: "quantity-deep-copy",
		from: 37,
		// k8s.io/apiserver pkg/cel/library/quantity.go until v0.36: `copy := *q` before
		// Add/Sub shares the receiver's inf.Dec (a quantity beyond int64, e.g.
		// quantity('100000000000000000000')), so q.add(1) also changes q; v0.37: q.DeepCopy().
		before: []cel.EnvOption{
			cel.Function("add",
				cel.MemberOverload("quantity_add", []*cel.Type{apiservercel.QuantityType, apiservercel.QuantityType}, apiservercel.QuantityType, cel.BinaryBinding(quantityAddBefore137)),
				cel.MemberOverload("quantity_add_int", []*cel.Type{apiservercel.QuantityType, cel.IntType}, apiservercel.QuantityType, cel.BinaryBinding(quantityAddIntBefore137)),
			),
			cel.Function("sub",
				cel.MemberOverload("quantity_sub", []*cel.Type{apiservercel.QuantityType, apiservercel.QuantityType}, apiservercel.QuantityType, cel.BinaryBinding(quantitySubBefore137)),
				cel.MemberOverload("quantity_sub_int", []*cel.Type{apiservercel.QuantityType, cel.IntType}, apiservercel.QuantityType, cel.BinaryBinding(quantitySubIntBefore137)),
			),
		},
		source: "k8s.io/apiserver pkg/cel/library/quantity.go quantityAdd/AddInt/Sub/SubInt (v0.36: copy := *q; v0.37: q.DeepCopy())",
	},
	{
		name: "duration-from-int",
		from: 37,
		// cel-go's standard duration() has an int overload until v0.28 (it type-checks, and
		// fails when evaluated: "type conversion error"; a literal is refused when compiling by
		// the duration-literal validator); v0.29 has none ("found no matching overload").
		before: []cel.EnvOption{cel.Function(overloads.TypeConvertDuration,
			cel.Overload("int_to_duration", []*cel.Type{cel.IntType}, cel.DurationType, cel.UnaryBinding(durationFromIntBefore137)))},
		source: "github.com/google/cel-go common/stdlib/standard.go TypeConvertDuration (v0.26.0: IntToDuration overload; v0.29.2: none)",
	},
	{
		name: "scientific-format-spacing",
		from: 33,
		// golang.org/x/text until v0.19 (1.30–1.32) prints a %e clause's exponent with narrow
		// no-break spaces around the ×; v0.23 (1.33) without.
		before: []cel.EnvOption{cel.Function("format",
			cel.MemberOverload("string_format", []*cel.Type{cel.StringType, cel.ListType(cel.DynType)}, cel.StringType, cel.FunctionBinding(formatBefore133)))},
		source: "golang.org/x/text internal/number/format.go appendScientific (v0.19.0: \\u202f around SymSuperscriptingExponent; v0.23.0: none)",
	},
	{
		name:  "lists-range-negative",
		since: 34, // ext.Lists(ext.ListsVersion(3)) in environment/base.go
		from:  37,
		// cel-go ext/lists.go genRange: until v0.28 a negative size gives [] (the loop never
		// runs); v0.29 (k8s.io/apiserver v0.37) fails with "lists.range: size must be
		// non-negative" and caps the size.
		before: []cel.EnvOption{
			cel.Function("lists.range",
				cel.Overload("lists_range", []*cel.Type{cel.IntType}, cel.ListType(cel.IntType), cel.UnaryBinding(listsRangeBefore137)),
			),
		},
		source: "github.com/google/cel-go ext/lists.go genRange (v0.26.0: no size check; v0.29.2: non-negative, at most maxRangeSize)",
	},
	{
		name: "string-index-offset",
		from: 37,
		// cel-go ext/strings.go indexOfOffset/lastIndexOfOffset: until v0.28 an empty substring
		// is found at the offset as given (negative or past the end); v0.29 checks the offset
		// first and clamps it to the string's end.
		before: stringIndexOverloads(false),
		source: "github.com/google/cel-go ext/strings.go indexOfOffset (v0.26.0: if substr == \"\" { return offset }; v0.29.2: off < 0 is an error, clamped to len)",
	},
	{
		name: "string-index-offset-past-end",
		from: 32,
		// cel-go v0.17–v0.20: an offset at or past the end is "index out of range: N"; v0.22
		// -1. Declared after string-index-offset, so that this older binding is the one kept.
		before: stringIndexOverloads(true),
		source: "github.com/google/cel-go ext/strings.go indexOfOffset (v0.20.1: off >= len(runes) is an error; v0.22.0: -1)",
	},
	{
		name: "string-last-index-short",
		from: 34,
		// cel-go ext/strings.go lastIndexOf: until v0.23 a string shorter than the substring
		// is searched from len-1, so ''.lastIndexOf('l') is "index out of range: -1"; v0.26
		// answers -1 first.
		before: []cel.EnvOption{cel.Function("lastIndexOf", cel.MemberOverload("string_last_index_of_string",
			[]*cel.Type{cel.StringType, cel.StringType}, cel.IntType, cel.BinaryBinding(lastIndexOfBefore134)))},
		source: "github.com/google/cel-go ext/strings.go lastIndexOf (v0.23.2: no len(str) < len(substr) check; v0.26.0: return -1)",
	},
	{
		name: "strict-cost-admission",
		from: 32,
		// The StrictCostEnforcementForVAP and StrictCostEnforcementForWebhooks gates (beta, off by
		// default in 1.30 and 1.31; GA from 1.32): off, the admission plugins evaluate in
		// MustBaseEnvSet(…, false), without environment.StrictCostOpt, so library functions
		// (authorizer checks, ip, cidr, url, regex, lists…) cost what cel-go charges a call it
		// has no estimator for. Every context of the engine is an admission one (policies and
		// webhooks' matchConditions). plugincel's createEnvForOpts adds StrictCostOpt again after
		// any extension, so the estimator is taken out of each cost tracker instead.
		program: strictCostOff,
		source:  "k8s.io/apiserver v0.30 pkg/admission/plugin/policy/validating/plugin.go compositionEnvTemplateWithoutStrictCost; webhook/generic/webhook.go",
	},
	{
		name: "optional-or-non-optional",
		from: 37,
		// cel-go cel/library.go evalOptionalOr/evalOptionalOrValue: until v0.28 a left side that
		// is not an optional (a dyn field, object.spec.x.orValue(0)) is the result as it is;
		// v0.29 "no such overload". Kyverno's policy library leans on the older behaviour.
		program: []cel.ProgramOption{cel.CustomDecoratorV2(decorateOptionalOrBefore137)},
		source:  "github.com/google/cel-go cel/library.go evalOptionalOrValue.Eval (v0.26.0: return optLHS; v0.29.2: NoSuchOverloadErr)",
	},
	{
		name: "string-prefix-cost",
		from: 37,
		// cel-go interpreter/runtimecost.go costCall: until v0.28 startsWith/endsWith cost the
		// receiver's traversal, ceil(size(s)*0.1); v0.29 the argument's (the prefix or suffix).
		program: []cel.ProgramOption{cel.CostTrackerOptions(
			interpreter.OverloadCostTracker(overloads.StartsWithString, traversalOfReceiver),
			interpreter.OverloadCostTracker(overloads.EndsWithString, traversalOfReceiver),
		)},
		source: "github.com/google/cel-go interpreter/runtimecost.go costCall (v0.26.0: actualSize(args[0]); v0.29.2: actualSize(args[1]))",
	},
	{
		name: "matches-function-cost",
		from: 37,
		// cel-go interpreter/runtimecost.go costCall: until v0.28 only the member matches
		// (matches_string) has the regular-expression cost; the global matches(s, re) the
		// default call cost, 1. v0.29 both.
		program: []cel.ProgramOption{cel.CostTrackerOptions(interpreter.OverloadCostTracker(overloads.Matches, callCostOnly))},
		source:  "github.com/google/cel-go interpreter/runtimecost.go costCall (v0.26.0: case overloads.MatchesString; v0.29.2: case overloads.Matches, overloads.MatchesString)",
	},
	{
		name:  "flatten-negative-depth-cost",
		since: 34, // ext.Lists(ext.ListsVersion(3)): the version with cost trackers
		from:  37,
		// cel-go ext/lists.go trackAllocatingListCall: until v0.28 a negative depth multiplies the
		// size, and the negative product wraps around as a uint64; v0.29 counts it as depth 1.
		program: []cel.ProgramOption{cel.CostTrackerOptions(
			interpreter.OverloadCostTracker("list_flatten_int", trackListFlattenBefore137),
		)},
		source: "github.com/google/cel-go ext/lists.go trackAllocatingListCall (v0.26.0: uint64(float64(size)*costFactor); v0.29.2: a negative factor is 1)",
	},
}

// listsRangeBefore137 is cel-go v0.26's lists.range.
func listsRangeBefore137(n ref.Val) ref.Val {
	size, ok := n.(types.Int)
	if !ok {
		return types.MaybeNoSuchOverloadErr(n)
	}
	var out []ref.Val
	for i := types.Int(0); i < size; i++ {
		out = append(out, i)
	}
	return types.DefaultTypeAdapter.NativeToValue(out)
}

// The four functions as k8s.io/apiserver v0.30–v0.36 have them (pkg/cel/library/quantity.go).

func quantityAddBefore137(arg ref.Val, other ref.Val) ref.Val {
	return quantityOpBefore137(arg, other, false)
}

func quantityAddIntBefore137(arg ref.Val, other ref.Val) ref.Val {
	return quantityIntOpBefore137(arg, other, false)
}

func quantitySubBefore137(arg ref.Val, other ref.Val) ref.Val {
	return quantityOpBefore137(arg, other, true)
}

func quantitySubIntBefore137(arg ref.Val, other ref.Val) ref.Val {
	return quantityIntOpBefore137(arg, other, true)
}

func quantityOpBefore137(arg ref.Val, other ref.Val, sub bool) ref.Val {
	q, ok := arg.Value().(*resource.Quantity)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	q2, ok := other.Value().(*resource.Quantity)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	copy := *q
	if sub {
		copy.Sub(*q2)
	} else {
		copy.Add(*q2)
	}
	return &apiservercel.Quantity{Quantity: &copy}
}

func quantityIntOpBefore137(arg ref.Val, other ref.Val, sub bool) ref.Val {
	q, ok := arg.Value().(*resource.Quantity)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	q2, ok := other.Value().(int64)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	q2Converted := *resource.NewQuantity(q2, resource.DecimalExponent)
	copy := *q
	if sub {
		copy.Sub(q2Converted)
	} else {
		copy.Add(q2Converted)
	}
	return &apiservercel.Quantity{Quantity: &copy}
}

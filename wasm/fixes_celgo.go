package main

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"unsafe"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	"k8s.io/apiserver/pkg/cel/library"
)

// ---------------------------------------------------------------------------
// The cel-go v0.23–v0.28 behaviour of the runtimeFixes (fixes.go) that live in cel-go's
// interpreter rather than in a function's binding: program options.

// decorateOptionalOrBefore137 replaces cel-go's `or`/`orValue` steps with the ones of
// v0.26. The optional library plans them with its own decorator, which runs before any
// program option of an env set extension (its library was added first), so this one sees
// cel-go's unexported evalOptionalOr/evalOptionalOrValue and takes their operands; a cel-go
// that renamed them fails the program here, loudly, rather than evaluating differently.
func decorateOptionalOrBefore137(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
	v := reflect.ValueOf(i)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || v.Elem().Type().PkgPath() != "github.com/google/cel-go/cel" {
		return i, nil
	}
	var returnsValue bool
	switch v.Elem().Type().Name() {
	case "evalOptionalOr":
	case "evalOptionalOrValue":
		returnsValue = true
	default:
		return i, nil
	}
	lhs, okL := unexportedField[interpreter.InterpretableV2](v.Elem(), "lhs")
	rhs, okR := unexportedField[interpreter.InterpretableV2](v.Elem(), "rhs")
	if !okL || !okR {
		return nil, fmt.Errorf("cel-go's %s has no lhs/rhs operands: the optional-or-non-optional fix needs updating", v.Elem().Type().Name())
	}
	return &optionalOrBefore137{id: i.ID(), lhs: lhs, rhs: rhs, value: returnsValue}, nil
}

// unexportedField reads a struct's unexported field of type T.
func unexportedField[T any](s reflect.Value, name string) (T, bool) {
	var zero T
	p := unexportedFieldPtr[T](s, name)
	if p == nil {
		return zero, false
	}
	return *p, true
}

// unexportedFieldPtr is the address of a struct's unexported field of type T (nil if it has none).
func unexportedFieldPtr[T any](s reflect.Value, name string) *T {
	f := s.FieldByName(name)
	if !f.IsValid() || !f.CanAddr() || f.Type() != reflect.TypeFor[T]() {
		return nil
	}
	return (*T)(unsafe.Pointer(f.UnsafeAddr()))
}

// optionalOrBefore137 is cel-go v0.26's evalOptionalOr (value false) and evalOptionalOrValue
// (value true): a left side that is not an optional is the result.
type optionalOrBefore137 struct {
	id       int64
	lhs, rhs interpreter.InterpretableV2
	value    bool
}

func (o *optionalOrBefore137) ID() int64 { return o.id }

func (o *optionalOrBefore137) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	l := o.lhs.Exec(frame)
	opt, ok := l.(*types.Optional)
	if !ok {
		return l
	}
	if opt.HasValue() {
		if o.value {
			return opt.GetValue()
		}
		return opt
	}
	return o.rhs.Exec(frame)
}

func (o *optionalOrBefore137) Eval(vars interpreter.Activation) ref.Val {
	return evalWithFrame(vars, o.Exec)
}

// actualSize is cel-go's interpreter actualSize (unexported): a sizer's size, an optional's
// value's, else 1.
func actualSize(v ref.Val) uint64 {
	if sz, ok := v.(traits.Sizer); ok {
		return uint64(sz.Size().(types.Int))
	}
	if opt, ok := v.(*types.Optional); ok && opt.HasValue() {
		return actualSize(opt.GetValue())
	}
	return 1
}

// traversalOfReceiver: v0.26's startsWith/endsWith cost, the receiver's traversal.
func traversalOfReceiver(args []ref.Val, _ ref.Val) *uint64 {
	c := uint64(math.Ceil(float64(actualSize(args[0])) * common.StringTraversalCostFactor))
	return &c
}

// callCostOnly: v0.26's cost of a call it knows nothing of.
func callCostOnly([]ref.Val, ref.Val) *uint64 {
	c := uint64(1)
	return &c
}

// trackListFlattenBefore137 is cel-go v0.26's trackListFlatten: the input size times the depth
// plus the call and the new list. A negative depth makes a negative float64, which Go converts
// to uint64 as the apiserver's amd64 build does (through int64: -4 is 2^64-4), so the sum wraps
// around; an arm64 build would saturate at 0 instead. The engine answers as amd64.
func trackListFlattenBefore137(args []ref.Val, _ ref.Val) *uint64 {
	depth := 1.0
	if len(args) == 2 {
		if d, ok := args[1].(types.Int); ok {
			depth = float64(d)
		}
	}
	product := float64(actualSize(args[0])) * depth
	var c uint64
	if product < 0 {
		c = uint64(int64(product))
	} else {
		c = uint64(product)
	}
	c += 1 + common.ListCreateBaseCost
	return &c
}

// ---------------------------------------------------------------------------
// Static cost estimates that changed in Go code rather than with a library version, in
// library.CostEstimator (k8s.io/apiserver pkg/cel/library/cost.go) or in cel-go's checker: for a
// target before `from`, the estimator answers the call as that release did: `estimate`, or
// nil to leave it to cel-go's own estimate (which adds the arguments' costs either way).

type estimatorFix struct {
	name     string
	from     uint
	function string // the call's function, or
	overload string // the call's overload id
	estimate *checker.CallEstimate
	source   string
}

var estimatorFixes = []estimatorFix{
	{
		name:     "kubernetes-type-equality-cost",
		from:     32,
		function: "_==_",
		// Until v0.31 `==` of two quantities (or IPs, CIDRs, semvers, authorizer values) is
		// cel-go's equality estimate, which knows no size for them: up to (2^64-1) × 0.1.
		// v0.32: a fixed 1.
		source: "k8s.io/apiserver pkg/cel/library/cost.go EstimateCallCost (v0.31.0: no case \"_==_\"; v0.32.0: O(1) for Kubernetes types)",
	},
	{
		name:     "matches-function-cost",
		from:     37,
		overload: overloads.Matches,
		// cel-go checker/cost.go functionCost: until v0.28 only the member matches has the
		// regular-expression estimate, the global matches(s, re) the default 1 (as at run time).
		estimate: &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 1}},
		source:   "github.com/google/cel-go checker/cost.go functionCost (v0.26.0: case overloads.MatchesString; v0.29.2: case overloads.Matches, overloads.MatchesString)",
	},
}

// releaseEstimator is the static cost estimator of a target release.
type releaseEstimator struct {
	checker.CostEstimator
	fixes []estimatorFix
	// unsizedIterationVars: celGoRelease.unsizedIterationVars.
	unsizedIterationVars bool
	// unsizedDynAndOptional: celGoRelease.unsizedDynAndOptional.
	unsizedDynAndOptional bool
}

// EstimateSize: where the release's cel-go knew no size for a comprehension's variable, an
// unknown one (0 to 2^64-1) before this cel-go's own, taken from the range's elements.
// Scalars are size 1 in either (checker/cost.go isScalar).
func (e releaseEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if s := e.CostEstimator.EstimateSize(n); s != nil || !e.unsizedIterationVars {
		return s
	}
	path := n.Path()
	if n.Expr().Kind() != ast.IdentKind || len(path) == 0 || !slices.Contains([]string{"@items", "@keys", "@values", "@indices"}, path[len(path)-1]) {
		return nil
	}
	t := n.Type()
	if t.Kind() == types.OpaqueKind && t.TypeName() == "optional_type" {
		t = t.Parameters()[0]
	}
	switch t.Kind() {
	case types.BoolKind, types.DoubleKind, types.DurationKind, types.IntKind, types.TimestampKind, types.UintKind:
		return nil
	}
	return &checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

func (e releaseEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	est, fixed := (*checker.CallEstimate)(nil), false
	for _, f := range e.fixes {
		if (f.function != "" && f.function == function) || (f.overload != "" && f.overload == overloadID) {
			est, fixed = f.estimate, true
			break
		}
	}
	if !fixed {
		est = e.CostEstimator.EstimateCallCost(function, overloadID, target, args)
	}
	if est == nil && e.unsizedDynAndOptional && (function == operators.Equals || function == operators.NotEquals) && len(args) == 2 {
		return e.equalityBefore133(args)
	}
	return est
}

// equalityBefore133 is cel-go v0.22's estimate of == and != (checker/cost.go functionCost): the
// smaller of the two sizes, traversed (x0.1), with v0.22's sizes (sizeBefore133).
func (e releaseEstimator) equalityBefore133(args []checker.AstNode) *checker.CallEstimate {
	smallest := min(e.sizeBefore133(args[0]).Max, e.sizeBefore133(args[1]).Max)
	lo := uint64(0)
	if smallest > 0 {
		lo = 1
	}
	return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: lo, Max: smallest}.MultiplyByCostFactor(common.StringTraversalCostFactor)}
}

// sizeBefore133 is an operand's size as cel-go v0.22 estimates it (sizeEstimate): dyn(x) has none
// (v0.23 copies x's: maybeUnwrapDynCall), nor has an optional of a scalar (v0.23's isScalar
// unwraps it), so either is unknown unless the estimator knows it; else as this cel-go computes.
func (e releaseEstimator) sizeBefore133(n checker.AstNode) checker.SizeEstimate {
	unknown := checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
	if x := n.Expr(); x.Kind() == ast.CallKind && x.AsCall().FunctionName() == overloads.TypeConvertDyn {
		return unknown
	}
	if t := n.Type(); t != nil && t.Kind() == types.OpaqueKind && t.TypeName() == "optional_type" {
		if s := e.EstimateSize(n); s != nil {
			return *s
		}
		return unknown
	}
	if s := n.ComputedSize(); s != nil {
		return *s
	}
	return unknown
}

// staticCostEstimator is library.CostEstimator as the target release's apiserver estimates.
func staticCostEstimator(minor uint) checker.CostEstimator {
	var est checker.CostEstimator = &library.CostEstimator{SizeEstimator: &sizeEstimator{}}
	var fixes []estimatorFix
	for _, f := range estimatorFixes {
		if minor < f.from {
			fixes = append(fixes, f)
		}
	}
	rel := celGoReleases[minor]
	if len(fixes) == 0 && !rel.unsizedIterationVars && !rel.unsizedDynAndOptional {
		return est
	}
	return releaseEstimator{CostEstimator: est, fixes: fixes, unsizedIterationVars: rel.unsizedIterationVars, unsizedDynAndOptional: rel.unsizedDynAndOptional}
}

// stringIndexOverloads redefines indexOf/lastIndexOf with an offset as cel-go v0.26 has them
// (pastEndError false) or v0.17–v0.20 (true).
func stringIndexOverloads(pastEndError bool) []cel.EnvOption {
	bind := func(last bool) cel.OverloadOpt {
		return cel.FunctionBinding(func(args ...ref.Val) ref.Val {
			s, ok1 := args[0].(types.String)
			sub, ok2 := args[1].(types.String)
			off, ok3 := args[2].(types.Int)
			if !ok1 || !ok2 || !ok3 {
				return types.MaybeNoSuchOverloadErr(args[0])
			}
			i, err := indexOfOffsetBefore137(string(s), string(sub), int(off), last, pastEndError)
			if err != nil {
				return types.NewErrFromString(err.Error())
			}
			return types.Int(i)
		})
	}
	args := []*cel.Type{cel.StringType, cel.StringType, cel.IntType}
	return []cel.EnvOption{
		cel.Function("indexOf", cel.MemberOverload("string_index_of_string_int", args, cel.IntType, bind(false))),
		cel.Function("lastIndexOf", cel.MemberOverload("string_last_index_of_string_int", args, cel.IntType, bind(true))),
	}
}

// indexOfOffsetBefore137 is cel-go v0.26's indexOfOffset (last false) and lastIndexOfOffset
// (last true); pastEndError: v0.20's error for an offset at or past the end.
func indexOfOffsetBefore137(str, substr string, off int, last, pastEndError bool) (int, error) {
	if substr == "" {
		return off, nil
	}
	runes, subrunes := []rune(str), []rune(substr)
	if off < 0 || (pastEndError && off >= len(runes)) {
		return -1, fmt.Errorf("index out of range: %d", off)
	}
	if off >= len(runes) {
		return -1, nil
	}
	matchAt := func(i int) bool {
		for j := range subrunes {
			if runes[i+j] != subrunes[j] {
				return false
			}
		}
		return true
	}
	if last {
		if off > len(runes)-len(subrunes) {
			off = len(runes) - len(subrunes)
		}
		for i := off; i >= 0; i-- {
			if matchAt(i) {
				return i, nil
			}
		}
		return -1, nil
	}
	for i := off; i < len(runes)-(len(subrunes)-1); i++ {
		if matchAt(i) {
			return i, nil
		}
	}
	return -1, nil
}

// lastIndexOfBefore134 is cel-go v0.23's lastIndexOf without an offset.
func lastIndexOfBefore134(str, substr ref.Val) ref.Val {
	s, ok1 := str.(types.String)
	sub, ok2 := substr.(types.String)
	if !ok1 || !ok2 {
		return types.MaybeNoSuchOverloadErr(str)
	}
	runes := []rune(string(s))
	if sub == "" {
		return types.Int(len(runes))
	}
	i, err := indexOfOffsetBefore137(string(s), string(sub), len(runes)-1, true, false)
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	return types.Int(i)
}

package main

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// ---------------------------------------------------------------------------
// Runtime fixes: library behaviour that changed between releases without a new
// library version, so the env set of an older compatibility version has the newer
// behaviour. For a target before `from`, the engine redefines the named overloads with
// the older release's implementation (cel-go replaces an overload's binding when it is
// declared again with the same id and signature: common/decls FunctionDecl.AddOverload).
// The type checker is unchanged; only evaluation differs.

type runtimeFix struct {
	name   string
	since  uint // the library's IntroducedVersion minor (0: always there): not declared before it
	from   uint // the first minor release with the fix
	before []cel.EnvOption
	source string
}

var runtimeFixes = []runtimeFix{
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

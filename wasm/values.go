package main

import (
	"encoding/base64"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/apiserver/pkg/cel/mutation/dynamic"
)

// ---------------------------------------------------------------------------
// CEL value -> JSON-like value
//
// null/bool/string as is; int and uint as JSON numbers when |v| <= 2^53, otherwise as a
// decimal string; double as a number (NaN, +Inf, -Inf as the strings "NaN", "+Inf",
// "-Inf"); bytes as base64; duration as cel-go's string form ("5400s"); timestamp as
// RFC 3339 (nanoseconds kept); type values as their name; optional as its value or null;
// maps as objects (keys in their string form); Object{} literals as maps; Kubernetes
// library values (Quantity, IP, CIDR, URL, Semver, ...) as their string form when they
// have one, otherwise their type name.

const maxSafe = 1 << 53

func valToJSON(v ref.Val) any {
	switch t := v.(type) {
	case nil:
		return nil
	case types.Null:
		return nil
	case types.Bool:
		return bool(t)
	case types.Int:
		if t <= maxSafe && t >= -maxSafe {
			return int64(t)
		}
		return strconv.FormatInt(int64(t), 10)
	case types.Uint:
		if t <= maxSafe {
			return uint64(t)
		}
		return strconv.FormatUint(uint64(t), 10)
	case types.Double:
		f := float64(t)
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "+Inf"
		case math.IsInf(f, -1):
			return "-Inf"
		}
		return f
	case types.String:
		return string(t)
	case types.Bytes:
		return base64.StdEncoding.EncodeToString([]byte(t))
	case types.Duration:
		return t.ConvertToType(types.StringType).Value()
	case types.Timestamp:
		return t.Time.UTC().Format(time.RFC3339Nano)
	case *types.Type:
		return t.TypeName()
	case *types.Optional:
		if t.HasValue() {
			return valToJSON(t.GetValue())
		}
		return nil
	case *dynamic.ObjectVal:
		return nativeJSON(t.Value())
	case *mutation.JSONPatchVal:
		out := map[string]any{"op": t.Op, "path": t.Path}
		if t.From != "" {
			out["from"] = t.From
		}
		if t.Val != nil {
			out["value"] = valToJSON(t.Val)
		}
		return out
	}
	if types.IsError(v) {
		return fmt.Sprint(v)
	}
	if m, ok := v.(traits.Mapper); ok {
		out := map[string]any{}
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			out[keyString(k)] = valToJSON(m.Get(k))
		}
		return out
	}
	if l, ok := v.(traits.Lister); ok {
		out := []any{}
		it := l.Iterator()
		for it.HasNext() == types.True {
			out = append(out, valToJSON(it.Next()))
		}
		return out
	}
	if s := v.ConvertToType(types.StringType); !types.IsError(s) {
		if str, ok := s.(types.String); ok {
			return string(str)
		}
	}
	return v.Type().TypeName()
}

func keyString(k ref.Val) string {
	switch t := k.(type) {
	case types.String:
		return string(t)
	}
	if s := k.ConvertToType(types.StringType); !types.IsError(s) {
		if str, ok := s.(types.String); ok {
			return string(str)
		}
	}
	return fmt.Sprint(k.Value())
}

// nativeJSON normalises native Go values (from Object{} conversion) to JSON-like values.
func nativeJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = nativeJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = nativeJSON(e)
		}
		return out
	case int64:
		return valToJSON(types.Int(t))
	case uint64:
		return valToJSON(types.Uint(t))
	case float64:
		return valToJSON(types.Double(t))
	case ref.Val:
		return valToJSON(t)
	case error:
		return t.Error()
	}
	return v
}

func nativeToVal(v any) ref.Val {
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// typeName is the runtime type as CEL's type() names it.
func typeName(v ref.Val) string {
	if v == nil {
		return "null_type"
	}
	if o, ok := v.(*types.Optional); ok && !o.HasValue() {
		return "optional_type"
	}
	return v.Type().TypeName()
}

// display renders a value in CEL literal syntax (for showing results).
func display(v ref.Val) string {
	var b strings.Builder
	writeDisplay(&b, v, 0)
	return b.String()
}

func writeDisplay(b *strings.Builder, v ref.Val, depth int) {
	if depth > 64 {
		b.WriteString("…")
		return
	}
	switch t := v.(type) {
	case nil, types.Null:
		b.WriteString("null")
	case types.Bool:
		b.WriteString(strconv.FormatBool(bool(t)))
	case types.Int:
		b.WriteString(strconv.FormatInt(int64(t), 10))
	case types.Uint:
		b.WriteString(strconv.FormatUint(uint64(t), 10) + "u")
	case types.Double:
		f := float64(t)
		switch {
		case math.IsNaN(f):
			b.WriteString("double(\"NaN\")")
		case math.IsInf(f, 1):
			b.WriteString("double(\"Infinity\")")
		case math.IsInf(f, -1):
			b.WriteString("double(\"-Infinity\")")
		default:
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eE") {
				s += ".0"
			}
			b.WriteString(s)
		}
	case types.String:
		b.WriteString(strconv.Quote(string(t)))
	case types.Bytes:
		b.WriteString("b" + strconv.Quote(string(t)))
	case types.Duration:
		fmt.Fprintf(b, "duration(%q)", t.ConvertToType(types.StringType).Value())
	case types.Timestamp:
		fmt.Fprintf(b, "timestamp(%q)", t.Time.UTC().Format(time.RFC3339Nano))
	case *types.Type:
		b.WriteString(t.TypeName())
	case *types.Optional:
		if t.HasValue() {
			b.WriteString("optional.of(")
			writeDisplay(b, t.GetValue(), depth+1)
			b.WriteString(")")
		} else {
			b.WriteString("optional.none()")
		}
	case *dynamic.ObjectVal:
		b.WriteString(t.Type().TypeName())
		writeNative(b, t.Value(), depth+1)
	case *mutation.JSONPatchVal:
		fmt.Fprintf(b, "JSONPatch{op: %q, path: %q", t.Op, t.Path)
		if t.From != "" {
			fmt.Fprintf(b, ", from: %q", t.From)
		}
		if t.Val != nil {
			b.WriteString(", value: ")
			writeDisplay(b, t.Val, depth+1)
		}
		b.WriteString("}")
	default:
		if types.IsError(v) {
			b.WriteString(fmt.Sprint(v))
			return
		}
		if m, ok := v.(traits.Mapper); ok {
			type kv struct {
				k   string
				v   ref.Val
				key ref.Val
			}
			var entries []kv
			it := m.Iterator()
			for it.HasNext() == types.True {
				k := it.Next()
				var kb strings.Builder
				writeDisplay(&kb, k, depth+1)
				entries = append(entries, kv{k: kb.String(), key: k})
			}
			sort.Slice(entries, func(i, j int) bool { return entries[i].k < entries[j].k })
			b.WriteString("{")
			for i, e := range entries {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(e.k)
				b.WriteString(": ")
				writeDisplay(b, m.Get(e.key), depth+1)
			}
			b.WriteString("}")
			return
		}
		if l, ok := v.(traits.Lister); ok {
			b.WriteString("[")
			it := l.Iterator()
			first := true
			for it.HasNext() == types.True {
				if !first {
					b.WriteString(", ")
				}
				first = false
				writeDisplay(b, it.Next(), depth+1)
			}
			b.WriteString("]")
			return
		}
		tn := v.Type().TypeName()
		if s := v.ConvertToType(types.StringType); !types.IsError(s) {
			if str, ok := s.(types.String); ok {
				fmt.Fprintf(b, "%s(%q)", tn, string(str))
				return
			}
		}
		b.WriteString(tn)
	}
}

func writeNative(b *strings.Builder, v any, depth int) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + ": ")
			writeNative(b, t[k], depth+1)
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			writeNative(b, e, depth+1)
		}
		b.WriteString("]")
	case ref.Val:
		writeDisplay(b, t, depth+1)
	default:
		writeDisplay(b, nativeToVal(v), depth+1)
	}
}

// ---------------------------------------------------------------------------
// Static cost estimation: no size information about object/oldObject/params (they are dyn),
// as for admission expressions.

type sizeEstimator struct{}

func (sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate { return nil }
func (sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

package main

import (
	"encoding/base64"
	"math"
	"strconv"
	"time"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// toJSON writes a CEL value in the engine's documented JSON form (wasm/values.go's header):
// int/uint as numbers within ±2^53, else decimal strings; NaN/±Inf as strings; bytes base64;
// durations as "5400s"; timestamps RFC 3339 UTC; types by name; optionals as value or null;
// maps as objects; other values by their string conversion, else their type name.
func toJSON(v ref.Val) any {
	const maxSafe = 1 << 53
	switch t := v.(type) {
	case nil, types.Null:
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
	case ref.Type:
		return t.TypeName()
	case *types.Optional:
		if t.HasValue() {
			return toJSON(t.GetValue())
		}
		return nil
	}
	if m, ok := v.(traits.Mapper); ok {
		out := map[string]any{}
		for it := m.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			key := k.ConvertToType(types.StringType)
			out[string(key.(types.String))] = toJSON(m.Get(k))
		}
		return out
	}
	if l, ok := v.(traits.Lister); ok {
		out := []any{}
		for it := l.Iterator(); it.HasNext() == types.True; {
			out = append(out, toJSON(it.Next()))
		}
		return out
	}
	if s, ok := v.ConvertToType(types.StringType).(types.String); ok {
		return string(s)
	}
	return v.Type().TypeName()
}

// noSizes: no size information about object/oldObject/params (they are dyn).
type noSizes struct{}

func (noSizes) EstimateSize(checker.AstNode) *checker.SizeEstimate { return nil }
func (noSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

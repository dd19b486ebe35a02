package main

import (
	"encoding/base64"
	"math"
	"strconv"
	"time"
)

// toJSON writes a CEL value in the engine's documented JSON form (wasm/values.go's header):
// int/uint as numbers within ±2^53, else decimal strings; NaN/±Inf as strings; bytes base64;
// durations as "5400s"; timestamps RFC 3339 UTC; types by name; optionals as value or null;
// maps as objects; other values by their string conversion, else their type name.
func toJSON(v refVal) any {
	const maxSafe = 1 << 53
	switch t := v.(type) {
	case nil, typesNull:
		return nil
	case typesBool:
		return bool(t)
	case typesInt:
		if t <= maxSafe && t >= -maxSafe {
			return int64(t)
		}
		return strconv.FormatInt(int64(t), 10)
	case typesUint:
		if t <= maxSafe {
			return uint64(t)
		}
		return strconv.FormatUint(uint64(t), 10)
	case typesDouble:
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
	case typesString:
		return string(t)
	case typesBytes:
		return base64.StdEncoding.EncodeToString([]byte(t))
	case typesDuration:
		return t.ConvertToType(typesStringType).Value()
	case typesTimestamp:
		return t.Time.UTC().Format(time.RFC3339Nano)
	case refType:
		return t.TypeName()
	case *typesOptional:
		if t.HasValue() {
			return toJSON(t.GetValue())
		}
		return nil
	}
	if m, ok := v.(traitsMapper); ok {
		out := map[string]any{}
		for it := m.Iterator(); it.HasNext() == typesTrue; {
			k := it.Next()
			key := k.ConvertToType(typesStringType)
			out[string(key.(typesString))] = toJSON(m.Get(k))
		}
		return out
	}
	if l, ok := v.(traitsLister); ok {
		out := []any{}
		for it := l.Iterator(); it.HasNext() == typesTrue; {
			out = append(out, toJSON(it.Next()))
		}
		return out
	}
	if s, ok := v.ConvertToType(typesStringType).(typesString); ok {
		return string(s)
	}
	return v.Type().TypeName()
}

// noSizes: no size information about object/oldObject/params (they are dyn).
type noSizes struct{}

func (noSizes) EstimateSize(astNode) *sizeEstimate { return nil }
func (noSizes) EstimateCallCost(string, string, *astNode, []astNode) *callEstimate {
	return nil
}

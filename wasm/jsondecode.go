package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// ---------------------------------------------------------------------------
// A JSON decoder for test inputs that gives exactly what decodeJSON gives (encoding/json with
// UseNumber, then integers within int64 as int64 and every other number as float64) in one
// pass: encoding/json validated the text, scanned it again into json.RawMessage fields, then
// decoded each field through interfaces — a third of the native engine's time in an impact
// replay. Anything it is not sure to read as encoding/json does (a string with escapes or bytes
// beyond ASCII, malformed text) is handed back to encoding/json or reported as errFallback, so
// the caller decodes that input the old way and gets encoding/json's own error messages.
// jsondecode_test.go holds it equal to decodeJSON on a generated corpus and edge cases.

var errFallback = errors.New("fast JSON decoding does not apply")

type jsonReader struct {
	b     []byte
	i     int
	depth int
}

// maxDepth: deeper texts go to encoding/json (which fails past 10000 levels).
const maxDepth = 1000

func (r *jsonReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// value reads one value at r.i (after white space).
func (r *jsonReader) value() (any, error) {
	r.space()
	if r.i >= len(r.b) {
		return nil, errFallback
	}
	switch c := r.b[r.i]; {
	case c == '{':
		if r.depth++; r.depth > maxDepth {
			return nil, errFallback
		}
		defer func() { r.depth-- }()
		m := map[string]any{}
		err := r.members(func(k string) error {
			v, err := r.value()
			m[k] = v // a repeated key: the last one wins, as in encoding/json
			return err
		})
		return m, err
	case c == '[':
		if r.depth++; r.depth > maxDepth {
			return nil, errFallback
		}
		defer func() { r.depth-- }()
		r.i++
		l := []any{}
		r.space()
		if r.i < len(r.b) && r.b[r.i] == ']' {
			r.i++
			return l, nil
		}
		for {
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			l = append(l, v)
			if more, err := r.more(']'); !more {
				return l, err
			}
		}
	case c == '"':
		return r.str()
	case c == 't':
		return true, r.word("true")
	case c == 'f':
		return false, r.word("false")
	case c == 'n':
		return nil, r.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	return nil, errFallback
}

// more reads white space and then a comma (true) or the closing character (false).
func (r *jsonReader) more(close byte) (bool, error) {
	r.space()
	if r.i >= len(r.b) {
		return false, errFallback
	}
	switch r.b[r.i] {
	case ',':
		r.i++
		return true, nil
	case close:
		r.i++
		return false, nil
	}
	return false, errFallback
}

func (r *jsonReader) word(w string) error {
	if len(r.b)-r.i < len(w) || string(r.b[r.i:r.i+len(w)]) != w {
		return errFallback
	}
	r.i += len(w)
	return nil
}

// str reads a string. Plain ASCII without escapes is taken as it is; anything else is given
// to encoding/json (its handling of escapes, surrogates and invalid UTF-8 is the reference).
func (r *jsonReader) str() (string, error) {
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return "", errFallback
	}
	start := r.i
	plain := true
	j := r.i + 1
	for ; j < len(r.b); j++ {
		c := r.b[j]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			j++ // the escaped character (validated by encoding/json below)
			continue
		}
		if c < 0x20 {
			return "", errFallback
		}
		if c >= utf8.RuneSelf {
			plain = false
		}
	}
	if j >= len(r.b) {
		return "", errFallback
	}
	r.i = j + 1
	if plain {
		return string(r.b[start+1 : j]), nil
	}
	var s string
	if err := json.Unmarshal(r.b[start:r.i], &s); err != nil {
		return "", errFallback
	}
	return s, nil
}

// number reads a number with JSON's grammar; integers within int64 are int64 (so "-0" is 0),
// every other number float64 (beyond float64's range ±Inf, as strconv.ParseFloat gives).
func (r *jsonReader) number() (any, error) {
	start := r.i
	integer := true
	if r.b[r.i] == '-' {
		r.i++
	}
	if r.i >= len(r.b) {
		return nil, errFallback
	}
	if r.b[r.i] == '0' {
		r.i++
	} else if r.b[r.i] >= '1' && r.b[r.i] <= '9' {
		for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
			r.i++
		}
	} else {
		return nil, errFallback
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		integer = false
		r.i++
		if !r.digits() {
			return nil, errFallback
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		integer = false
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if !r.digits() {
			return nil, errFallback
		}
	}
	text := string(r.b[start:r.i])
	if integer {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, nil
		}
	}
	f, _ := strconv.ParseFloat(text, 64)
	return f, nil
}

func (r *jsonReader) digits() bool {
	at := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i > at
}

// fastDecodeJSON decodes one JSON text whole (white space around it allowed) as decodeJSON
// does, or answers errFallback.
func fastDecodeJSON(b []byte) (any, error) {
	r := jsonReader{b: b}
	v, err := r.value()
	if err != nil {
		return nil, err
	}
	r.space()
	if r.i != len(b) {
		return nil, errFallback
	}
	return v, nil
}

package main

import (
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
)

// Two library behaviours of older releases that this binary's libraries no longer have: the
// runtimeFixes "duration-from-int" and "scientific-format-spacing" (fixes.go).

// durationFromIntBefore137 is cel-go v0.26's int_to_duration binding: declared (so duration(x)
// of an int compiles, and a literal is refused by the duration-literal validator as "invalid
// duration argument"), but an int converts to no duration when evaluated.
func durationFromIntBefore137(v ref.Val) ref.Val {
	return v.ConvertToType(types.DurationType)
}

// stringFormat is this binary's own format() binding as k8s.io/apiserver declares it
// (ext.Strings(ext.StringsVersion(2)) in environment/base.go: the default locale, no precision cap).
var stringFormat = func() func(...ref.Val) ref.Val {
	env, err := cel.NewEnv(ext.Strings(ext.StringsVersion(2)))
	if err != nil {
		panic(err)
	}
	bindings, err := env.Functions()["format"].Bindings()
	if err != nil {
		panic(err)
	}
	var call func(...ref.Val) ref.Val
	for _, b := range bindings {
		if b.Operator == "string_format" {
			call = overloadCall(b)
		}
	}
	if call == nil {
		panic("cel-go's ext.Strings has no string_format binding: the scientific-format-spacing fix needs updating")
	}
	return call
}()

func overloadCall(b *functions.Overload) func(...ref.Val) ref.Val {
	if b.Binary != nil {
		return func(args ...ref.Val) ref.Val { return b.Binary(args[0], args[1]) }
	}
	return b.Function
}

// Private-use characters that mark a %e clause's output in a format string (they pass through
// format() as text).
const sciOpen, sciClose = "\ue000", "\ue001"

// formatBefore133 is format() as golang.org/x/text up to v0.19 prints a %e clause: a narrow
// no-break space on each side of the exponent's ×, "1.234568 × 10⁰³" (internal/number
// format.go; v0.23 prints "1.234568×10⁰³"). The clauses are marked, so only their output changes.
func formatBefore133(args ...ref.Val) ref.Val {
	s, ok := args[0].(types.String)
	if !ok || len(args) != 2 {
		return stringFormat(args...)
	}
	marked, n := markScientific(string(s))
	if n == 0 {
		return stringFormat(args...)
	}
	out, ok := stringFormat(types.String(marked), args[1]).(types.String)
	if !ok {
		// an error: as the format string was written (a message may quote it)
		return stringFormat(args...)
	}
	var b strings.Builder
	rest := string(out)
	for {
		i := strings.Index(rest, sciOpen)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.Index(rest[i:], sciClose)
		b.WriteString(rest[:i])
		clause := rest[i+len(sciOpen) : i+j]
		b.WriteString(strings.Replace(clause, "×", "\u202f×\u202f", 1))
		rest = rest[i+j+len(sciClose):]
	}
	return types.String(b.String())
}

// markScientific wraps each %e clause (%e, %.3e) of a format string in sciOpen/sciClose; %% is text.
func markScientific(f string) (string, int) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			b.WriteString("%%")
			i++
			continue
		}
		j := i + 1
		if j < len(f) && f[j] == '.' {
			j++
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
		}
		if j < len(f) && f[j] == 'e' {
			b.WriteString(sciOpen + f[i:j+1] + sciClose)
			n++
		} else if j < len(f) {
			b.WriteString(f[i : j+1])
		} else {
			b.WriteString(f[i:])
		}
		i = j
	}
	return b.String(), n
}

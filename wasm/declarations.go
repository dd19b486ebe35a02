package main

import (
	"regexp"
	"sort"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/types"

	apiservercel "k8s.io/apiserver/pkg/cel"
)

type overloadDecl struct {
	ID        string   `json:"id"`
	Signature string   `json:"signature"`
	Member    bool     `json:"member"`
	Receiver  string   `json:"receiver,omitempty"`
	Args      []string `json:"args"`
	Result    string   `json:"result"`
	Doc       string   `json:"doc,omitempty"`
	Examples  []string `json:"examples,omitempty"`
}

type functionDecl struct {
	Name      string         `json:"name"`
	Doc       string         `json:"doc,omitempty"`
	Overloads []overloadDecl `json:"overloads"`
}

type macroDecl struct {
	Name     string   `json:"name"`
	ArgCount int      `json:"argCount"`
	VarArg   bool     `json:"varArg"`
	Receiver bool     `json:"receiver"`
	Doc      string   `json:"doc,omitempty"`
	Examples []string `json:"examples,omitempty"`
}

type fieldDecl struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type variableDecl struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Doc  string `json:"doc,omitempty"`
}

type declarationsResult struct {
	OK          bool                   `json:"ok"`
	Message     string                 `json:"message,omitempty"`
	Context     string                 `json:"context"`
	ResultTypes []string               `json:"resultTypes"`
	Variables   []variableDecl         `json:"variables"`
	Types       map[string][]fieldDecl `json:"types"`
	Functions   []functionDecl         `json:"functions"`
	Macros      []macroDecl            `json:"macros"`
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// Declarations lists what the environment of a context declares: variables with their
// types, the fields of every object type reachable from them (request, namespaceObject,
// variables, ...), the functions with their overloads and docs, and the macros.
func Declarations(ctxName, optsJSON string) declarationsResult {
	res := declarationsResult{Context: ctxName, Types: map[string][]fieldDecl{}, ResultTypes: []string{},
		Variables: []variableDecl{}, Functions: []functionDecl{}, Macros: []macroDecl{}}
	o, err := parseOptions(optsJSON)
	if err != nil {
		res.Message = err.Error()
		return res
	}
	env, pc, err := envFor(ctxName, o)
	if err != nil {
		res.Message = err.Error()
		return res
	}
	for _, t := range contexts[ctxName].accessor("true").ReturnTypes() {
		res.ResultTypes = append(res.ResultTypes, t.String())
	}
	provider := env.CELTypeProvider()
	var visit func(t *types.Type)
	visit = func(t *types.Type) {
		if t == nil {
			return
		}
		for _, p := range t.Parameters() {
			visit(p)
		}
		if t.Kind() != types.StructKind {
			return
		}
		name := t.TypeName()
		if _, seen := res.Types[name]; seen {
			return
		}
		names, ok := provider.FindStructFieldNames(name)
		if !ok {
			// apiserver's DeclTypeProvider does not implement FindStructFieldNames.
			dp, isDecl := provider.(interface {
				FindDeclType(string) (*apiservercel.DeclType, bool)
			})
			if !isDecl {
				return
			}
			dt, found := dp.FindDeclType(name)
			if !found {
				return
			}
			names = names[:0]
			for f := range dt.Fields {
				names = append(names, f)
			}
		}
		sort.Strings(names)
		fields := []fieldDecl{}
		res.Types[name] = fields
		for _, f := range names {
			ft, ok := provider.FindStructFieldType(name, f)
			if !ok {
				continue
			}
			fields = append(fields, fieldDecl{Name: f, Type: ft.Type.String()})
			visit(ft.Type)
		}
		res.Types[name] = fields
	}
	if pc != nil {
		// kubernetes.variables: one field per compiled variable, typed by its expression
		// (a variable that fails to compile is declared as dyn, as in composition.go).
		fields := []fieldDecl{}
		for i, v := range pc.variables {
			t := "dyn"
			if i < len(pc.results) && pc.results[i].OutputType != nil {
				t = pc.results[i].OutputType.String()
				visit(pc.results[i].OutputType)
			}
			fields = append(fields, fieldDecl{Name: v.Name, Type: t})
		}
		res.Types["kubernetes.variables"] = fields
	}
	for _, v := range env.Variables() {
		if v.Type().Kind() == types.TypeKind {
			continue // type identifiers (int, string, ...), not variables
		}
		res.Variables = append(res.Variables, variableDecl{Name: v.Name(), Type: v.Type().String(), Doc: v.Description()})
		visit(v.Type())
	}
	sort.Slice(res.Variables, func(i, j int) bool { return res.Variables[i].Name < res.Variables[j].Name })
	for name, fn := range env.Functions() {
		if !identRe.MatchString(name) || fn.IsDeclarationDisabled() {
			continue
		}
		fd := functionDecl{Name: name, Doc: fn.Description()}
		for _, ov := range fn.OverloadDecls() {
			od := overloadDecl{ID: ov.ID(), Member: ov.IsMemberFunction(), Result: typeStr(ov.ResultType()), Args: []string{}, Examples: ov.Examples()}
			args := ov.ArgTypes()
			if od.Member && len(args) > 0 {
				od.Receiver = typeStr(args[0])
				args = args[1:]
			}
			for _, a := range args {
				od.Args = append(od.Args, typeStr(a))
			}
			if od.Member {
				od.Signature = od.Receiver + "." + name + "(" + strings.Join(od.Args, ", ") + ") -> " + od.Result
			} else {
				od.Signature = name + "(" + strings.Join(od.Args, ", ") + ") -> " + od.Result
			}
			fd.Overloads = append(fd.Overloads, od)
		}
		if len(fd.Overloads) == 0 {
			continue
		}
		if fd.Doc == "" {
			if d := fn.Documentation(); d != nil {
				fd.Doc = d.Description
			}
		}
		res.Functions = append(res.Functions, fd)
	}
	sort.Slice(res.Functions, func(i, j int) bool { return res.Functions[i].Name < res.Functions[j].Name })
	for _, m := range env.Macros() {
		md := macroDecl{Name: m.Function(), ArgCount: m.ArgCount(), Receiver: m.IsReceiverStyle(), VarArg: m.ArgCount() == 0}
		if d, ok := m.(common.Documentor); ok {
			if doc := d.Documentation(); doc != nil {
				md.Doc = doc.Description
				for _, c := range doc.Children {
					if c.Kind == common.DocExample {
						md.Examples = append(md.Examples, c.Description)
					}
				}
			}
		}
		res.Macros = append(res.Macros, md)
	}
	sort.Slice(res.Macros, func(i, j int) bool {
		if res.Macros[i].Name != res.Macros[j].Name {
			return res.Macros[i].Name < res.Macros[j].Name
		}
		return res.Macros[i].ArgCount < res.Macros[j].ArgCount
	})
	res.OK = true
	return res
}

func typeStr(t *types.Type) string {
	if t == nil {
		return "dyn"
	}
	return t.String()
}

// ---------------------------------------------------------------------------
// typeAt: the checked type of the smallest sub-expression at a 0-based code-point offset.

type typeAtResult struct {
	OK     bool   `json:"ok"`
	Type   string `json:"type,omitempty"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Detail string `json:"detail,omitempty"`
}

func TypeAt(expr, ctxName, optsJSON string, offset int) typeAtResult {
	o, err := parseOptions(optsJSON)
	if err != nil {
		return typeAtResult{}
	}
	env, _, err := envFor(ctxName, o)
	if err != nil {
		return typeAtResult{}
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return typeAtResult{}
	}
	native := ast.NativeRep()
	si := native.SourceInfo()
	// Offset ranges of select nodes cover the '.', those of calls the '(' (cel-go parser):
	// map the identifier under the cursor to the node it names.
	runes := []rune(expr)
	isIdent := func(r rune) bool {
		return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
	}
	tokStart, tokEnd := offset, offset
	for tokStart > 0 && tokStart-1 < len(runes) && isIdent(runes[tokStart-1]) {
		tokStart--
	}
	for tokEnd < len(runes) && isIdent(runes[tokEnd]) {
		tokEnd++
	}
	targets := []int32{int32(offset)}
	if tokEnd > tokStart {
		after := tokEnd
		for after < len(runes) && (runes[after] == ' ' || runes[after] == '\t') {
			after++
		}
		if after < len(runes) && runes[after] == '(' {
			targets = append([]int32{int32(after)}, targets...)
		}
		before := tokStart - 1
		for before >= 0 && (runes[before] == ' ' || runes[before] == '\t' || runes[before] == '\n') {
			before--
		}
		if before >= 0 && (runes[before] == '.') {
			targets = append([]int32{int32(before)}, targets...)
		}
		targets = append(targets, int32(tokStart))
	}
	best := int64(-1)
	var bestRange struct{ start, stop int32 }
	for _, target := range targets {
		bestLen := int32(1 << 30)
		for id := range native.TypeMap() {
			r, ok := si.GetOffsetRange(id)
			if !ok {
				continue
			}
			if target >= r.Start && target < r.Stop && r.Stop-r.Start < bestLen {
				best, bestLen = id, r.Stop-r.Start
				bestRange.start, bestRange.stop = r.Start, r.Stop
			}
		}
		if best >= 0 {
			break
		}
	}
	if best < 0 {
		return typeAtResult{}
	}
	if tokEnd > tokStart {
		bestRange.start, bestRange.stop = int32(tokStart), int32(tokEnd)
	}
	t := native.GetType(best)
	res := typeAtResult{OK: true, Type: typeStr(t), Start: int(bestRange.start), End: int(bestRange.stop)}
	if ref, ok := native.ReferenceMap()[best]; ok && ref != nil {
		if ref.Name != "" {
			res.Detail = ref.Name
		} else if len(ref.OverloadIDs) > 0 {
			res.Detail = strings.Join(ref.OverloadIDs, ", ")
		}
	}
	return res
}

var _ = celgo.DynType

package main

import (
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// One CompositedCompiler serves every expression, as one policy's does all of its expressions:
// without variables stored its compiles are independent. NewCompositedCompiler builds its eight
// variable-declaration environments eagerly, which was most of the oracle's time per expression.
var compilers = map[*environment.EnvSet]*plugincel.CompositedCompiler{}

func compilerFor(base *environment.EnvSet) *plugincel.CompositedCompiler {
	if cc, ok := compilers[base]; ok {
		return cc
	}
	cc, err := plugincel.NewCompositedCompiler(base)
	if err != nil {
		panic(err)
	}
	compilers[base] = cc
	return cc
}

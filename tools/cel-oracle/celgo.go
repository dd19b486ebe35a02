//go:build !k8s138

package main

// cel-go under the module path of the release's k8s.io/apiserver: github.com/google/cel-go until 1.37, cel.dev/cel-go from 1.38 (celgo_138.go).
// main.go and values.go use these names, so that one source builds against either path.

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

type (
	celType        = cel.Type
	celEnv         = cel.Env
	celEnvOption   = cel.EnvOption
	astNode        = checker.AstNode
	sizeEstimate   = checker.SizeEstimate
	callEstimate   = checker.CallEstimate
	refVal         = ref.Val
	refType        = ref.Type
	traitsLister   = traits.Lister
	traitsMapper   = traits.Mapper
	typesBool      = types.Bool
	typesBytes     = types.Bytes
	typesDouble    = types.Double
	typesDuration  = types.Duration
	typesInt       = types.Int
	typesNull      = types.Null
	typesOptional  = types.Optional
	typesString    = types.String
	typesTimestamp = types.Timestamp
	typesUint      = types.Uint
)

var (
	celAnyType      = cel.AnyType
	celDynType      = cel.DynType
	celVariable     = cel.Variable
	typesTrue       = types.True
	typesStringType = types.StringType
)

package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	celgo "github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
)

// ---------------------------------------------------------------------------
// Target Kubernetes versions (the kubernetesVersion option, 1.30–1.37)
//
// The apiserver's environment package versions every library and option
// (environment/base.go: IntroducedVersion, RemovedVersion). A release-N apiserver:
//   - compiles expressions being written (NewExpressions) at its default compatibility
//     version, N-1 (DefaultCompatibilityVersion: the binary's MinCompatibilityVersion;
//     hard-coded 1.29 in 1.30): a library introduced in N is usable in new expressions
//     from N+1 on, so that a rollback to N-1 still reads them;
//   - evaluates stored expressions (StoredExpressions) with every library it knows, i.e.
//     those introduced up to N.
// The engine builds both from this binary's MustBaseEnvSet: write-time = compatibility
// N-1, run-time = compatibility N (its NewExpressions env, which holds exactly the options
// introduced up to N). For the binary's own release (1.37) both are the one env set of
// MustBaseEnvSet(DefaultCompatibilityVersion()), as the admission plugins build it.
//
// The authorizer selectors library has been versioned only (IntroducedVersion 1.31) since
// k8s.io/apiserver v0.37 removed the AuthorizeWithSelectors gate; with the gate's defaults
// of 1.31–1.36 (alpha off in 1.31, on from 1.32) the env sets are the same ones: absent at
// compatibility 1.30 (write-time 1.31), present from 1.31 (run-time 1.31, write-time 1.32).
//
// Behaviour that changed without a new library version (a bug fix in a library's Go code)
// is not in the env set of an older compatibility version: runtimeFixes (fixes.go) puts
// the older releases' implementation back for their targets.

// oldestMinor and binaryMinor: the targets this build answers (engine_137.go: 1.30–1.37 on
// k8s.io/apiserver v0.37; engine_138.go: 1.38 alone, the engine generation on v0.38).

// targetMinor reads the kubernetesVersion option: "" is the binary's release.
func targetMinor(v string) (uint, error) {
	if v == "" {
		return binaryMinor, nil
	}
	m, err := strconv.ParseUint(strings.TrimPrefix(v, "1."), 10, 32)
	if !strings.HasPrefix(v, "1.") || err != nil || m < oldestMinor || m > binaryMinor {
		return 0, fmt.Errorf("unsupported kubernetesVersion %q (1.%d to 1.%d)", v, oldestMinor, binaryMinor)
	}
	return uint(m), nil
}

// envStage says which environment of a target an expression is compiled in.
type envStage int

const (
	writeStage envStage = iota // compile(): the object is being written
	runStage                   // evaluate(), and compile() with Stored: admission of a stored object
)

// compileStage is the stage compile() and the mirrored environment use for these options.
func (o compileOptions) compileStage() envStage {
	if o.Stored {
		return runStage
	}
	return writeStage
}

// envSetRef is the base env set of one target at one stage and the env type to compile with.
type envSetRef struct {
	key     string // compatibility version, e.g. "1.35", and the runtime fixes undone ("1.36 -quantity-deep-copy")
	set     *environment.EnvSet
	envType environment.Type
}

var (
	envSetMu   sync.Mutex
	envSetsAt  = map[string]*environment.EnvSet{}
	defaultSet *envSetRef
)

// baseEnvSetAt is MustBaseEnvSet(1.compat).
func baseEnvSetAt(compat uint) *environment.EnvSet {
	key := fmt.Sprintf("1.%d", compat)
	envSetMu.Lock()
	defer envSetMu.Unlock()
	if s, ok := envSetsAt[key]; ok {
		return s
	}
	s := environment.MustBaseEnvSet(version.MajorMinor(1, compat))
	envSetsAt[key] = s
	return s
}

// envSetFor returns the env set for a target release and stage.
func envSetFor(minor uint, stage envStage) *envSetRef {
	var ref envSetRef
	if minor == binaryMinor {
		ref = *defaultEnvSet()
		if stage == runStage {
			ref.envType = environment.StoredExpressions
		}
	} else {
		compat := minor - 1
		if stage == runStage {
			compat = minor
		}
		ref = envSetRef{key: fmt.Sprintf("1.%d", compat), set: baseEnvSetAt(compat), envType: environment.NewExpressions}
	}
	return withOlderBehaviour(&ref, minor)
}

// withOlderBehaviour extends an env set with the implementations a target release had
// before the runtime fixes it lacks (the target's own binary runs both stages), and with the
// checks of its own cel-go's checker (celGoRelease.untypedIterVar2).
func withOlderBehaviour(ref *envSetRef, minor uint) *envSetRef {
	var opts []environment.VersionedOptions
	key := ref.key
	for _, f := range runtimeFixes {
		if minor < f.from && minor >= f.since {
			// IntroducedVersion keeps a library's redefinition out of an env set that lacks the
			// library (the write-time env of its first release, compatibility one release before).
			opts = append(opts, environment.VersionedOptions{IntroducedVersion: version.MajorMinor(1, f.since), EnvOptions: f.before, ProgramOptions: f.program})
			key += " -" + f.name
		}
	}
	if celGoReleases[minor].untypedIterVar2 {
		// a checker difference of cel-go itself, at every stage (no comprehension, no finding)
		opts = append(opts, environment.VersionedOptions{IntroducedVersion: version.MajorMinor(1, 0), EnvOptions: []celgo.EnvOption{celgo.ASTValidators(untypedIterVar2{})}})
		key += " -untyped-iter-var2"
	}
	if len(opts) == 0 {
		return ref
	}
	envSetMu.Lock()
	defer envSetMu.Unlock()
	s, ok := envSetsAt[key]
	if !ok {
		var err error
		s, err = ref.set.Extend(opts...)
		if err != nil {
			panic(fmt.Sprintf("env set %s: %v", key, err))
		}
		envSetsAt[key] = s
	}
	return &envSetRef{key: key, set: s, envType: ref.envType}
}

// defaultEnvSet is the env set of the binary's release: MustBaseEnvSet(DefaultCompatibilityVersion()).
func defaultEnvSet() *envSetRef {
	envSetMu.Lock()
	defer envSetMu.Unlock()
	if defaultSet == nil {
		compat := environment.DefaultCompatibilityVersion()
		defaultSet = &envSetRef{key: compat.String(), set: environment.MustBaseEnvSet(compat), envType: environment.NewExpressions}
	}
	return defaultSet
}

package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// ---------------------------------------------------------------------------
// Target Kubernetes versions (the kubernetesVersion option, 1.30–1.36)
//
// The apiserver's environment package versions every library and option
// (environment/base.go: IntroducedVersion). A release-N apiserver:
//   - compiles expressions being written (NewExpressions) at its default compatibility
//     version, N-1 (DefaultCompatibilityVersion: the binary's MinCompatibilityVersion;
//     hard-coded 1.29 in 1.30): a library introduced in N is usable in new expressions
//     from N+1 on, so that a rollback to N-1 still reads them;
//   - evaluates stored expressions (StoredExpressions) with every library it knows, i.e.
//     those introduced up to N.
// The engine builds both from this binary's MustBaseEnvSet: write-time = compatibility
// N-1, run-time = compatibility N (its NewExpressions env, which holds exactly the options
// introduced up to N). For the binary's own release (1.36) both are the one env set of
// MustBaseEnvSet(DefaultCompatibilityVersion()), as the admission plugins build it.
//
// One option is feature-gated: the authorizer selectors library (AuthorizeWithSelectors:
// alpha, off, in 1.31; on from 1.32). A gate that is on adds its library whatever the
// compatibility version, so env sets for compatibility ≤ 1.30 (write-time 1.30 and 1.31,
// run-time 1.30) are built with the feature gates of release 1.30 (SetEmulationVersion on
// a copy), where the library does not exist.

const (
	oldestMinor = 30
	binaryMinor = 36 // k8s.io/apiserver v0.36.x
)

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
	runStage                   // evaluate(): admission of a stored object
)

// envSetRef is the base env set of one target at one stage and the env type to compile with.
type envSetRef struct {
	key     string // compatibility version, e.g. "1.35"
	set     *environment.EnvSet
	envType environment.Type
}

var (
	envSetMu   sync.Mutex
	envSetsAt  = map[uint]*environment.EnvSet{}
	defaultSet *envSetRef
)

// baseEnvSetAt is MustBaseEnvSet(1.compat), with release 1.30's feature gates below 1.31.
func baseEnvSetAt(compat uint) *environment.EnvSet {
	envSetMu.Lock()
	defer envSetMu.Unlock()
	if s, ok := envSetsAt[compat]; ok {
		return s
	}
	ver := version.MajorMinor(1, compat)
	if compat <= 30 {
		gates := utilfeature.DefaultMutableFeatureGate.DeepCopy()
		if err := gates.SetEmulationVersion(version.MajorMinor(1, 30)); err == nil {
			saved := utilfeature.DefaultFeatureGate
			utilfeature.DefaultFeatureGate = gates
			defer func() { utilfeature.DefaultFeatureGate = saved }()
		}
	}
	s := environment.MustBaseEnvSet(ver)
	envSetsAt[compat] = s
	return s
}

// envSetFor returns the env set for a target release and stage.
func envSetFor(minor uint, stage envStage) *envSetRef {
	if minor == binaryMinor {
		ref := *defaultEnvSet()
		if stage == runStage {
			ref.envType = environment.StoredExpressions
		}
		return &ref
	}
	compat := minor - 1
	if stage == runStage {
		compat = minor
	}
	return &envSetRef{key: fmt.Sprintf("1.%d", compat), set: baseEnvSetAt(compat), envType: environment.NewExpressions}
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

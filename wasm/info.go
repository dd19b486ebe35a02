package main

import (
	"runtime/debug"
	"strings"

	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// ---------------------------------------------------------------------------
// info()

type info struct {
	KubernetesVersion    string `json:"kubernetesVersion"`
	CompatibilityVersion string `json:"compatibilityVersion"`
	APIServerModule      string `json:"apiserverModule"`
	CelGoModule          string `json:"celGoModule"`
	PerCallLimit         int64  `json:"perCallLimit"`
	RuntimeCELCostBudget int64  `json:"runtimeCelCostBudget"`
	MatchConditionBudget int64  `json:"runtimeCelCostBudgetMatchConditions"`
	MaxMessageExprBytes  int    `json:"maxEvaluatedMessageExpressionSizeBytes"`
	CheckFrequency       int    `json:"checkFrequency"`
}

func Info() info {
	i := info{
		CompatibilityVersion: defaultEnvSet().key,
		PerCallLimit:         celconfig.PerCallLimit,
		RuntimeCELCostBudget: celconfig.RuntimeCELCostBudget,
		MatchConditionBudget: celconfig.RuntimeCELCostBudgetMatchConditions,
		MaxMessageExprBytes:  celconfig.MaxEvaluatedMessageExpressionSizeBytes,
		CheckFrequency:       celconfig.CheckFrequency,
	}
	i.APIServerModule, i.CelGoModule, i.KubernetesVersion = moduleVersions()
	return i
}

func moduleVersions() (apiserver, celgo, kube string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", "", ""
	}
	for _, d := range bi.Deps {
		switch d.Path {
		case "k8s.io/apiserver":
			apiserver = d.Version
		case "github.com/google/cel-go":
			celgo = d.Version
		}
	}
	// k8s.io/* staging modules v0.X.Y are Kubernetes 1.X.Y.
	if strings.HasPrefix(apiserver, "v0.") {
		kube = "1." + strings.TrimPrefix(apiserver, "v0.")
	}
	return
}

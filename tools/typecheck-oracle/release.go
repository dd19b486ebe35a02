package main

import (
	"runtime/debug"
	"strings"
)

// provenance: the k8s.io modules the binary was built with (go.mod for 1.37, -modfile
// go.1.N.mod for an older release), as the schema asset records them.
var provenance = modulesBuiltWith()

// release is the Kubernetes minor the binary was built on ("1.31" from k8s.io/kubernetes v1.31.14).
var release = minorOf(provenance["k8s.io/kubernetes"])

var provenanceModules = []string{"k8s.io/kubernetes", "k8s.io/api", "k8s.io/apiextensions-apiserver", "k8s.io/apimachinery", "k8s.io/apiserver", "k8s.io/kube-openapi"}

func modulesBuiltWith() map[string]string {
	out := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	for _, d := range info.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		for _, p := range provenanceModules {
			if d.Path == p {
				out[p] = m.Version
			}
		}
	}
	return out
}

func minorOf(v string) string {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return "unknown"
	}
	return parts[0] + "." + parts[1]
}

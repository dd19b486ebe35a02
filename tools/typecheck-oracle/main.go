// Command typecheck-oracle runs the kube-controller-manager's type checking of
// ValidatingAdmissionPolicies (k8s.io/apiserver's validating.TypeChecker with
// resolver.NewDefinitionsSchemaResolver over k8s.io/kubernetes' generated OpenAPI
// definitions and the schemes kube-controller-manager passes, as
// cmd/kube-controller-manager/app/validatingadmissionpolicystatus.go builds it), and
// writes the schema asset the Workbench's engine type-checks with.
//
//	typecheck-oracle schemas OUT.json
//	    the definitions of every kind with metadata (what admission can match), with the
//	    definitions they reference, descriptions dropped; {"release","modules":{path: version},
//	    "gvks":{"group/version/Kind": name},"definitions":{name: schema}}; the release and the
//	    module versions are the ones the binary was built with (release.go)
//	typecheck-oracle check < cases.json
//	    cases: [{"policy": {…ValidatingAdmissionPolicy…}, "mappings": [{"group","version","resource","kind"}]}]
//	    answers: [{"warnings": [{"fieldRef","warning"}]}] (status.typeChecking.expressionWarnings)
//
// The REST mapping is the case's (kube-controller-manager's comes from discovery); CRD kinds
// are not resolved (KCM's second resolver reads them from the apiserver's /openapi/v3).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: typecheck-oracle schemas OUT.json | types OUT.json | decode < objects.json | check < cases.json")
	}
	switch os.Args[1] {
	case "schemas":
		if len(os.Args) < 3 {
			fail("schemas OUT.json")
		}
		writeSchemas(os.Args[2])
	case "check":
		check()
	case "types":
		if len(os.Args) < 3 {
			fail("types OUT.json")
		}
		writeTypes(os.Args[2])
	case "decode":
		decode()
	default:
		fail("unknown command " + os.Args[1])
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "typecheck-oracle:", msg)
	os.Exit(2)
}

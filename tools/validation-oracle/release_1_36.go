//go:build !k8s130 && !k8s137 && !k8s138

package main

// release names the k8s.io/kubernetes line this build runs.
const release = "1.36"

// validateCreate: rest.BeforeCreate's validation in 1.36 (no declarative validation for these kinds).
var validateCreate = handwrittenCreate

//go:build !k8s130 && !k8s136

package main

const release = "1.37"

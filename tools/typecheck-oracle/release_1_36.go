//go:build k8s136

package main

const release = "1.36"

//go:build k8s130

package main

const release = "1.30"

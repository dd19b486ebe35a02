//go:build typesonly

package main

// Built with -tags typesonly: only the `types` and `decode` commands (schemas.go is left out).

func check() { fail("built with -tags typesonly: no type checker") }

func writeSchemas(string) { fail("built with -tags typesonly: no schema asset") }

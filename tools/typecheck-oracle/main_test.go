//go:build !typesonly

package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestMain makes the test binary the oracle too: `typecheck-oracle.test check < cases.json` runs
// main, `-test.*` flags (or none) run the tests. The suite links one binary of 1.37's generated
// OpenAPI for both (tools/go-oracle.mjs) instead of two.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The type names the checker gives the object's kind (generateUniqueTypeName: kind + time.Now().Nanosecond()).
var uniqueTypeName = regexp.MustCompile(`\b([A-Z][A-Za-z]*)\d{1,9}\b`)

// TestFixtures runs the real type checker on testdata/cases.json and compares with
// testdata/warnings-<release>.json (UPDATE=1 writes it), type names without their numbers.
func TestFixtures(t *testing.T) {
	in, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []checkCase
	if err := json.Unmarshal(in, &cases); err != nil {
		t.Fatal(err)
	}
	got := checkCases(cases)
	for i := range got {
		for j := range got[i].Warnings {
			got[i].Warnings[j].Warning = uniqueTypeName.ReplaceAllString(got[i].Warnings[j].Warning, "$1")
		}
	}
	b, _ := json.MarshalIndent(got, "", " ")
	file := "testdata/warnings-" + release + ".json"
	if os.Getenv("UPDATE") != "" {
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (UPDATE=1 go test writes it)", err)
	}
	if string(want) != string(b)+"\n" {
		t.Errorf("%s differs from the type checker's warnings now:\n%s", file, b)
	}
}

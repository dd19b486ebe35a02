// workbench: k8s.io/apiserver v0.37.2 pkg/cel/openapi/resolver/refs.go, PopulateRefs on the
// checker's own schema type: schemaNode (schema.go) for kube-openapi's spec.Schema, whose JSON
// library the engine does not link. spec.Schema's fields are schemaNode's lower-case ones
// (Properties, AdditionalProperties.Schema, AllOf, Ref), but properties, allOf and items hold
// pointers and items is the schema itself (upstream Items.Schema). Every change from upstream is
// marked "workbench:". typecheck.go's assetResolver calls it as resolver.DefinitionsSchemaResolver
// does. Compare with upstream, in wasm/ (see README.md, "Upstream copies"):
//
//	diff -u "$(go list -m -f '{{.Dir}}' k8s.io/apiserver)/pkg/cel/openapi/resolver/refs.go" upstream_refs.go

/*
Copyright 2023 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main // workbench: package resolver

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
	// workbench: no "k8s.io/kube-openapi/pkg/validation/spec"
)

// PopulateRefs recursively replaces Refs in the schema with the referred one.
// schemaOf is the callback to find the corresponding schema by the ref.
// This function will not mutate the original schema. If the schema needs to be
// mutated, a copy will be returned, otherwise it returns the original schema.
func PopulateRefs(schemaOf func(ref string) (*schemaNode, bool), rootRef string) (*schemaNode, error) { // workbench: schemaNode
	visitedRefs := sets.New[string]()
	rootSchema, ok := schemaOf(rootRef)
	visitedRefs.Insert(rootRef)
	if !ok {
		return nil, fmt.Errorf("internal error: cannot resolve Ref for root schema %q: %w", rootRef, ErrSchemaNotFound)
	}
	return populateRefs(schemaOf, visitedRefs, rootSchema)
}

func populateRefs(schemaOf func(ref string) (*schemaNode, bool), visited sets.Set[string], schema *schemaNode) (*schemaNode, error) { // workbench: schemaNode
	result := *schema
	changed := false

	ref, isRef := refOf(schema)
	if isRef {
		if visited.Has(ref) {
			return &schemaNode{ // workbench: schemaNode
				// for circular ref, return an empty object as placeholder
				typ: []string{"object"}, // workbench: upstream SchemaProps: spec.SchemaProps{Type: []string{"object"}},
			}, nil
		}
		visited.Insert(ref)
		// restore visited state at the end of the recursion.
		defer func() {
			visited.Delete(ref)
		}()
		// replace the whole schema with the referred one.
		resolved, ok := schemaOf(ref)
		if !ok {
			return nil, fmt.Errorf("internal error: cannot resolve Ref %q: %w", ref, ErrSchemaNotFound)
		}
		result = *resolved
		changed = true
	}
	// schema is an object, populate its properties and additionalProperties
	props := make(map[string]*schemaNode, len(schema.properties)) // workbench: schemaNode, pointers
	propsChanged := false
	for name, prop := range result.properties { // workbench: schemaNode
		populated, err := populateRefs(schemaOf, visited, prop) // workbench: prop is a pointer
		if err != nil {
			return nil, err
		}
		if populated != prop { // workbench: prop is a pointer
			propsChanged = true
		}
		props[name] = populated // workbench: a pointer
	}
	if propsChanged {
		changed = true
		result.properties = props // workbench: schemaNode
	}
	if result.additionalProperties != nil && result.additionalProperties.schema != nil { // workbench: schemaNode
		populated, err := populateRefs(schemaOf, visited, result.additionalProperties.schema) // workbench: schemaNode
		if err != nil {
			return nil, err
		}
		if populated != result.additionalProperties.schema { // workbench: schemaNode
			changed = true
			newProps := *result.additionalProperties // workbench: schemaNode
			newProps.schema = populated              // workbench: schemaNode
			result.additionalProperties = &newProps  // workbench: schemaNode
		}
	}
	// schema is a list, populate its items
	if result.items != nil { // workbench: items is the schema (upstream Items.Schema)
		populated, err := populateRefs(schemaOf, visited, result.items) // workbench: schemaNode
		if err != nil {
			return nil, err
		}
		if populated != result.items { // workbench: schemaNode
			changed = true
			result.items = populated // workbench: upstream copies Items (a SchemaOrArray) with Schema: populated
		}
	}
	if changed {
		return &result, nil
	}
	return schema, nil
}

func refOf(schema *schemaNode) (string, bool) { // workbench: schemaNode
	if schema.ref != "" { // workbench: upstream schema.Ref.GetURL() != nil
		return schema.ref, true // workbench: upstream schema.Ref.String()
	}
	// A Ref may be wrapped in allOf to preserve its description
	// see https://github.com/kubernetes/kubernetes/issues/106387
	// For kube-openapi, allOf is only used for wrapping a Ref.
	for _, allOf := range schema.allOf { // workbench: schemaNode, pointers
		if ref, isRef := refOf(allOf); isRef { // workbench: allOf is a pointer
			return ref, isRef
		}
	}
	return "", false
}

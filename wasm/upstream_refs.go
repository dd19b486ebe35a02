package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
)

// populateRefsFrom is resolver.PopulateRefs (k8s.io/apiserver pkg/cel/openapi/resolver/refs.go).
func populateRefsFrom(schemaOf func(ref string) (*schemaNode, bool), rootRef string) (*schemaNode, error) {
	visitedRefs := sets.New[string]()
	rootSchema, ok := schemaOf(rootRef)
	visitedRefs.Insert(rootRef)
	if !ok {
		return nil, fmt.Errorf("internal error: cannot resolve Ref for root schema %q: %w", rootRef, errSchemaNotFound)
	}
	return populateRefs(schemaOf, visitedRefs, rootSchema)
}

// populateRefs: resolver/refs.go's on schemaNode (properties hold pointers: a property is
// changed when its populated schema is another node).
func populateRefs(schemaOf func(ref string) (*schemaNode, bool), visited sets.Set[string], schema *schemaNode) (*schemaNode, error) {
	result := *schema
	changed := false

	ref, isRef := refOf(schema)
	if isRef {
		if visited.Has(ref) {
			// for circular ref, return an empty object as placeholder
			return &schemaNode{typ: []string{"object"}}, nil
		}
		visited.Insert(ref)
		// restore visited state at the end of the recursion.
		defer func() {
			visited.Delete(ref)
		}()
		// replace the whole schema with the referred one.
		resolved, ok := schemaOf(ref)
		if !ok {
			return nil, fmt.Errorf("internal error: cannot resolve Ref %q: %w", ref, errSchemaNotFound)
		}
		result = *resolved
		changed = true
	}
	// schema is an object, populate its properties and additionalProperties
	props := make(map[string]*schemaNode, len(schema.properties))
	propsChanged := false
	for name, prop := range result.properties {
		populated, err := populateRefs(schemaOf, visited, prop)
		if err != nil {
			return nil, err
		}
		if populated != prop {
			propsChanged = true
		}
		props[name] = populated
	}
	if propsChanged {
		changed = true
		result.properties = props
	}
	if result.additionalProperties != nil && result.additionalProperties.schema != nil {
		populated, err := populateRefs(schemaOf, visited, result.additionalProperties.schema)
		if err != nil {
			return nil, err
		}
		if populated != result.additionalProperties.schema {
			changed = true
			newProps := *result.additionalProperties
			newProps.schema = populated
			result.additionalProperties = &newProps
		}
	}
	// schema is a list, populate its items
	if result.items != nil {
		populated, err := populateRefs(schemaOf, visited, result.items)
		if err != nil {
			return nil, err
		}
		if populated != result.items {
			changed = true
			result.items = populated
		}
	}
	if changed {
		return &result, nil
	}
	return schema, nil
}

func refOf(schema *schemaNode) (string, bool) {
	if schema.ref != "" { // upstream: schema.Ref.GetURL() != nil
		return schema.ref, true
	}
	// A Ref may be wrapped in allOf to preserve its description
	// see https://github.com/kubernetes/kubernetes/issues/106387
	// For kube-openapi, allOf is only used for wrapping a Ref.
	for _, allOf := range schema.allOf {
		if ref, isRef := refOf(allOf); isRef {
			return ref, isRef
		}
	}
	return "", false
}

package main

// The cluster a legacy policy's `context` reads: the ConfigMaps its configMap entries resolve
// (pkg/engine/context/loaders/configmap.go through a ConfigmapResolver) and the request's
// Namespace, which an apiCall of /api/v1/namespaces/<name> fetches. A request that gives neither
// is decided as before, with those loaders disabled (as `kyverno test` runs without a cluster).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"

	engineapi "github.com/kyverno/kyverno/pkg/engine/api"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// configMaps resolves the request's ConfigMaps by namespace and name; any other is NotFound, as a
// lister answers.
type configMaps []corev1.ConfigMap

func (c configMaps) Get(_ context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	for i := range c {
		if c[i].Namespace == namespace && c[i].Name == name {
			return c[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func decodeConfigMaps(raw []map[string]any) (configMaps, error) {
	out := make(configMaps, 0, len(raw))
	for _, m := range raw {
		var cm corev1.ConfigMap
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &cm); err != nil {
			return nil, fmt.Errorf("configMap: %w", err)
		}
		out = append(out, cm)
	}
	return out, nil
}

// cluster is the engine's client: GET /api/v1/namespaces/<name> answers the request's Namespace
// (as the apiserver encodes it), every other call fails as a call the cluster refuses.
type cluster struct {
	namespace map[string]any
}

var _ engineapi.Client = cluster{}

func (c cluster) RawAbsPath(_ context.Context, p string, method string, _ io.Reader) ([]byte, error) {
	name, ok := "", false
	if dir, base := path.Split(path.Clean(p)); dir == "/api/v1/namespaces/" {
		name, ok = base, true
	}
	if method != "" && method != http.MethodGet || !ok {
		return nil, apierrors.NewForbidden(schema.GroupResource{}, p, fmt.Errorf("the oracle serves only the request's Namespace"))
	}
	if c.namespace == nil || (&unstructured.Unstructured{Object: c.namespace}).GetName() != name {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return json.Marshal(c.namespace)
}

func (c cluster) CanI(context.Context, string, string, string, string, string) (bool, string, error) {
	return false, "", fmt.Errorf("the oracle has no authorizer")
}

func (c cluster) GetResource(_ context.Context, apiVersion, kind, _, name string, _ ...string) (*unstructured.Unstructured, error) {
	if apiVersion == "v1" && kind == "Namespace" && c.namespace != nil && (&unstructured.Unstructured{Object: c.namespace}).GetName() == name {
		return &unstructured.Unstructured{Object: c.namespace}, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: kind}, name)
}

func (c cluster) ListResource(context.Context, string, string, string, *metav1.LabelSelector) (*unstructured.UnstructuredList, error) {
	return nil, fmt.Errorf("the oracle lists nothing")
}

func (c cluster) GetResources(context.Context, string, string, string, string, string, string, *metav1.LabelSelector) ([]engineapi.Resource, error) {
	return nil, fmt.Errorf("the oracle lists nothing")
}

func (c cluster) GetNamespace(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	if c.namespace == nil || (&unstructured.Unstructured{Object: c.namespace}).GetName() != name {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	var ns corev1.Namespace
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(c.namespace, &ns); err != nil {
		return nil, err
	}
	return &ns, nil
}

func (c cluster) IsNamespaced(string, string, string) (bool, error) {
	return false, fmt.Errorf("the oracle has no discovery")
}

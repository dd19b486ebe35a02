package main

// `kyverno-oracle serve POLICIES.yaml`: Kyverno's own resource validating webhook for a kube-apiserver
// to call (tools/admission-oracle's TestKyvernoAuditLog). The handler is Kyverno v1.19's
// pkg/webhooks/resource (resourceHandlers.Validate, built by its NewFakeHandlers: Kyverno's engine and
// policy cache with fake clients for what a webhook call does not need: reports, events, update
// requests, an empty Namespace lister), wrapped as pkg/webhooks/server.go wraps it for
// /validate/fail (WithFilter with the default configuration, WithAdmission: Kyverno's AdmissionReview
// decoding and encoding). What is not Kyverno's: the policy cache is filled from the file instead of
// informers, discovery is a table of the fixture's resources (discoveredResources), the top-level
// GVK is the request's kind (what WithTopLevelGVK's discovery answers for a request without a
// subresource), and WithRoles is left out (no policy of the fixture reads roles).
//
// It listens on 127.0.0.1 with a certificate it makes, prints one JSON line {"url", "caBundle"}
// and serves until its standard input closes.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	kyvernov1 "github.com/kyverno/kyverno/api/kyverno/v1"
	"github.com/kyverno/kyverno/ext/wildcard"
	"github.com/kyverno/kyverno/pkg/clients/dclient"
	"github.com/kyverno/kyverno/pkg/config"
	"github.com/kyverno/kyverno/pkg/metrics"
	"github.com/kyverno/kyverno/pkg/policycache"
	"github.com/kyverno/kyverno/pkg/webhooks/handlers"
	"github.com/kyverno/kyverno/pkg/webhooks/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// discoveredResources: the top-level resources the fixture's policies may name, as the apiserver's
// discovery lists them (group, version, kind, resource).
var discoveredResources = [][4]string{
	{"", "v1", "ConfigMap", "configmaps"},
	{"", "v1", "Namespace", "namespaces"},
	{"", "v1", "Pod", "pods"},
	{"", "v1", "Secret", "secrets"},
	{"", "v1", "Service", "services"},
	{"", "v1", "ReplicationController", "replicationcontrollers"},
	{"apps", "v1", "Deployment", "deployments"},
	{"apps", "v1", "DaemonSet", "daemonsets"},
	{"apps", "v1", "StatefulSet", "statefulsets"},
	{"apps", "v1", "ReplicaSet", "replicasets"},
	{"batch", "v1", "Job", "jobs"},
	{"batch", "v1", "CronJob", "cronjobs"},
}

type resourceTable struct{}

// FindResources answers as dclient's discovery does for a kind selector's parts ("*" and "" match any group or version).
func (resourceTable) FindResources(group, version, kind, subresource string) (map[dclient.TopLevelApiDescription]metav1.APIResource, error) {
	out := map[dclient.TopLevelApiDescription]metav1.APIResource{}
	if subresource != "" {
		return out, nil
	}
	for _, r := range discoveredResources {
		if (group != "*" && group != r[0]) || (version != "*" && version != "" && version != r[1]) || !wildcard.Match(kind, r[2]) {
			continue
		}
		gv := schema.GroupVersion{Group: r[0], Version: r[1]}
		out[dclient.TopLevelApiDescription{GroupVersion: gv, Kind: r[2], Resource: r[3]}] = metav1.APIResource{Name: r[3], Kind: r[2], Group: r[0], Version: r[1], Namespaced: r[2] != "Namespace"}
	}
	return out, nil
}

// readPolicies: the ClusterPolicies and Policies of a YAML or JSON file (documents separated by ---).
func readPolicies(path string) ([]kyvernov1.PolicyInterface, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []kyvernov1.PolicyInterface
	for _, doc := range strings.Split("\n"+string(raw), "\n---") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, err
		}
		var head struct{ Kind string }
		if err := json.Unmarshal(js, &head); err != nil || head.Kind == "" {
			continue // a comment-only document
		}
		switch head.Kind {
		case "ClusterPolicy":
			p := &kyvernov1.ClusterPolicy{}
			err = json.Unmarshal(js, p)
			out = append(out, p)
		case "Policy":
			p := &kyvernov1.Policy{}
			err = json.Unmarshal(js, p)
			out = append(out, p)
		default:
			err = fmt.Errorf("serve takes ClusterPolicy and Policy documents, not %s", head.Kind)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kyverno-svc.kyverno.svc"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

func serve(policyFile string) error {
	policies, err := readPolicies(policyFile)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cache := policycache.NewCache()
	for _, p := range policies {
		key := p.GetName()
		if p.GetNamespace() != "" {
			key = p.GetNamespace() + "/" + p.GetName()
		}
		if err := cache.Set(key, p, resourceTable{}); err != nil {
			return fmt.Errorf("policy %s: %w", key, err)
		}
	}
	rh := resource.NewFakeHandlers(ctx, cache)
	cfg := config.NewDefaultConfiguration(false)
	logger := logr.Discard()
	validate := handlers.FromAdmissionFunc("VALIDATE", func(ctx context.Context, logger logr.Logger, request handlers.AdmissionRequest, start time.Time) handlers.AdmissionResponse {
		return rh.Validate(ctx, logger, request, "fail", start)
	}).WithFilter(cfg).WithMetrics(logger, metrics.WebhookValidating)
	topLevel := func(ctx context.Context, logger logr.Logger, request handlers.AdmissionRequest, start time.Time) handlers.AdmissionResponse {
		request.GroupVersionKind = schema.GroupVersionKind(request.Kind)
		return validate(ctx, logger, request, start)
	}
	mux := http.NewServeMux()
	mux.Handle("POST "+config.ValidatingWebhookServicePath+"/fail", handlers.AdmissionHandler(topLevel).WithAdmission(logger).ToHandlerFunc("VALIDATE"))

	cert, caPEM, err := selfSigned()
	if err != nil {
		return err
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	line, _ := json.Marshal(map[string]string{
		"url":      fmt.Sprintf("https://%s%s/fail", ln.Addr().String(), config.ValidatingWebhookServicePath),
		"caBundle": base64.StdEncoding.EncodeToString(caPEM),
	})
	fmt.Println(string(bytes.TrimSpace(line)))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return srv.Close()
}

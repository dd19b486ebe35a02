package main

// `gatekeeper-oracle serve POLICIES.yaml CLUSTER.json`: Gatekeeper v3.23's own validating webhook
// for a kube-apiserver to call (tools/admission-oracle's TestGatekeeperAuditLog). The handler is
// pkg/webhook's, registered by its own AddPolicyWebhook on /v1/admit of a controller-runtime webhook
// server (its mux, behind a listener made here), with the dependencies main.go gives it: the
// constraint client (newEngine: CEL and Rego drivers), the process excluder (process.Get, no Config
// exclusions), the mutation and expansion systems (none installed). The handler reads the request's
// Namespace from the apiserver as Gatekeeper does, through a controller-runtime client made from
// CLUSTER.json ({"host", "caData", "serverName", "token"}: the apiserver and Gatekeeper's service account token).
// What is not Gatekeeper's: the templates and constraints are loaded from the file (not by the
// template and constraint controllers from the cluster), and the client is not cached (Gatekeeper's
// manager client reads Namespaces from an informer; both answer the current state).
//
// It listens on 127.0.0.1 with a certificate it makes, prints one JSON line {"url", "caBundle"}
// and serves until its standard input closes.

import (
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
	"time"

	"github.com/go-logr/logr"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/controller/config/process"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/expansion"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/mutation"
	gkwebhook "github.com/open-policy-agent/gatekeeper/v3/pkg/webhook"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// webhookManager: the parts of a controller-runtime manager AddPolicyWebhook uses (its config for
// an event recorder, its client and API reader, its webhook server); any other call would panic.
type webhookManager struct {
	manager.Manager
	cfg    *rest.Config
	client client.Client
	server webhook.Server
}

func (m *webhookManager) GetConfig() *rest.Config          { return m.cfg }
func (m *webhookManager) GetClient() client.Client         { return m.client }
func (m *webhookManager) GetAPIReader() client.Reader      { return m.client }
func (m *webhookManager) GetWebhookServer() webhook.Server { return m.server }
func (m *webhookManager) GetScheme() *runtime.Scheme       { return clientgoscheme.Scheme }

type clusterConn struct {
	Host       string `json:"host"`
	CAData     string `json:"caData"`
	ServerName string `json:"serverName"`
	Token      string `json:"token"`
}

func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gatekeeper-webhook-service.gatekeeper-system.svc"},
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

func serve(policyFile, connFile string) error {
	logf.SetLogger(logr.Discard())
	tmpls, constraints, err := readObjects(policyFile)
	if err != nil {
		return err
	}
	rawConn, err := os.ReadFile(connFile)
	if err != nil {
		return err
	}
	var conn clusterConn
	if err := json.Unmarshal(rawConn, &conn); err != nil {
		return fmt.Errorf("%s: %w", connFile, err)
	}
	ca, err := base64.StdEncoding.DecodeString(conn.CAData)
	if err != nil {
		return fmt.Errorf("%s: caData: %w", connFile, err)
	}
	cfg := &rest.Config{Host: conn.Host, BearerToken: conn.Token, TLSClientConfig: rest.TLSClientConfig{CAData: ca, ServerName: conn.ServerName}, UserAgent: "gatekeeper/v3.23.1"}
	kube, err := client.New(cfg, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	engine, err := newEngine(true)
	if err != nil {
		return err
	}
	if err := load(ctx, engine, tmpls, constraints); err != nil {
		return err
	}
	mutations := mutation.NewSystem(mutation.SystemOpts{})
	server := webhook.NewServer(webhook.Options{})
	mgr := &webhookManager{cfg: cfg, client: kube, server: server}
	deps := gkwebhook.Dependencies{OpaClient: engine, ProcessExcluder: process.Get(), MutationSystem: mutations, ExpansionSystem: expansion.NewSystem(mutations)}
	if err := gkwebhook.AddPolicyWebhook(mgr, deps); err != nil {
		return err
	}

	cert, caPEM, err := selfSigned()
	if err != nil {
		return err
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13})
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: server.WebhookMux(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	line, _ := json.Marshal(map[string]string{
		"url":      fmt.Sprintf("https://%s/v1/admit", ln.Addr().String()),
		"caBundle": base64.StdEncoding.EncodeToString(caPEM),
	})
	fmt.Println(string(line))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return srv.Close()
}

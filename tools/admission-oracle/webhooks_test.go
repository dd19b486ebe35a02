package oracle

// The scenario's webhooks: one local TLS server (a CA made in-process) answering each
// webhook as the scenario says and recording the calls in order, and for "unavailable"
// a TCP listener per webhook that accepts and closes at once (the apiserver's call
// fails; the attempt is still recorded).

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// response: "allow" | "deny" | "unavailable" | {"patch": [...]} | {"warnings": [...]}.
type response struct {
	kind     string
	patch    json.RawMessage
	warnings []string
}

func parseResponse(raw json.RawMessage) (response, error) {
	if len(raw) == 0 {
		return response{kind: "allow"}, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		switch s {
		case "allow", "deny", "unavailable":
			return response{kind: s}, nil
		}
		return response{}, fmt.Errorf("unknown webhook response %q", s)
	}
	var o struct {
		Patch    json.RawMessage `json:"patch"`
		Warnings []string        `json:"warnings"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return response{}, err
	}
	if o.Patch != nil {
		return response{kind: "patch", patch: o.Patch}, nil
	}
	return response{kind: "warnings", warnings: o.Warnings}, nil
}

// Call is one webhook call the apiserver made, in order.
type Call struct {
	Webhook       string `json:"webhook"`
	Configuration string `json:"configuration"`
	Operation     string `json:"operation,omitempty"`
	DryRun        bool   `json:"dryRun,omitempty"`
	// Unavailable: the call reached the closed endpoint (the apiserver saw an error).
	Unavailable bool `json:"unavailable,omitempty"`
	// Object: what the webhook was sent (request.object).
	Object json.RawMessage `json:"object,omitempty"`
}

type hooks struct {
	caPEM []byte
	addr  string
	srv   *http.Server

	mu        sync.Mutex
	responses map[string]response // "<configuration>/<webhook>"
	calls     []Call
	closers   []net.Listener
}

func newHooks() (*hooks, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "admission-oracle-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	h := &hooks{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), responses: map[string]response{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h.addr = ln.Addr().String()
	h.srv = &http.Server{
		Handler:   http.HandlerFunc(h.serve),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
		ErrorLog:  nil,
	}
	go h.srv.ServeTLS(ln, "", "")
	return h, nil
}

// reset forgets the previous scenario's responses, calls and closed endpoints.
func (h *hooks) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.closers {
		l.Close()
	}
	h.closers = nil
	h.calls = nil
	h.responses = map[string]response{}
}

func (h *hooks) takeCalls() []Call {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.calls
	h.calls = nil
	return out
}

func (h *hooks) record(c Call) {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	h.mu.Unlock()
}

// urlFor: where the apiserver calls this webhook. "unavailable": a listener that accepts and closes.
func (h *hooks) urlFor(configuration, webhook string, r response) (string, error) {
	h.mu.Lock()
	h.responses[configuration+"/"+webhook] = r
	h.mu.Unlock()
	if r.kind != "unavailable" {
		return fmt.Sprintf("https://%s/hook/%s/%s", h.addr, configuration, webhook), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	h.closers = append(h.closers, ln)
	h.mu.Unlock()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			h.record(Call{Webhook: webhook, Configuration: configuration, Unavailable: true})
			conn.Close()
		}
	}()
	return fmt.Sprintf("https://%s/unavailable/%s/%s", ln.Addr().String(), configuration, webhook), nil
}

type admissionReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID       string          `json:"uid"`
		Operation string          `json:"operation"`
		DryRun    *bool           `json:"dryRun"`
		Object    json.RawMessage `json:"object"`
	} `json:"request,omitempty"`
	Response *reviewResponse `json:"response,omitempty"`
}

type reviewResponse struct {
	UID       string   `json:"uid"`
	Allowed   bool     `json:"allowed"`
	Patch     []byte   `json:"patch,omitempty"`
	PatchType *string  `json:"patchType,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

func (h *hooks) serve(w http.ResponseWriter, req *http.Request) {
	parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/hook/"), "/")
	if len(parts) != 2 {
		http.Error(w, "unknown webhook path", http.StatusNotFound)
		return
	}
	configuration, webhook := parts[0], parts[1]
	body, _ := io.ReadAll(req.Body)
	var review admissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "bad AdmissionReview", http.StatusBadRequest)
		return
	}
	h.record(Call{
		Webhook: webhook, Configuration: configuration, Operation: review.Request.Operation,
		DryRun: review.Request.DryRun != nil && *review.Request.DryRun, Object: review.Request.Object,
	})
	h.mu.Lock()
	r := h.responses[configuration+"/"+webhook]
	h.mu.Unlock()
	resp := &reviewResponse{UID: review.Request.UID, Allowed: r.kind != "deny"}
	switch r.kind {
	case "patch":
		jsonPatch := "JSONPatch"
		resp.Patch, resp.PatchType = r.patch, &jsonPatch
	case "warnings":
		resp.Warnings = r.warnings
	}
	out, _ := json.Marshal(admissionReview{APIVersion: review.APIVersion, Kind: "AdmissionReview", Response: resp})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

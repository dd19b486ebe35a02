package oracle

// TestFieldValidation: what the apiserver answers to a create with unknown or duplicate fields
// under each field validation directive (`?fieldValidation=Strict|Warn|Ignore`, kubectl sends
// Strict), for JSON and YAML bodies, as a dry run. Plain HTTP, so the body reaches the server as
// written (a client library would re-encode it and drop the duplicates). The TypeScript side
// (fieldvalidation.test.ts) compares the Workbench's answers in each mode with these.
//
//	FIELDVALIDATION_IN=cases.json FIELDVALIDATION_OUT=answers.json ./admission-oracle.test -test.run '^TestFieldValidation$'

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// FieldValidationCase: one body, sent once per mode.
type FieldValidationCase struct {
	Name string `json:"name"`
	// Path: the collection, e.g. /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations.
	Path        string   `json:"path"`
	ContentType string   `json:"contentType"`
	Body        string   `json:"body"`
	Modes       []string `json:"modes"`
}

// FieldValidationAnswer: the apiserver's answer to one case in one mode.
type FieldValidationAnswer struct {
	Name     string   `json:"name"`
	Mode     string   `json:"mode"`
	Code     int      `json:"code"`
	Reason   string   `json:"reason,omitempty"`
	Message  string   `json:"message,omitempty"`
	Warnings []string `json:"warnings"`
	Error    string   `json:"error,omitempty"`
}

func TestFieldValidation(t *testing.T) {
	in, out := os.Getenv("FIELDVALIDATION_IN"), os.Getenv("FIELDVALIDATION_OUT")
	if in == "" || out == "" {
		t.Skip("FIELDVALIDATION_IN and FIELDVALIDATION_OUT name the case and answer files")
	}
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var cases []FieldValidationCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	sv, err := startServer(t, startEtcd(t), "/fieldvalidation", &Scenario{})
	if err != nil {
		t.Fatal(err)
	}
	defer sv.stop()
	client, err := rest.HTTPClientFor(sv.admin)
	if err != nil {
		t.Fatal(err)
	}
	answers := []FieldValidationAnswer{}
	for _, c := range cases {
		for _, mode := range c.Modes {
			a := sendCase(client, sv.admin.Host, c, mode)
			a.Name, a.Mode = c.Name, mode
			answers = append(answers, a)
		}
	}
	b, _ := json.MarshalIndent(answers, "", " ")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sendCase(client *http.Client, host string, c FieldValidationCase, mode string) (a FieldValidationAnswer) {
	a.Warnings = []string{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := fmt.Sprintf("%s%s?dryRun=All&fieldValidation=%s", host, c.Path, mode)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewBufferString(c.Body))
	if err != nil {
		a.Error = err.Error()
		return
	}
	req.Header.Set("Content-Type", c.ContentType)
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		a.Error = err.Error()
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a.Code = resp.StatusCode
	warnings, _ := utilnet.ParseWarningHeaders(resp.Header.Values("Warning"))
	for _, w := range warnings {
		a.Warnings = append(a.Warnings, w.Text)
	}
	if resp.StatusCode >= 300 {
		var st metav1.Status
		if err := json.Unmarshal(body, &st); err != nil {
			a.Error = fmt.Sprintf("not a Status (%v): %s", err, body)
			return
		}
		a.Reason, a.Message = string(st.Reason), st.Message
	}
	return
}

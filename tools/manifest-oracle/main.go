// Command manifest-oracle runs the kube-apiserver 1.37 static manifest loaders
// (k8s.io/kubernetes v1.37.2 pkg/admission/plugin/{webhook,policy}/manifest/loader,
// over k8s.io/apiserver v0.37.2 pkg/admission/plugin/manifest) on manifest sets, and
// reads each set's AdmissionConfiguration as the apiserver does
// (admission.ReadAdmissionConfiguration, then each plugin's LoadConfig).
//
// stdin: a JSON list of sets {"base": "/etc/…", "files": {"<plugin dir>/<file>": "<text>",
// "admission-configuration.yaml": "<text>"}}. Each set is written under a temporary
// directory; every path under base in the AdmissionConfiguration is moved there.
// A set may also carry "api": MutatingWebhookConfigurations stored through the API; then
// "mutatingOrder" is the order the MutatingAdmissionWebhook plugin, configured by the set's
// AdmissionConfiguration, calls the static and API webhooks in (order.go).
// stdout: a JSON list, per set: {"loaders": {"<plugin>": "<error or empty>"},
// "configuration": {"<plugin>": "<staticManifestsDir as read, or error: …>"},
// "mutatingOrder": ["<configuration>/<webhook>", …]}, with the temporary directory written
// back as base in every message.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	policyconfig "k8s.io/apiserver/pkg/admission/plugin/policy/config"
	webhookconfig "k8s.io/apiserver/pkg/admission/plugin/webhook/config"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	apiserverinstall "k8s.io/apiserver/pkg/apis/apiserver/install"
	policyloader "k8s.io/kubernetes/pkg/admission/plugin/policy/manifest/loader"
	webhookloader "k8s.io/kubernetes/pkg/admission/plugin/webhook/manifest/loader"
)

type set struct {
	Base  string                                                 `json:"base"`
	Files map[string]string                                      `json:"files"`
	API   []admissionregistrationv1.MutatingWebhookConfiguration `json:"api,omitempty"`
}

type result struct {
	Loaders       map[string]string `json:"loaders"`
	Configuration map[string]string `json:"configuration,omitempty"`
	MutatingOrder []string          `json:"mutatingOrder,omitempty"`
}

// The plugins and the directory each reads (src/k8s/static-manifests.ts MANIFEST_PLUGINS).
var plugins = []struct {
	name, dir string
	load      func(dir string) error
}{
	{"MutatingAdmissionPolicy", "mutating-admission-policies", func(d string) error { _, err := policyloader.LoadMutatingManifestsFromDirectory(d); return err }},
	{"MutatingAdmissionWebhook", "mutating-webhooks", func(d string) error { _, err := webhookloader.LoadMutatingManifests(d); return err }},
	{"ValidatingAdmissionPolicy", "validating-admission-policies", func(d string) error { _, err := policyloader.LoadValidatingManifestsFromDirectory(d); return err }},
	{"ValidatingAdmissionWebhook", "validating-webhooks", func(d string) error { _, err := webhookloader.LoadValidatingManifests(d); return err }},
}

func readConfig(plugin string, r io.Reader) (string, error) {
	switch plugin {
	case "ValidatingAdmissionWebhook", "MutatingAdmissionWebhook":
		b, err := io.ReadAll(r)
		if err != nil {
			return "", err
		}
		// the plugin's own constructor: from 1.38 the validating one refuses a staticOrder other than StaticFirst
		if plugin == "ValidatingAdmissionWebhook" {
			_, err = validating.NewValidatingAdmissionWebhook(bytes.NewReader(b))
		} else {
			_, err = mutating.NewMutatingWebhook(bytes.NewReader(b))
		}
		if err != nil {
			return "", err
		}
		c, err := webhookconfig.LoadConfig(bytes.NewReader(b))
		if err != nil {
			return "", err
		}
		return c.StaticManifestsDir, nil
	case "ValidatingAdmissionPolicy":
		c, err := policyconfig.LoadValidatingConfig(r)
		return c.StaticManifestsDir, err
	default:
		c, err := policyconfig.LoadMutatingConfig(r)
		return c.StaticManifestsDir, err
	}
}

func run(s set) (result, error) {
	root, err := os.MkdirTemp("", "manifest-oracle-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(root)
	back := func(msg string) string { return strings.ReplaceAll(msg, root, s.Base) }
	names := make([]string, 0, len(s.Files))
	for n := range s.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		text := s.Files[n]
		if n == "admission-configuration.yaml" {
			text = strings.ReplaceAll(text, s.Base, root)
		}
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return result{}, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return result{}, err
		}
	}
	r := result{Loaders: map[string]string{}}
	for _, p := range plugins {
		dir := filepath.Join(root, p.dir)
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		r.Loaders[p.name] = ""
		if err := p.load(dir); err != nil {
			r.Loaders[p.name] = back(err.Error())
		}
	}
	if _, ok := s.Files["admission-configuration.yaml"]; ok {
		r.Configuration = map[string]string{}
		scheme := runtime.NewScheme()
		apiserverinstall.Install(scheme)
		names := make([]string, 0, len(plugins))
		for _, p := range plugins {
			names = append(names, p.name)
		}
		provider, err := admission.ReadAdmissionConfiguration(names, filepath.Join(root, "admission-configuration.yaml"), scheme)
		if err != nil {
			r.Configuration["*"] = "error: " + back(err.Error())
			return r, nil
		}
		for _, p := range plugins {
			reader, err := provider.ConfigFor(p.name)
			if err != nil {
				r.Configuration[p.name] = "error: " + back(err.Error())
				continue
			}
			if reader == nil {
				continue
			}
			text, err := io.ReadAll(reader)
			if err != nil {
				return result{}, err
			}
			if p.name == "MutatingAdmissionWebhook" && len(s.API) > 0 {
				order, err := mutatingOrder(text, s.API)
				if err != nil {
					r.MutatingOrder = []string{"error: " + back(err.Error())}
				} else {
					r.MutatingOrder = order
				}
			}
			dir, err := readConfig(p.name, bytes.NewReader(text))
			if err != nil {
				r.Configuration[p.name] = "error: " + back(err.Error())
				continue
			}
			r.Configuration[p.name] = back(dir)
		}
	}
	return r, nil
}

func main() {
	var sets []set
	if err := json.NewDecoder(os.Stdin).Decode(&sets); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := make([]result, 0, len(sets))
	for _, s := range sets {
		r, err := run(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out = append(out, r)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

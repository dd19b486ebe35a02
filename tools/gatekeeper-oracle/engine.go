package main

// The constraint framework client as Gatekeeper v3.23's main.go (setupControllers) builds it for a
// pod that runs the webhook: the K8sValidationTarget, the CEL driver (pkg/drivers/k8scel, on by
// default: --enable-k8s-native-validation) ahead of the Rego driver (its default arguments: no
// tracing, no disabled builtins, no referential data), enforcement point validation.gatekeeper.sh.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	constraintclient "github.com/open-policy-agent/frameworks/constraint/pkg/client"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client/drivers/rego"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/drivers/k8scel"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/target"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// newEngine: the client; withRego false leaves the Rego driver out (the differential decides CEL templates only).
func newEngine(withRego bool) (*constraintclient.Client, error) {
	args := []constraintclient.Opt{constraintclient.Targets(&target.K8sValidationTarget{})}
	cel, err := k8scel.New()
	if err != nil {
		return nil, err
	}
	args = append(args, constraintclient.Driver(cel))
	if withRego {
		r, err := rego.New(rego.Tracing(false), rego.DisableBuiltins(), rego.Externs())
		if err != nil {
			return nil, err
		}
		args = append(args, constraintclient.Driver(r))
	}
	args = append(args, constraintclient.EnforcementPoints(util.WebhookEnforcementPoint))
	return constraintclient.NewClient(args...)
}

// load adds the templates, then the constraints, as the template and constraint controllers do.
func load(ctx context.Context, c *constraintclient.Client, templatesIn, constraints []map[string]any) error {
	for _, t := range templatesIn {
		ct, err := unversioned(t)
		if err != nil {
			return fmt.Errorf("template %v: %w", t["metadata"], err)
		}
		if _, err := c.AddTemplate(ctx, ct); err != nil {
			return fmt.Errorf("template %s: %w", ct.GetName(), err)
		}
	}
	for _, o := range constraints {
		u := &unstructured.Unstructured{Object: o}
		if _, err := c.AddConstraint(ctx, u); err != nil {
			return fmt.Errorf("constraint %s: %w", u.GetName(), err)
		}
	}
	return nil
}

// readObjects: the documents of a YAML or JSON file (separated by ---), templates apart from constraints.
func readObjects(path string) (tmpls, constraints []map[string]any, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	for _, doc := range strings.Split("\n"+string(raw), "\n---") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, nil, err
		}
		var o map[string]any
		if err := json.Unmarshal(js, &o); err != nil || o == nil {
			continue // a comment-only document
		}
		switch {
		case o["kind"] == "ConstraintTemplate":
			tmpls = append(tmpls, o)
		case strings.HasPrefix(fmt.Sprint(o["apiVersion"]), "constraints.gatekeeper.sh/"):
			constraints = append(constraints, o)
		default:
			return nil, nil, fmt.Errorf("%s: takes ConstraintTemplates and constraints, not %v", path, o["kind"])
		}
	}
	return tmpls, constraints, nil
}

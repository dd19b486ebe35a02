package main

// `gatekeeper-oracle review`: Gatekeeper's own decision on admission requests, the differential of the
// standalone conversion (tools/gatekeeper-oracle/driver.test.ts). For each case a fresh client
// (newEngine, CEL driver only) holds the template and its constraints; each request is reviewed as
// the webhook reviews one (pkg/webhook policy.go: a target.AugmentedReview of the AdmissionRequest
// with its Namespace object, enforcement point validation.gatekeeper.sh): Gatekeeper's match
// (target.K8sValidationTarget) picks the constraints, the CEL driver evaluates them.
//
// stdin: [{"template", "constraints": [...], "requests": [{"request": AdmissionRequest, "namespace": Namespace|null}]}]
// stdout: one entry per case: {"error"?, "answers": [{"error"?, "results": [{"constraint", "action", "message"}]}]}.

import (
	"context"
	"encoding/json"
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client/reviews"
	mutationtypes "github.com/open-policy-agent/gatekeeper/v3/pkg/mutation/types"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/target"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/util"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
)

type reviewCase struct {
	Template    map[string]any   `json:"template"`
	Constraints []map[string]any `json:"constraints"`
	Requests    []struct {
		Request   admissionv1.AdmissionRequest `json:"request"`
		Namespace *corev1.Namespace            `json:"namespace"`
	} `json:"requests"`
}

type reviewResult struct {
	Constraint string `json:"constraint"`
	Action     string `json:"action"`
	Message    string `json:"message"`
}

type reviewAnswer struct {
	Error   string         `json:"error,omitempty"`
	Results []reviewResult `json:"results"`
}

type reviewOut struct {
	Error   string         `json:"error,omitempty"`
	Answers []reviewAnswer `json:"answers"`
}

func reviewOne(ctx context.Context, c reviewCase) reviewOut {
	out := reviewOut{Answers: []reviewAnswer{}}
	client, err := newEngine(false)
	if err == nil {
		err = load(ctx, client, []map[string]any{c.Template}, c.Constraints)
	}
	if err != nil {
		out.Error = err.Error()
		return out
	}
	for _, r := range c.Requests {
		req := r.Request
		review := &target.AugmentedReview{AdmissionRequest: &req, Namespace: r.Namespace, IsAdmission: true, Source: mutationtypes.SourceTypeOriginal}
		opts := []reviews.ReviewOpt{reviews.EnforcementPoint(util.WebhookEnforcementPoint)}
		if opt := util.NamespaceReviewOpt(r.Namespace, logr.Discard()); opt != nil {
			opts = append(opts, opt)
		}
		a := reviewAnswer{Results: []reviewResult{}}
		resp, err := client.Review(ctx, review, opts...)
		if err != nil {
			a.Error = err.Error()
		}
		for _, res := range resp.Results() {
			a.Results = append(a.Results, reviewResult{Constraint: res.Constraint.GetName(), Action: res.EnforcementAction, Message: res.Msg})
		}
		out.Answers = append(out.Answers, a)
	}
	return out
}

func reviewMain() error {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	var cases []reviewCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		return err
	}
	outs := make([]reviewOut, 0, len(cases))
	for _, c := range cases {
		outs = append(outs, reviewOne(context.Background(), c))
	}
	return json.NewEncoder(os.Stdout).Encode(outs)
}

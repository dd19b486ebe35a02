package main

import (
	"context"
	"errors"
	"slices"
	"strings"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// ---------------------------------------------------------------------------
// The test authorizer: rules, first match wins, no match = NoOpinion.

type authzRule struct {
	Verb        *string `json:"verb"`
	Group       *string `json:"group"`
	Resource    *string `json:"resource"`
	Subresource *string `json:"subresource"`
	Namespace   *string `json:"namespace"`
	Name        *string `json:"name"`
	Path        *string `json:"path"`
	User        *string `json:"user"`
	// UserGroup: the principal is a member of this group (exactly; the apiserver's privileged
	// group, system:masters, is allowed every check so, by group and not by user name)
	UserGroup *string `json:"userGroup"`
	Decision  string  `json:"decision"`
	Reason    string  `json:"reason"`
	Error     string  `json:"error"`
}

type ruleAuthorizer struct {
	rules []authzRule
}

func matches(pattern *string, value string) bool {
	if pattern == nil || *pattern == "*" {
		return true
	}
	if strings.HasSuffix(*pattern, "*") && len(*pattern) > 1 {
		return strings.HasPrefix(value, strings.TrimSuffix(*pattern, "*"))
	}
	return *pattern == value
}

func (a *ruleAuthorizer) Authorize(_ context.Context, at authorizer.Attributes) (authorizer.Decision, string, error) {
	userName := ""
	if at.GetUser() != nil {
		userName = at.GetUser().GetName()
	}
	for _, r := range a.rules {
		if !matches(r.Verb, at.GetVerb()) || !matches(r.User, userName) {
			continue
		}
		if r.UserGroup != nil && (at.GetUser() == nil || !slices.Contains(at.GetUser().GetGroups(), *r.UserGroup)) {
			continue
		}
		if at.IsResourceRequest() {
			if r.Path != nil {
				continue
			}
			if !matches(r.Group, at.GetAPIGroup()) || !matches(r.Resource, at.GetResource()) ||
				!matches(r.Subresource, at.GetSubresource()) || !matches(r.Namespace, at.GetNamespace()) ||
				!matches(r.Name, at.GetName()) {
				continue
			}
		} else {
			if r.Group != nil || r.Resource != nil || r.Subresource != nil || r.Namespace != nil || r.Name != nil {
				continue
			}
			if !matches(r.Path, at.GetPath()) {
				continue
			}
		}
		var err error
		if r.Error != "" {
			err = errors.New(r.Error)
		}
		switch r.Decision {
		case "allow":
			return authorizer.DecisionAllow, r.Reason, err
		case "deny":
			return authorizer.DecisionDeny, r.Reason, err
		default:
			return authorizer.DecisionNoOpinion, r.Reason, err
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

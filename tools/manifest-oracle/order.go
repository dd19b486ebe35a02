package main

// The order the MutatingAdmissionWebhook plugin calls its webhooks in, static and API-based
// merged: the release's generic.Webhook with its own API source (the configuration manager
// over an informer) and static source (the manifest loader), driven by one request, and a
// dispatcher that records the webhooks it is handed instead of calling them. From 1.38 the
// merge follows the configuration's staticOrder (generic/composite_webhook_source.go).

import (
	"bytes"
	"context"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/configuration"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/generic"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/source"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	webhookloader "k8s.io/kubernetes/pkg/admission/plugin/webhook/manifest/loader"
)

type recorder struct{ hooks []string }

func (r *recorder) Dispatch(_ context.Context, _ admission.Attributes, _ admission.ObjectInterfaces, hooks []webhook.WebhookAccessor) error {
	for _, h := range hooks {
		r.hooks = append(r.hooks, h.GetConfigurationName()+"/"+h.GetName())
	}
	return nil
}

// mutatingOrder: "<configuration>/<webhook>" in the order a Pod create is dispatched to them,
// with pluginConfig (the MutatingAdmissionWebhook entry of the AdmissionConfiguration, which
// names its static manifests) and api (the configurations stored through the API).
func mutatingOrder(pluginConfig []byte, api []admissionregistrationv1.MutatingWebhookConfiguration) ([]string, error) {
	rec := &recorder{}
	handler := admission.NewHandler(admission.Create, admission.Update, admission.Delete, admission.Connect)
	wh, err := generic.NewWebhook(handler, bytes.NewReader(pluginConfig),
		func(f informers.SharedInformerFactory, excluded sets.Set[schema.GroupResource]) generic.Source {
			return configuration.NewMutatingWebhookConfigurationManager(f, excluded)
		},
		func(*webhookutil.ClientManager) generic.Dispatcher { return rec })
	if err != nil {
		return nil, err
	}
	wh.SetStaticSourceFactory(func(dir string) (generic.ReloadableSource, error) {
		src := source.NewMutatingSource(dir, "manifest-oracle", func(d string) ([]*admissionregistrationv1.MutatingWebhookConfiguration, string, error) {
			r, err := webhookloader.LoadMutatingManifests(d)
			if err != nil {
				return nil, "", err
			}
			return r.Configurations, r.Hash, nil
		})
		return src, src.LoadInitial()
	})
	objects := []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}
	for i := range api {
		objects = append(objects, &api[i])
	}
	client := fake.NewClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	stop := make(chan struct{})
	defer close(stop)
	wh.SetDrainedNotification(stop)
	wh.SetExternalKubeClientSet(client)
	wh.SetExternalKubeInformerFactory(factory)
	if err := wh.ValidateInitialization(); err != nil {
		return nil, err
	}
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	// the API source's own informer reports synced a moment after the factory's caches
	deadline := time.Now().Add(10 * time.Second)
	for !wh.WaitForReady() {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the webhook sources did not sync")
		}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	attrs := admission.NewAttributesRecord(pod, nil, corev1.SchemeGroupVersion.WithKind("Pod"), "default", "p",
		corev1.SchemeGroupVersion.WithResource("pods"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	if err := wh.Dispatch(context.Background(), attrs, nil); err != nil {
		return nil, err
	}
	return rec.hooks, nil
}

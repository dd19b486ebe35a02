/** The snapshot's package-initialiser names (scripts/wasm-snapshot.mjs), against names Go 1.26 writes. */
import { describe, expect, test } from 'vitest';
import { isInitialiser, namePrefix } from './wasm-snapshot.mjs';

describe('namePrefix: a package as the wasm name section spells it', () => {
  test.each([
    ['runtime', 'runtime'],
    ['main', 'main'],
    ['k8s.io/kube-openapi/pkg/validation/strfmt', 'k8s.io_kube_openapi_pkg_validation_strfmt'],
    ['go.opentelemetry.io/otel/semconv/v1.39.0', 'go.opentelemetry.io_otel_semconv_v1_2e39_2e0'],
    ['gopkg.in/inf.v0', 'gopkg.in_inf_2ev0'],
    ['vendor/golang.org/x/net/http2/hpack', 'vendor_golang.org_x_net_http2_hpack'],
  ])('%s → %s', (path, prefix) => expect(namePrefix(path)).toBe(prefix));
});

describe('isInitialiser: only what doInit calls, never a method or a closure', () => {
  const prefixes = new Set(['runtime', 'unicode', 'google.golang.org_protobuf_internal_impl', 'k8s.io_apimachinery_pkg_util_sets']);
  test.each([
    ['runtime.init', true],
    ['runtime.init.5', true],
    ['unicode.map.init.2', true],
    ['k8s.io_apimachinery_pkg_util_sets.init', true],
    ['runtime.init.0.func1', false], // a closure: callable later
    ['runtime.__mheap_.init', false], // (*mheap).init
    ['google.golang.org_protobuf_internal_impl.__MessageInfo_.init', false],
    ['k8s.io_apimachinery_pkg_util_sets.Set.init', false], // a value receiver's init
    ['k8s.io_other.init', false], // not a linked package
  ])('%s → %s', (name, expected) => expect(isInitialiser(name, prefixes)).toBe(expected));
});

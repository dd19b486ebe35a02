// What the CEL engine links but never runs, removed at build time (scripts/build-wasm.mjs
// applies these to a vendored copy of the engine's dependencies; wasm/ and go.sum are not
// changed), and speed patches (SPEED_PATCHES, below). None of the weight patches touches a
// compile or evaluate path: the engine reaches
// the apiserver through plugincel's compilers, ForInput and the unstructured converter,
// which use no scheme, codec or HTTP transport. Each patch must apply exactly: a Kubernetes
// upgrade that changes one of these files fails the build, and the patch is re-checked.
//
// Why they weigh: a package-level SchemeBuilder(addKnownTypes) is reached from the
// package's init, so every registered type stays with every exported method (protobuf
// Marshal/Unmarshal, String, DeepCopy…): core/v1 alone was 4.9 MB of code. A codec
// factory links every serializer. http.DefaultTransport read at init links the TLS client.
const schemeBuilder = [/runtime\.NewSchemeBuilder\([^)]*\)/, 'runtime.NewSchemeBuilder()'];
const swaggerDocs = [/(var map_\w+ = map\[string\]string\{)\n[\s\S]*?\n\}\n/g, '$1}\n'];
const registerKnownTypes = [/\tlocalSchemeBuilder\.Register\(addKnownTypes\)\n/, ''];

export const WEIGHT_PATCHES = [
  // Scheme registration of API types (the engine decodes no typed object through a scheme).
  ['k8s.io/api/core/v1/register.go', ...schemeBuilder],
  ['k8s.io/api/admission/v1/register.go', ...schemeBuilder],
  ['k8s.io/api/authentication/v1/register.go', ...schemeBuilder],
  ['k8s.io/api/admissionregistration/v1/register.go', ...schemeBuilder],
  ['k8s.io/apiserver/pkg/apis/apiserver/register.go', ...schemeBuilder],
  ['k8s.io/apiserver/pkg/apis/audit/register.go', ...schemeBuilder],
  ['k8s.io/apiserver/pkg/apis/apiserver/v1/register.go', ...registerKnownTypes],
  ['k8s.io/apiserver/pkg/apis/audit/v1/register.go', ...registerKnownTypes],
  // Codec factories (JSON, YAML, protobuf, CBOR serializers) of schemes nothing decodes with.
  ['k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go', 'var Codecs = serializer.NewCodecFactory(Scheme)', 'var Codecs = serializer.CodecFactory{}'],
  ['k8s.io/apiserver/pkg/audit/scheme.go', 'var Codecs = serializer.NewCodecFactory(Scheme)', 'var Codecs = serializer.CodecFactory{}'],
  // OpenAPI descriptions of API fields (SwaggerDoc maps, filled at start-up): empty maps.
  ...['core/v1', 'admission/v1', 'authentication/v1', 'admissionregistration/v1'].map((v) => [`k8s.io/api/${v}/types_swagger_doc_generated.go`, ...swaggerDocs]),
  ['k8s.io/apimachinery/pkg/apis/meta/v1/types_swagger_doc_generated.go', ...swaggerDocs],
  // The default HTTP transport (and the TLS client) only when someone configures a transport.
  ['k8s.io/apimachinery/pkg/util/net/http.go', 'var defaultTransport = http.DefaultTransport.(*http.Transport)', 'func defaultTransportOf() *http.Transport { return http.DefaultTransport.(*http.Transport) }'],
  ['k8s.io/apimachinery/pkg/util/net/http.go', /\bdefaultTransport\./g, 'defaultTransportOf().'],
  // The process and Go runtime collectors of the global metrics registries (Kubernetes' and
  // Prometheus' own), registered at start-up, where the Go collector reads every runtime/metrics
  // description: start-up time. Nothing gathers metrics in the engine.
  ['k8s.io/component-base/metrics/legacyregistry/registry.go', '\tRawMustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))\n\tRawMustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsAll)))\n', ''],
  ['k8s.io/component-base/metrics/legacyregistry/registry.go', '\t"github.com/prometheus/client_golang/prometheus/collectors"\n', ''],
  ['github.com/prometheus/client_golang/prometheus/registry.go', '\tMustRegister(NewProcessCollector(ProcessCollectorOpts{}))\n\tMustRegister(NewGoCollector())\n', ''],
];

// The speed patches. First, plugincel: every ForInput (each evaluation, or each run of a batch) converts the
// typed AdmissionRequest, and the namespace, to unstructured by reflection: a third of a
// single evaluation's time in WebAssembly. The engine passes the same objects, built once
// per stored input and never changed, to every evaluation of that input, so the conversion is
// remembered per object. The map's keys keep their objects alive (no address is reused while
// it is remembered); CEL only reads the converted maps.
const convertMemo = `var convertedObjects = map[interface{}]*unstructured.Unstructured{}

func convertObjectToUnstructured(obj interface{}) (*unstructured.Unstructured, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return &unstructured.Unstructured{Object: nil}, nil
	}
	if reflect.TypeOf(obj).Kind() != reflect.Pointer {
		return convertObjectToUnstructuredOnce(obj)
	}
	if u, ok := convertedObjects[obj]; ok {
		return u, nil
	}
	u, err := convertObjectToUnstructuredOnce(obj)
	if err == nil {
		if len(convertedObjects) >= 64 {
			clear(convertedObjects)
		}
		convertedObjects[obj] = u
	}
	return u, err
}

func convertObjectToUnstructuredOnce(obj interface{}) (*unstructured.Unstructured, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {`;
// And one in cel-go: a program with cost tracking builds a new CostTracker for each evaluation,
// running every library's OverloadCostTracker option to fill a map of overload trackers (a
// tenth of a batch's time in a CPU profile). The options are the program's own and the map is
// only read while evaluating, so the tracker is built once per program and each evaluation
// gets a copy of it: the same map, limit and estimator, its own cost and stack.
const trackerPerEval = `		trackerFactory := func() (*interpreter.CostTracker, error) {
			return interpreter.NewCostTracker(p.callCostEstimator, costOpts...)
		}`;
const trackerPerProgram = `		trackerTemplate := sync.OnceValues(func() (*interpreter.CostTracker, error) {
			return interpreter.NewCostTracker(p.callCostEstimator, costOpts...)
		})
		trackerFactory := func() (*interpreter.CostTracker, error) {
			t, err := trackerTemplate()
			if err != nil {
				return nil, err
			}
			fresh := *t
			return &fresh, nil
		}`;
// And three small ones on every evaluation's path, each a few per cent of evaluateBatch in a CPU
// profile of a symbols build (Go has no interface-switch cache on wasm, so an assertion to an
// interface type is a hash-table lookup, and time.Now is two calls out to JavaScript):
//  - cel-go's asCostTracker asserted each activation to its unexported costTrackerConverter
//    interface, for every node evaluated; costTrackActivation is the only type that
//    implements it, so the patched function checks for that type (a pointer comparison);
//  - a CostTracker's stack of values starts with room for 16 instead of growing from 0;
//  - plugincel timed every evaluation (time.Now, time.Since) for its Elapsed field, which only
//    metrics and tracing read, never the engine.
const asCostTrackerByInterface = `func asCostTracker(vars Activation) (*CostTracker, bool) {
	if conv, ok := vars.(costTrackerConverter); ok {
		return conv.asCostTracker(), true
	}
	if vars.Parent() != nil {
		return asCostTracker(vars.Parent())
	}
	return nil, false
}`;
const asCostTrackerByType = `func asCostTracker(vars Activation) (*CostTracker, bool) {
	for {
		switch a := vars.(type) { // the only implementations of costTrackerConverter
		case costTrackActivation:
			return a.costTracker, true
		case *costTrackActivation:
			return a.costTracker, true
		}
		if vars.Parent() == nil {
			return nil, false
		}
		vars = vars.Parent()
	}
}`;
const initState = `	tracker, err := ct.factory()
	if err != nil {
		return nil, err
	}
	return costTrackActivation{vars: vars, costTracker: tracker}, nil`;
const initStateWithStack = `	tracker, err := ct.factory()
	if err != nil {
		return nil, err
	}
	if tracker.stack == nil {
		tracker.stack = make(refValStack, 0, 16)
	}
	return costTrackActivation{vars: vars, costTracker: tracker}, nil`;
const activation = 'k8s.io/apiserver/pkg/admission/plugin/cel/activation.go';

export const SPEED_PATCHES = [
  ['k8s.io/apiserver/pkg/admission/plugin/cel/condition.go', `func convertObjectToUnstructured(obj interface{}) (*unstructured.Unstructured, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {`, convertMemo],
  ['github.com/google/cel-go/cel/program.go', trackerPerEval, trackerPerProgram],
  ['github.com/google/cel-go/interpreter/runtimecost.go', asCostTrackerByInterface, asCostTrackerByType],
  ['github.com/google/cel-go/interpreter/runtimecost.go', initState, initStateWithStack],
  [activation, '\tt1 := time.Now()\n', ''],
  [activation, '\telapsed := time.Since(t1)\n\tevaluation.Elapsed = elapsed\n', ''],
  [activation, '\t"time"\n', ''],
];

/** Applies the weight and speed patches to a vendor/ directory; returns the ones that did not apply. */
export async function applyWeightPatches(vendorDir) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const failed = [];
  for (const [file, from, to] of [...WEIGHT_PATCHES, ...SPEED_PATCHES]) {
    const path = join(vendorDir, file);
    const text = readFileSync(path, 'utf8');
    const applies = typeof from === 'string' ? text.includes(from) : from.test(text);
    if (from instanceof RegExp) from.lastIndex = 0;
    if (!applies) failed.push(`${file}: ${from}`);
    else writeFileSync(path, text.replace(from, to));
  }
  return failed;
}

// Inlining is turned off everywhere except on the compile/evaluate hot path: the Go runtime and
// the standard packages CEL's values lean on, cel-go, the apiserver's CEL and admission packages,
// and the engine itself. Smaller code for the same behaviour: against inlining off only for a
// list of cold packages, 30.81 -> 30.38 MB raw and 4.01 -> 3.86 MB brotli, with evaluation at
// the same speed (alternating raw calls in Node, single 12.1k/11.9k/s, batch 24.9k/25.3k/s).
// Off everywhere: 3.54 MB brotli (an earlier all-off build made CEL 20-40 % slower).
export const INLINE = [
  'runtime/...', 'internal/...', 'sync/...', 'reflect', 'strings', 'bytes', 'strconv', 'unicode/...',
  'math/...', 'sort', 'slices', 'maps', 'regexp/...', 'errors', 'time', 'fmt', 'encoding/json',
  'github.com/google/cel-go/...', 'k8s.io/apiserver/pkg/cel/...', 'k8s.io/apiserver/pkg/admission/...',
  'main',
];

/** The compiler flags for INLINE: -l for all packages, then none for the hot ones (the last matching pattern wins). */
export const INLINE_GCFLAGS = ['-gcflags=all=-l', ...INLINE.map((p) => `-gcflags=${p}=`)];

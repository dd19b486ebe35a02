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
const cborModes = (file) => `k8s.io/apimachinery/pkg/runtime/serializer/cbor/internal/modes/${file}`;
// `var Decode cbor.DecMode = func() cbor.DecMode { … }()` and the like: the value left nil.
const cborModeInit = /= func\(\) [\w.*]+ \{\n[\s\S]*?\n\}\(\)\n/g;
const smdValue = 'sigs.k8s.io/structured-merge-diff/v6/value/value.go';

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
  [
    'k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go',
    'var Codecs = serializer.NewCodecFactory(Scheme)',
    'var Codecs = serializer.CodecFactory{}',
  ],
  ['k8s.io/apiserver/pkg/audit/scheme.go', 'var Codecs = serializer.NewCodecFactory(Scheme)', 'var Codecs = serializer.CodecFactory{}'],
  // OpenAPI descriptions of API fields (SwaggerDoc maps, filled at start-up): empty maps.
  ...['core/v1', 'admission/v1', 'authentication/v1', 'admissionregistration/v1'].map((v) => [
    `k8s.io/api/${v}/types_swagger_doc_generated.go`,
    ...swaggerDocs,
  ]),
  ['k8s.io/apimachinery/pkg/apis/meta/v1/types_swagger_doc_generated.go', ...swaggerDocs],
  // The default HTTP transport (and the TLS client) only when someone configures a transport.
  [
    'k8s.io/apimachinery/pkg/util/net/http.go',
    'var defaultTransport = http.DefaultTransport.(*http.Transport)',
    'func defaultTransportOf() *http.Transport { return http.DefaultTransport.(*http.Transport) }',
  ],
  ['k8s.io/apimachinery/pkg/util/net/http.go', /\bdefaultTransport\./g, 'defaultTransportOf().'],
  // The process and Go runtime collectors of the global metrics registries (Kubernetes' and
  // Prometheus' own), registered at start-up, where the Go collector reads every runtime/metrics
  // description: start-up time. Nothing gathers metrics in the engine.
  [
    'k8s.io/component-base/metrics/legacyregistry/registry.go',
    '\tRawMustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))\n\tRawMustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsAll)))\n',
    '',
  ],
  ['k8s.io/component-base/metrics/legacyregistry/registry.go', '\t"github.com/prometheus/client_golang/prometheus/collectors"\n', ''],
  [
    'github.com/prometheus/client_golang/prometheus/registry.go',
    '\tMustRegister(NewProcessCollector(ProcessCollectorOpts{}))\n\tMustRegister(NewGoCollector())\n',
    '',
  ],
  // Reached only from package initialisers (`go build -ldflags=-dumpdep`: no path from the
  // engine's exports that does not pass through a package's init), so the engine never calls
  // them; what the initialisers build kept their code linked (method tables of the values).
  // apimachinery's CBOR modes: the encoder and decoder modes built at start-up (fxamacker/cbor,
  // 0.37 MB of code). The engine encodes and decodes JSON only.
  [cborModes('decode.go'), cborModeInit, '= nil\n'],
  [cborModes('decode.go'), '\t"reflect"\n', ''],
  [cborModes('diagnostic.go'), cborModeInit, '= nil\n'],
  [cborModes('encode.go'), /delegate: func\(\) cbor\.UserBufferEncMode \{\n[\s\S]*?\n\t\}\(\),\n/g, 'delegate: nil,\n'],
  // The conversion functions of the audit and apiserver config APIs registered into schemes
  // nothing converts with (0.3 MB).
  ['k8s.io/apiserver/pkg/apis/audit/v1/zz_generated.conversion.go', '\tlocalSchemeBuilder.Register(RegisterConversions)\n', ''],
  ['k8s.io/apiserver/pkg/apis/apiserver/v1/zz_generated.conversion.go', '\tlocalSchemeBuilder.Register(RegisterConversions)\n', ''],
  // structured-merge-diff's JSON helpers on json-iterator (its pools are built at start-up, and
  // json-iterator's own configs with them: 0.32 MB plus modern-go/reflect2), on encoding/json
  // instead; nothing in the engine calls FromJSON or ToJSON.
  [smdValue, '\tjsoniter "github.com/json-iterator/go"\n', '\t"encoding/json"\n'],
  [smdValue, /\t"bytes"\n|\t"io"\n/g, ''],
  [
    smdValue,
    'var (\n\treadPool  = jsoniter.NewIterator(jsoniter.ConfigCompatibleWithStandardLibrary).Pool()\n\twritePool = jsoniter.NewStream(jsoniter.ConfigCompatibleWithStandardLibrary, nil, 1024).Pool()\n)\n',
    '',
  ],
  [
    smdValue,
    /\/\/ FromJSONFast is a helper[\s\S]*?\n(\/\/ ToYAML marshals)/,
    `// FromJSONFast is a helper function for reading a JSON document.
func FromJSONFast(input []byte) (Value, error) {
\tvar v interface{}
\tif err := json.Unmarshal(input, &v); err != nil {
\t\treturn nil, err
\t}
\treturn NewValueInterface(v), nil
}

// ToJSON is a helper function for producing a JSon document.
func ToJSON(v Value) ([]byte, error) {
\treturn json.Marshal(v.Unstructured())
}

$1`,
  ],
];

// The speed patches. plugincel timed every evaluation (time.Now, time.Since) for its Elapsed
// field, which only metrics and tracing read, never the engine; time.Now is two calls out to
// JavaScript. (Until k8s.io/apiserver v0.36 / cel-go v0.26 the table also remembered the
// unstructured conversion of the request per object, built a program's CostTracker once, and
// replaced cel-go's asCostTracker interface assertion and a cost stack's growth from zero:
// v0.37 / cel-go v0.29 do the same themselves — LazyObject caches an object's CEL value and
// the request and namespace are wrapped for lazy reflection (SchemalessTypedToVal) instead of
// converted, cel-go clones one
// tracker per evaluation and keeps costs in its evaluation frame.)
const activation = 'k8s.io/apiserver/pkg/admission/plugin/cel/activation.go';

export const SPEED_PATCHES = [
  [activation, '\tt1 := time.Now()\n', ''],
  [activation, '\telapsed := time.Since(t1)\n\tevaluation.Elapsed = elapsed\n', ''],
  [activation, '\t"time"\n', ''],
];

/**
 * Applies the weight and speed patches to a vendor/ directory; returns the ones that did not apply.
 * A patch of a module the build does not vendor at all concerns another engine generation (the
 * 1.38 engine has structured-merge-diff v7, on encoding/json/v2, where these v6 patches have
 * nothing to do) and is left out; a vendored module whose text no longer matches fails.
 */
export async function applyWeightPatches(vendorDir) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const modules = [...readFileSync(join(vendorDir, 'modules.txt'), 'utf8').matchAll(/^# (\S+) /gm)].map((m) => m[1]);
  const vendored = (file) => modules.some((m) => file.startsWith(`${m}/`));
  const failed = [];
  for (const [file, from, to] of [...WEIGHT_PATCHES, ...SPEED_PATCHES]) {
    if (!vendored(file)) continue;
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
  'runtime/...',
  'internal/...',
  'sync/...',
  'reflect',
  'strings',
  'bytes',
  'strconv',
  'unicode/...',
  'math/...',
  'sort',
  'slices',
  'maps',
  'regexp/...',
  'errors',
  'time',
  'fmt',
  'encoding/json',
  'github.com/google/cel-go/...',
  'cel.dev/cel-go/...', // cel-go's module path from v0.30 (the 1.38 engine)
  'k8s.io/apiserver/pkg/cel/...',
  'k8s.io/apiserver/pkg/admission/...',
  'main',
];

/** The compiler flags for INLINE: -l for all packages, then none for the hot ones (the last matching pattern wins; a pattern no package of a build matches does nothing). */
export const INLINE_GCFLAGS = ['-gcflags=all=-l', ...INLINE.map((p) => `-gcflags=${p}=`)];

/**
 * Monaco, set up once: the lean editor entry, our workers (bundled, loaded
 * relative to the chunk so any sub-path works), and monaco-yaml with a JSON
 * schema per kind generated from the field registry. Imported only from
 * lazily loaded components, so Monaco stays out of the initial bundle.
 */
import * as monaco from 'monaco-editor/editor';
import './features';
import 'monaco-editor/languages/definitions/yaml/register';
import { configureMonacoYaml } from 'monaco-yaml';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import YamlWorker from './yaml.worker?worker';
import { KINDS, jsonSchemaFor } from '../k8s';

self.MonacoEnvironment = {
  getWorker(_id: string, label: string) {
    if (label === 'yaml') return new YamlWorker();
    return new EditorWorker();
  },
};

// monaco >= 0.55: editor.createWebWorker needs { worker }. monaco-yaml 5.5.1 (through
// monaco-worker-manager 2.0.1) still calls the legacy { moduleId, label, createData } form,
// and without this shim Monaco silently runs the YAML worker on the main thread (no markers).
type LegacyOpts = { moduleId?: string; label?: string; createData?: unknown; host?: unknown; keepIdleModels?: boolean; worker?: unknown };
const createWebWorker = monaco.editor.createWebWorker;
monaco.editor.createWebWorker = ((opts: LegacyOpts) => {
  if (opts.worker !== undefined) return createWebWorker(opts as never);
  const worker = Promise.resolve(self.MonacoEnvironment!.getWorker!(opts.moduleId ?? '', opts.label ?? '')).then((w) => {
    w.postMessage('ignore');
    w.postMessage(opts.createData);
    return w;
  });
  return createWebWorker({ worker, host: opts.host, keepIdleModels: opts.keepIdleModels } as never);
}) as typeof monaco.editor.createWebWorker;

/** The model URI of a workspace document; the kind in the name picks the schema. */
export const modelUri = (docId: string, kind: string) => monaco.Uri.parse(`file:///workspace/${docId}.${kind}.yaml`);

/**
 * A model over this many characters (a 10,000-webhook configuration is 5.3 MB) gets no
 * monaco-yaml work over its whole text per change: no schema validation (our own check
 * pipeline gives the apiserver's errors as markers), no folding ranges or links from the YAML
 * worker. Completion and hover stay (they read the text at the cursor when asked).
 */
export const LARGE_MODEL_CHARS = 1_000_000;
export const isLargeModel = (model: monaco.editor.ITextModel) => model.getValueLength() > LARGE_MODEL_CHARS;

type Model = monaco.editor.ITextModel;
/**
 * The model as monaco-yaml's marker provider sees it: while it is large, it does not read as
 * YAML and its changes are not passed on, so the YAML worker does not validate it (and its old
 * markers go). One view per model, so the provider's own bookkeeping (a map by model) holds.
 */
const yamlViews = new WeakMap<Model, Model>();
function yamlView(model: Model): Model {
  let view = yamlViews.get(model);
  if (!view) {
    view = new Proxy(model, {
      get(target, key) {
        if (key === 'getLanguageId') return () => (isLargeModel(target) ? 'yaml-large' : target.getLanguageId());
        if (key === 'onDidChangeContent')
          return (listener: (e: monaco.editor.IModelContentChangedEvent) => void) =>
            target.onDidChangeContent((e) => {
              if (!isLargeModel(target)) return listener(e);
              if (monaco.editor.getModelMarkers({ owner: 'yaml', resource: target.uri }).length) monaco.editor.setModelMarkers(target, 'yaml', []);
            });
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    yamlViews.set(model, view);
  }
  return view;
}
/** Skip a whole-text provider of monaco-yaml for large models. */
const smallOnly =
  <A extends unknown[], R>(provide: (model: Model, ...rest: A) => R) =>
  (model: Model, ...rest: A): R | undefined =>
    isLargeModel(model) ? undefined : provide(model, ...rest);

/** Monaco as monaco-yaml sees it: the large-model exceptions above, everything else Monaco's own. */
const monacoForYaml = {
  ...monaco,
  editor: {
    ...monaco.editor,
    getModels: () => monaco.editor.getModels().map(yamlView),
    onDidCreateModel: (listener: (m: Model) => void) => monaco.editor.onDidCreateModel((m) => listener(yamlView(m))),
    onWillDisposeModel: (listener: (m: Model) => void) => monaco.editor.onWillDisposeModel((m) => listener(yamlView(m))),
    onDidChangeModelLanguage: (listener: (e: { model: Model; oldLanguage: string }) => void) =>
      monaco.editor.onDidChangeModelLanguage((e) => listener({ model: yamlView(e.model), oldLanguage: e.oldLanguage })),
  },
  languages: {
    ...monaco.languages,
    registerFoldingRangeProvider: (language: string, p: monaco.languages.FoldingRangeProvider) =>
      monaco.languages.registerFoldingRangeProvider(language, { ...p, provideFoldingRanges: smallOnly(p.provideFoldingRanges.bind(p)) }),
    registerLinkProvider: (language: string, p: monaco.languages.LinkProvider) =>
      monaco.languages.registerLinkProvider(language, { ...p, provideLinks: smallOnly(p.provideLinks.bind(p)) }),
    registerDocumentSymbolProvider: (language: string, p: monaco.languages.DocumentSymbolProvider) =>
      monaco.languages.registerDocumentSymbolProvider(language, { ...p, provideDocumentSymbols: smallOnly(p.provideDocumentSymbols.bind(p)) }),
  },
};

configureMonacoYaml(monacoForYaml as typeof monaco, {
  enableSchemaRequest: false, // never fetch schemas: the app makes no network request
  hover: true,
  completion: true,
  validate: true,
  schemas: KINDS.map((k) => ({
    uri: `inmemory://schemas/${k.kind}.json`,
    fileMatch: [`*.${k.kind}.yaml`],
    schema: jsonSchemaFor(k) as never,
  })),
});

declare global {
  interface Window {
    monaco?: typeof monaco;
  }
}
window.monaco = monaco; // e2e tests read models and markers through it
monaco.editor.setTheme(document.documentElement.dataset.theme === 'dark' ? 'vs-dark' : 'vs'); // the app's theme (src/ui/theme.ts) as it is now; it sets later changes

export { monaco };

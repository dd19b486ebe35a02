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

configureMonacoYaml(monaco, {
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

/** The selected document: its form, its YAML and its problems. */
import { Fragment, lazy, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { OnDemand } from './OnDemand';
// the k8s modules themselves, not its index: the index brings validation and the lints into the first load (src/store/checks.ts)
import { canConvertToV1 } from '../k8s/convert';
import { kindSpecOf } from '../k8s/registry/kinds';
import { paramSpecOf } from '../k8s/registry/params';
import { serverFieldsOf } from '../k8s/registry/server-fields';
import { isManifestKind } from '../k8s/static-manifests';
import { isObject } from '../base/json';
import { parsePath } from '../base/path';
import { formatPath } from '../base/path-format';
import { checks, docKind, useWorkspace, workspace, type Problem, type WorkspaceDoc } from '../store';
import { useAfterFirstPaint } from './after-paint';
import { FieldView } from './FieldView';
import { createFormProblems, FormContext, updateFormProblems, type FormContextValue, type FormProblems } from './form-context';
import { ProblemsPanel } from './ProblemsPanel';
import { sourceKindOf } from '../migrate/documents';

const YamlPane = lazy(() => import('./YamlPane'));
/** The policy test run (and src/policy) loads when a policy is opened. */
const PolicyTestPanel = lazy(() => import('./policy/PolicyTestPanel'));
// A Gatekeeper or Kyverno document's summary brings the converters (src/migrate): loaded when one is shown.
const SourceForm = lazy(() => import('./migrate/SourceForm').then((m) => ({ default: m.SourceForm })));

/**
 * Monaco is large (about a second of main-thread work to load and create an editor on a
 * 2-core machine). The YAML pane shows the document's text at once, and the editor replaces
 * it when the CEL engine has started (or failed), so that the engine's start and its first
 * answers do not wait behind the editor; at the latest a few seconds after the first paint,
 * and at once when the user reaches for the text (pointer or keyboard focus).
 */
const EDITOR_LATEST_MS = 3000;
let editorAllowed = false;
const editorListeners = new Set<() => void>();
function allowEditor() {
  if (editorAllowed) return;
  editorAllowed = true;
  for (const l of editorListeners) l();
}
function useEditorAllowed(): boolean {
  const [allowed, setAllowed] = useState(editorAllowed);
  const celState = useWorkspace((s) => s.celState);
  useEffect(() => {
    if (allowed) return;
    const update = () => setAllowed(true);
    editorListeners.add(update);
    const timer = setTimeout(allowEditor, EDITOR_LATEST_MS);
    return () => {
      editorListeners.delete(update);
      clearTimeout(timer);
    };
  }, [allowed]);
  useEffect(() => {
    if (allowed || (celState !== 'ready' && celState !== 'failed')) return;
    // After the engine's first answers (validation asks at once), not in front of them.
    if (typeof requestIdleCallback !== 'function') return void allowEditor();
    const idle = requestIdleCallback(allowEditor, { timeout: 300 });
    return () => cancelIdleCallback(idle);
  }, [allowed, celState]);
  return allowed;
}

/**
 * The document's text until the editor is there: selectable, and focusing it brings the
 * editor. It reads doc.text only when shown (a form edit's text is generated when first read),
 * and not before the form is on screen (on a first visit, serializing the sample is cold code).
 */
function YamlText({ doc }: { doc: WorkspaceDoc }) {
  const shown = useAfterFirstPaint();
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: focusing the text loads the editor (onFocus), as a click does
    <pre className="yaml-fallback" tabIndex={0} title="The editor is loading" onPointerDown={allowEditor} onFocus={allowEditor}>
      {shown ? doc.text : null}
    </pre>
  );
}

/**
 * The form's problems store: made with the first problems, then given each new list right
 * after the commit that computed it (before paint). The controls whose problems changed
 * re-render then; the others are not touched.
 */
function useFormProblems(items: readonly Problem[]): FormProblems {
  const [store] = useState(() => createFormProblems(items));
  useLayoutEffect(() => updateFormProblems(store, items), [store, items]);
  return store;
}

const NOT_CHECKED: readonly Problem[] = [];

/** Focus the control of a path, or of its nearest ancestor that has one. */
function focusPath(root: HTMLElement, path: string) {
  const segs = parsePath(path);
  for (let n = segs.length; n >= 0; n--) {
    const p = n === segs.length ? path : formatPath(segs.slice(0, n));
    const el = root.querySelector<HTMLElement>(`[data-path="${CSS.escape(p)}"]`);
    if (!el) continue;
    el.scrollIntoView({ block: 'center' });
    const target = el.matches('input, select, textarea, button') ? el : el.querySelector<HTMLElement>('input, select, textarea, button');
    (target ?? el).focus({ preventScroll: true });
    return;
  }
}

/** Objects copied from a cluster carry fields the server sets; say which, and how to drop them. */
function ServerFieldsNote({ object }: { object: unknown }) {
  const fields = serverFieldsOf(object);
  if (!fields.length) return null;
  return (
    <p className="banner info" data-testid="server-fields">
      Server-populated fields (kept, not editable here): <code>{fields.join(', ')}</code>. Tick “Strip server fields” when exporting to drop them.
    </p>
  );
}

/** Mark the document a static manifest (or, when the whole workspace is one, say so). */
function StaticToggle({ doc }: { doc: WorkspaceDoc }) {
  const allStatic = useWorkspace((s) => s.staticManifests);
  return (
    <label
      className="checkbox static-toggle"
      title="Loaded by the kube-apiserver from a static manifest directory (1.37+): checked as its manifest loader does, run before API objects, exported with Export → Static manifest directory"
    >
      <input
        type="checkbox"
        data-testid="doc-static"
        checked={allStatic || !!doc.static}
        disabled={allStatic}
        onChange={(e) => workspace.getState().setDocStatic(doc.id, e.target.checked)}
      />{' '}
      Static manifest{allStatic ? ' (whole workspace)' : ''}
    </label>
  );
}

/** A CamelCase name that may break between its words on a narrow screen (ValidatingWebhook·Configuration), never inside one. */
function CamelWords({ text }: { text: string }) {
  const words = text.split(/(?<=[a-z0-9])(?=[A-Z])/);
  return (
    <>
      {words.map((w, i) => (
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {w}
        </Fragment>
      ))}
    </>
  );
}

export function DocumentView({ doc }: { doc: WorkspaceDoc }) {
  useWorkspace((s) => s.problemsRevision); // CEL answers, caBundle inspections…: problems are derived again
  const docs = useWorkspace((s) => s.docs);
  // Admission configuration, or a param object (a ConfigMap, or a kind a policy names as paramKind): both have a form.
  const spec =
    kindSpecOf(doc.object) ??
    paramSpecOf(
      doc.object,
      docs.map((d) => d.object),
    );
  // A document's first check (validation and lints: on a first visit, the first run of much cold
  // code) comes right after its form is on screen. One checked before shows its problems at once.
  // The checks load beside the first form (src/store/checks.ts): null until they are in.
  const painted = useAfterFirstPaint();
  const c = checks();
  const problems = c && (painted || c.checkedBefore(doc)) ? c.docProblems(doc, docs) : null;
  const formProblems = useFormProblems(problems?.items ?? NOT_CHECKED);
  // The same context value for the life of the form: a context change would re-render every control.
  const form = useMemo<FormContextValue>(() => ({ docId: doc.id, problems: formProblems, readOnly: false }), [doc.id, formProblems]);
  const formRef = useRef<HTMLFormElement>(null);
  // a narrow window shows the form or the YAML, not one under the other's whole length (app.css)
  const [pane, setPane] = useState<'form' | 'yaml'>('form');
  const focus = useWorkspace((s) => s.focus);
  useEffect(() => {
    if (!focus || focus.docId !== doc.id) return;
    setPane('form');
    if (formRef.current) focusPath(formRef.current, focus.path);
  }, [focus, doc.id]);
  const obj = isObject(doc.object) ? doc.object : {};
  // A Gatekeeper or Kyverno document: its YAML is edited, its form is a summary (src/migrate).
  const source = spec ? undefined : sourceKindOf(doc.object);
  const showEditor = useEditorAllowed();
  return (
    <div className="document">
      <div className="pane-switch" role="group" aria-label="Show the form or the YAML">
        {(['form', 'yaml'] as const).map((p) => (
          <button key={p} type="button" aria-pressed={pane === p} onClick={() => setPane(p)} data-testid={`show-${p}`}>
            {p === 'form' ? 'Form' : 'YAML'}
          </button>
        ))}
      </div>
      <div className="panes" data-pane={pane}>
        <section className="form-pane" aria-label="Form">
          <header className="pane-head">
            <h2>
              <CamelWords text={spec ? spec.kind : docKind(doc)} />
            </h2>
            {spec ? (
              <a href={spec.docUrl} target="_blank" rel="noreferrer noopener" className="doc-link">
                API reference ↗
              </a>
            ) : null}
            {spec && isManifestKind(doc.object) ? <StaticToggle doc={doc} /> : null}
            {spec && canConvertToV1(doc.object) ? (
              <button
                type="button"
                data-testid="convert-to-v1"
                title="Rewrite as admissionregistration.k8s.io/v1, making the old version's defaults explicit so the behaviour stays the same"
                onClick={() => workspace.getState().convertToV1(doc.id)}
              >
                Convert to v1
              </button>
            ) : null}
          </header>
          {doc.error ? (
            <p className="banner error" role="status">
              The YAML does not parse (line {doc.error.line}, column {doc.error.column}): the form shows the last version that did. Your text is kept.
            </p>
          ) : null}
          {problems?.manifest?.headline ? (
            <p className="banner error" role="status" data-testid="manifest-headline">
              {problems.manifest.headline}.
            </p>
          ) : null}
          <ServerFieldsNote object={doc.object} />
          {spec ? (
            <FormContext.Provider value={form}>
              <form ref={formRef} className="kind-form" onSubmit={(e) => e.preventDefault()} aria-label={`${spec.kind} form`}>
                <p className="help">{spec.summary}</p>
                {spec.fields
                  .filter((f) => !f.server && !f.hidden)
                  .map((f) => (
                    <FieldView key={f.name} field={f} path={[f.name]} value={obj[f.name]} />
                  ))}
              </form>
              {spec.kind === 'ValidatingAdmissionPolicy' || spec.kind === 'MutatingAdmissionPolicy' ? (
                <OnDemand part="the test run" fallback={<p className="pt-muted">Loading the test run…</p>}>
                  <PolicyTestPanel doc={doc} />
                </OnDemand>
              ) : null}
            </FormContext.Provider>
          ) : source ? (
            <OnDemand part="the summary" fallback={<p className="pt-muted">Loading the summary…</p>}>
              <SourceForm doc={doc} kind={source} />
            </OnDemand>
          ) : (
            <p className="banner info">
              {doc.object === undefined
                ? 'This text has not parsed yet. Fix it in the YAML pane.'
                : `The Workbench does not edit ${docKind(doc)} objects. It is kept read-only and exported unchanged.`}
            </p>
          )}
        </section>
        <section className="yaml-pane" aria-label="YAML">
          {showEditor ? (
            <OnDemand part="the YAML editor" fallback={<YamlText doc={doc} />} keepFallback>
              <YamlPane doc={doc} />
            </OnDemand>
          ) : (
            <YamlText doc={doc} />
          )}
        </section>
      </div>
      <ProblemsPanel doc={doc} problems={problems} />
    </div>
  );
}

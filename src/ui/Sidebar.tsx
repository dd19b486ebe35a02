/** The document list: select, add from a template, duplicate, rename, delete. */
import { lazy, Suspense, useDeferredValue, useState } from 'react';
import { KINDS } from '../k8s';
import { docKind, docProblems, docTitle, isStaticDoc, useWorkspace, workspace } from '../store';
import { useAfterFirstPaint } from './after-paint';

const shortKind: Record<string, string> = {
  ValidatingWebhookConfiguration: 'VWC',
  MutatingWebhookConfiguration: 'MWC',
  ValidatingAdmissionPolicy: 'VAP',
  ValidatingAdmissionPolicyBinding: 'VAPB',
  MutatingAdmissionPolicy: 'MAP',
  MutatingAdmissionPolicyBinding: 'MAPB',
};

const Gallery = lazy(() => import('./Gallery'));

/** The "+ New…" entry that opens the policy gallery (no kind is named like this). */
const GALLERY_OPTION = 'gallery';

/** Counts of a document not yet checked (see `counted` below). */
const NOT_COUNTED = { errors: 0, warnings: 0, checked: true };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function Sidebar() {
  const docs = useWorkspace((s) => s.docs);
  // No problem counts in the first render, which puts the first form on screen: the selected
  // document's comes right after it (with the form's problems), the others' in a background render.
  const counted = useDeferredValue(true, false);
  const selectedCounted = useAfterFirstPaint();
  const selectedId = useWorkspace((s) => s.selectedId);
  useWorkspace((s) => s.problemsRevision); // CEL answers, caBundle inspections…: problem counts are derived again
  const [renaming, setRenaming] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [gallery, setGallery] = useState(false);
  const ws = workspace.getState;
  const allStatic = useWorkspace((s) => s.staticManifests);
  return (
    <nav className="sidebar" aria-label="Documents">
      <label
        className="checkbox static-toggle"
        title="Every webhook configuration and policy of the workspace is a static manifest: loaded by the kube-apiserver from staticManifestsDir (1.37+), checked as its manifest loader does, run before API objects, exported as a manifest directory"
      >
        <input type="checkbox" data-testid="workspace-static" checked={allStatic} onChange={(e) => ws().setStaticManifests(e.target.checked)} /> Static manifest
        set (whole workspace)
      </label>
      <div className="sidebar-head">
        <h2>Documents</h2>
        <label className="visually-hidden" htmlFor="new-doc">
          New document
        </label>
        <select
          id="new-doc"
          value=""
          onChange={(e) => {
            if (e.target.value === GALLERY_OPTION) setGallery(true);
            else if (e.target.value) ws().addFromTemplate(e.target.value);
          }}
        >
          <option value="">+ New…</option>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind} title={k.summary}>
              {k.kind}
            </option>
          ))}
          <option value={GALLERY_OPTION}>From the policy gallery…</option>
        </select>
        {gallery ? (
          <Suspense fallback={null}>
            <Gallery onClose={() => setGallery(false)} />
          </Suspense>
        ) : null}
      </div>
      {docs.length === 0 ? <p className="empty">No documents. Create one, paste YAML or drop a file here.</p> : null}
      <ul className="doc-list">
        {docs.map((d) => {
          const kind = docKind(d);
          const selected = d.id === selectedId;
          const p = counted || (selected && selectedCounted) ? docProblems(d, docs) : NOT_COUNTED;
          return (
            <li key={d.id} className={selected ? 'selected' : ''} data-doc-id={d.id}>
              {renaming === d.id ? (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    ws().rename(d.id, draft);
                    setRenaming(null);
                  }}
                >
                  <input
                    aria-label="New name"
                    // biome-ignore lint/a11y/noAutofocus: the input appears because the user asked to rename; typing goes straight to it
                    autoFocus
                    value={draft}
                    onChange={(e) => setDraft(e.target.value)}
                    onBlur={() => setRenaming(null)}
                    onKeyDown={(e) => e.key === 'Escape' && setRenaming(null)}
                  />
                </form>
              ) : (
                <button type="button" className="doc-button" aria-current={selected ? 'true' : undefined} onClick={() => ws().select(d.id)}>
                  <span className={`kind kind-${shortKind[kind] ?? 'other'}`} title={p.checked ? kind : `${kind}: kept, not checked`}>
                    {shortKind[kind] ?? kind}
                  </span>
                  <span className="doc-title">{docTitle(d)}</span>
                  {isStaticDoc(d, { staticManifests: allStatic }) ? (
                    <span className="badge static-badge" title="Static manifest">
                      static
                    </span>
                  ) : null}
                  {p.errors ? (
                    <span className="count error" title={`${plural(p.errors, 'error')}: the apiserver would reject it`}>
                      {p.errors}
                    </span>
                  ) : p.warnings ? (
                    <span className="count warning" title={`${plural(p.warnings, 'warning')} from the apiserver`}>
                      {p.warnings}
                    </span>
                  ) : null}
                </button>
              )}
              {selected && renaming !== d.id ? (
                <span className="doc-actions">
                  <button
                    type="button"
                    className="icon"
                    aria-label={`Rename ${docTitle(d)}`}
                    title="Rename (metadata.name)"
                    onClick={() => {
                      setDraft(docTitle(d));
                      setRenaming(d.id);
                    }}
                  >
                    ✎
                  </button>
                  <button type="button" className="icon" aria-label={`Duplicate ${docTitle(d)}`} title="Duplicate" onClick={() => ws().duplicate(d.id)}>
                    Copy
                  </button>
                  <button type="button" className="icon danger" aria-label={`Delete ${docTitle(d)}`} title="Delete" onClick={() => ws().remove(d.id)}>
                    ×
                  </button>
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

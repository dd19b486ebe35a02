/** The document list: select, add from a template, duplicate, rename, delete. */
import { lazy, useDeferredValue, useRef, useState } from 'react';
import { OnDemand } from './OnDemand';
// the k8s modules themselves, not its index: the index brings validation and the lints into the first load (src/store/checks.ts)
import { KINDS } from '../k8s/registry/kinds';
import { checks, docKind, docTitle, isStaticDoc, useWorkspace, workspace } from '../store';
import { useAfterFirstPaint } from './after-paint';
import { closeMenu, onMenuKeyDown, useCloseOnOutsideClick } from './menu';
import { ChainSettings } from './ChainSettings';

const shortKind: Record<string, string> = {
  ValidatingWebhookConfiguration: 'VWC',
  MutatingWebhookConfiguration: 'MWC',
  ValidatingAdmissionPolicy: 'VAP',
  ValidatingAdmissionPolicyBinding: 'VAPB',
  MutatingAdmissionPolicy: 'MAP',
  MutatingAdmissionPolicyBinding: 'MAPB',
};

const Gallery = lazy(() => import('./Gallery'));

/**
 * "+ New…": a menu of the kinds (each adds a document from its template) and the policy gallery.
 * A menu, not a select: a select acts on every arrow key, and arrowing through it would add a
 * document per press; here the arrows only move focus, Enter or a click chooses.
 */
function NewMenu({ onGallery }: { onGallery: () => void }) {
  const menu = useRef<HTMLDetailsElement>(null);
  useCloseOnOutsideClick(menu);
  const ws = workspace.getState;
  return (
    <details className="menu new-menu" ref={menu} onKeyDown={onMenuKeyDown}>
      <summary id="new-doc" data-testid="new-doc" title="New document: a kind from its template, or an example from the policy gallery">
        + New…
      </summary>
      <div className="menu-panel" role="group" aria-label="New document">
        {KINDS.map((k) => (
          <button
            key={k.kind}
            type="button"
            data-kind={k.kind}
            title={k.summary}
            onClick={() => {
              closeMenu(menu.current, true);
              ws().addFromTemplate(k.kind);
            }}
          >
            {k.kind}
          </button>
        ))}
        <button
          type="button"
          data-testid="new-from-gallery"
          onClick={() => {
            // focus on "+ New…" first: the gallery gives it back there when it closes
            closeMenu(menu.current, true);
            onGallery();
          }}
        >
          From the policy gallery…
        </button>
      </div>
    </details>
  );
}

/** Counts of a document not yet checked (see `counted` below). */
const NOT_COUNTED = { errors: 0, warnings: 0, checked: true };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The document list. On a phone-width screen it is a drawer (`open`, app.css): Escape or
 * choosing a document closes it (`onClose`).
 */
export function Sidebar({ open = false, onClose }: { open?: boolean; onClose?: () => void }) {
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
    <nav
      className={open ? 'sidebar open' : 'sidebar'}
      id="documents-drawer"
      aria-label="Documents"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open && !(e.target as HTMLElement).closest('dialog')) onClose?.();
      }}
    >
      <label
        className="checkbox static-toggle"
        title="Every webhook configuration and policy of the workspace is a static manifest: loaded by the kube-apiserver from staticManifestsDir (1.37+), checked as its manifest loader does, run before API objects, exported as a manifest directory"
      >
        <input type="checkbox" data-testid="workspace-static" checked={allStatic} onChange={(e) => ws().setStaticManifests(e.target.checked)} /> Static manifest
        set (whole workspace)
      </label>
      <ChainSettings />
      <div className="sidebar-head">
        <h2>Documents</h2>
        <NewMenu onGallery={() => setGallery(true)} />
        <button type="button" className="icon drawer-close" aria-label="Close the document list" onClick={onClose}>
          ×
        </button>
        {gallery ? (
          <OnDemand part="the gallery" fallback={null}>
            <Gallery onClose={() => setGallery(false)} />
          </OnDemand>
        ) : null}
      </div>
      {docs.length === 0 ? <p className="empty">No documents. Create one, paste YAML or drop a file here.</p> : null}
      <ul className="doc-list">
        {docs.map((d) => {
          const kind = docKind(d);
          const selected = d.id === selectedId;
          const c = checks(); // loaded beside the first form (src/store/checks.ts)
          const p = c && (counted || (selected && selectedCounted)) ? c.docProblems(d, docs) : NOT_COUNTED;
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
                    onKeyDown={(e) => {
                      if (e.key !== 'Escape') return;
                      e.stopPropagation(); // ends the rename, not the drawer
                      setRenaming(null);
                    }}
                  />
                </form>
              ) : (
                <button
                  type="button"
                  className="doc-button"
                  aria-current={selected ? 'true' : undefined}
                  onClick={() => {
                    ws().select(d.id);
                    onClose?.();
                  }}
                >
                  {/* kind and name keep their line; the badges move under them when the whole name does not fit beside them (app.css) */}
                  <span className="doc-name">
                    <span className={`kind kind-${shortKind[kind] ?? 'other'}`} title={p.checked ? kind : `${kind}: kept, not checked`}>
                      {shortKind[kind] ?? kind}
                    </span>
                    <span className="doc-title">{docTitle(d)}</span>
                  </span>
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
                  <button
                    type="button"
                    className="icon text"
                    aria-label={`Duplicate ${docTitle(d)}`}
                    title="Duplicate: a copy of this document in the workspace"
                    onClick={() => ws().duplicate(d.id)}
                  >
                    Duplicate
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

/**
 * The preview of a quick fix before it is applied: what it fixes, its note, the values it
 * asks for, and the line diff of the document's YAML that applying writes (the smallest text
 * edit: comments, quoting and order stay), plus the documents it adds. Apply is
 * one undo step (Ctrl/Cmd+Z undoes it).
 */
import { useEffect, useMemo, useState } from 'react';
import { applyOpenFix, closeFix, previewFix, useOpenFix, useWorkspace } from '../store';
import { Dialog } from './Dialog';

export function FixDialog() {
  const target = useOpenFix();
  const docs = useWorkspace((s) => s.docs);
  const [params, setParams] = useState<Record<string, string>>({});
  useEffect(() => {
    setParams(Object.fromEntries((target?.fix.params ?? []).map((p) => [p.name, p.default])));
  }, [target]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: previewFix reads the document from the store: a change of docs is what makes the preview stale
  const preview = useMemo(() => (target ? previewFix(target.docId, target.fix, params) : undefined), [target, params, docs]);
  return target ? (
    <Dialog className="fix-dialog" labelledBy="fix-title" testId="fix-dialog" onClose={() => closeFix()}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          applyOpenFix(params);
        }}
      >
        <h2 id="fix-title">{target.fix.title}</h2>
        <p className="fix-problem">Fixes: {target.problem}</p>
        {target.fix.note ? <p className="hint">{target.fix.note}</p> : null}
        {(target.fix.params ?? []).map((p) => (
          <label key={p.name} className="fix-param">
            {p.label}
            <input type="text" value={params[p.name] ?? ''} placeholder={p.placeholder} onChange={(e) => setParams({ ...params, [p.name]: e.target.value })} />
          </label>
        ))}
        {preview?.refused ? (
          <p className="banner error" role="alert" data-testid="fix-refused">
            {preview.refused}
          </p>
        ) : null}
        {preview ? (
          <>
            {/* a named group: aria-label is not allowed on a pre without a role */}
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable block takes the focus so that the keyboard can scroll it (axe: scrollable-region-focusable) */}
            <pre className="fix-diff" data-testid="fix-diff" role="group" aria-label="Changes to the YAML" tabIndex={0}>
              {preview.hunks.map((l, i) =>
                l === '…' ? (
                  <span key={i} className="gap">
                    {'⋯\n'}
                  </span>
                ) : (
                  <span key={i} className={l.op === '+' ? 'add' : l.op === '-' ? 'del' : undefined}>
                    {`${l.op} ${l.text}\n`}
                  </span>
                ),
              )}
            </pre>
            {preview.added.map((text, i) => (
              // biome-ignore lint/a11y/noNoninteractiveTabindex: as above, a scrollable block takes the focus
              <pre key={i} className="fix-diff" role="group" aria-label="New document" tabIndex={0}>
                <span className="add">
                  {text
                    .split('\n')
                    .map((l) => `+ ${l}\n`)
                    .join('')}
                </span>
              </pre>
            ))}
          </>
        ) : null}
        <div className="fix-actions">
          <button type="submit" className="primary" disabled={!preview || preview.empty || !!preview.refused} data-testid="fix-apply">
            Apply
          </button>
          <button type="button" onClick={() => closeFix()}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  ) : null;
}

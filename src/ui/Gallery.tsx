/**
 * The policy gallery: the Kubernetes documentation's admission policy examples, each opened
 * as documents (policy, bindings, params) with saved cases the policy test panel runs. A
 * native modal <dialog>: focus moves in and stays, Escape closes, focus returns to the opener.
 */
import { useEffect, useRef } from 'react';
import { GALLERY, openGalleryEntry } from '../store/gallery';

/** Mounted while open (lazily loaded: the gallery's data stays out of the first bundle); `onClose` after the dialog closed. */
export default function Gallery({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  // Focus goes back to whatever opened the gallery (the "+ New…" menu) when it closes.
  const opener = useRef(document.activeElement instanceof HTMLElement ? document.activeElement : null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const close = () => ref.current?.close();
  return (
    <dialog
      ref={ref}
      className="fix-dialog gallery"
      aria-labelledby="gallery-title"
      data-testid="gallery"
      onClose={() => {
        opener.current?.focus();
        onClose();
      }}
    >
      <h2 id="gallery-title">Policy gallery</h2>
      <p className="help">
        Examples from the Kubernetes documentation. Each opens as documents beside yours, with saved cases that run in the policy’s test panel.
      </p>
      <ul className="gallery-list">
        {GALLERY.map((e) => (
          <li key={e.id} data-gallery-entry={e.id}>
            <h3>{e.title}</h3>
            <p>{e.summary}</p>
            {e.changes.length ? (
              <details>
                <summary>Changed from the page ({e.changes.length})</summary>
                <ul>
                  {e.changes.map((c) => (
                    <li key={c}>{c}</li>
                  ))}
                </ul>
              </details>
            ) : null}
            <p className="gallery-actions">
              <a href={e.source} target="_blank" rel="noreferrer">
                Source: {e.source.replace(/^https:\/\//, '')}
              </a>
              <button
                type="button"
                aria-label={`Open ${e.title}`}
                onClick={() => {
                  openGalleryEntry(e);
                  close();
                }}
              >
                Open
              </button>
            </p>
          </li>
        ))}
      </ul>
      <div className="dialog-actions">
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
    </dialog>
  );
}

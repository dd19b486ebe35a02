/**
 * Share links: the "Share…" button and its dialog (a link whose fragment carries the
 * workspace or the selected document, its length, copy, and a workspace file to download
 * when the link is long), and opening a link this page was loaded with (asking before it
 * replaces the tab's own work). A bad link changes nothing and says why.
 */
import { useEffect, useState } from 'react';
import { decodeShareFragment, isShareFragment, LONG_LINK_CHARS, shareUrl, type WorkspaceFile } from '../share';
import { useWorkspace, workspace } from '../store';
import { currentWorkspaceFile, hasOwnWork, isScratchpadOnly, openScratchpadFile, openWorkspaceFile } from '../store/share';
import { Dialog } from './Dialog';
import { download } from './download';

const notify = (level: 'error' | 'info', text: string) => workspace.getState().notify({ level, text });

function ShareDialog({ onClose }: { onClose: () => void }) {
  const hasSelection = useWorkspace((s) => s.docs.some((d) => d.id === s.selectedId));
  const [scope, setScope] = useState<'workspace' | 'document'>('workspace');
  const [file, setFile] = useState<WorkspaceFile>();
  const [url, setUrl] = useState('');
  useEffect(() => {
    let live = true;
    const ws = currentWorkspaceFile(scope);
    setFile(ws);
    setUrl('');
    void shareUrl(location.href, ws).then((u) => live && setUrl(u));
    return () => {
      live = false;
    };
  }, [scope]);
  const long = url.length > LONG_LINK_CHARS;
  return (
    <Dialog labelledBy="share-title" onClose={onClose}>
      <h2 id="share-title">Share</h2>
      <fieldset className="share-scope">
        <legend className="visually-hidden">What to share</legend>
        <label className="checkbox">
          <input type="radio" name="share-scope" checked={scope === 'workspace'} onChange={() => setScope('workspace')} /> The whole workspace (with saved cases
          and scenarios)
        </label>
        <label className="checkbox">
          <input type="radio" name="share-scope" disabled={!hasSelection} checked={scope === 'document'} onChange={() => setScope('document')} /> The selected
          document
        </label>
      </fieldset>
      <p className="help">
        The configuration travels compressed in the part of the link after <code>#</code> (the fragment). Browsers never send the fragment to the server: it
        stays between you and whoever opens the link.
      </p>
      <label htmlFor="share-url">Link</label>
      <textarea id="share-url" className="mono" rows={4} readOnly value={url} data-testid="share-url" onFocus={(e) => e.currentTarget.select()} />
      <p className="help" data-testid="share-length" role="status">
        {url ? `${url.length.toLocaleString('en')} characters` : 'Making the link…'}
      </p>
      {long ? (
        <p className="banner info" data-testid="share-too-long">
          This link is over {LONG_LINK_CHARS / 1024} KB: some chat tools and mail clients cut links that long. Download the workspace file instead and send
          that; it is also what <code>admission-workbench check --cases</code> reads in CI.
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
        <button
          type="button"
          disabled={!file}
          onClick={() =>
            file &&
            download(scope === 'workspace' ? 'workspace.workbench.json' : 'document.workbench.json', `${JSON.stringify(file, null, 2)}\n`, 'application/json')
          }
        >
          Download workspace file
        </button>
        <button
          type="button"
          className="primary"
          disabled={!url}
          onClick={() =>
            navigator.clipboard.writeText(url).then(
              () => notify('info', 'Copied the share link to the clipboard.'),
              () => notify('error', 'The browser refused clipboard access: select the link and copy it.'),
            )
          }
        >
          Copy link
        </button>
      </div>
    </Dialog>
  );
}

/** Asks before a shared workspace replaces the tab's own work. */
function OpenPrompt({ ws, onDone }: { ws: WorkspaceFile; onDone: () => void }) {
  const count = useWorkspace((s) => s.docs.length);
  return (
    <Dialog role="alertdialog" labelledBy="open-shared-title" describedBy="open-shared-text" onClose={onDone}>
      <h2 id="open-shared-title">Open the shared workspace?</h2>
      <p id="open-shared-text">
        The link holds {ws.documents.length} document(s). Opening it replaces the {count} document(s) in this tab (Undo brings them back).
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={onDone}>
          Keep my workspace
        </button>
        <button
          type="button"
          className="primary"
          // biome-ignore lint/a11y/noAutofocus: the dialog opens on the user's link and its default action takes the focus (the dialog pattern)
          autoFocus
          onClick={() => {
            openWorkspaceFile(ws);
            notify('info', `Opened a shared workspace: ${ws.documents.length} document(s).`);
            onDone();
          }}
        >
          Replace with the shared one
        </button>
      </div>
    </Dialog>
  );
}

/** Reads a share link in the page's fragment (on load and when the fragment changes), then clears it. */
function useSharedLink(): [WorkspaceFile | undefined, () => void] {
  const [pending, setPending] = useState<WorkspaceFile>();
  useEffect(() => {
    const take = () => {
      const hash = location.hash;
      if (!isShareFragment(hash)) return;
      history.replaceState(null, '', location.pathname + location.search);
      void decodeShareFragment(hash).then((r) => {
        if (!r.ok) return notify('error', `The share link could not be opened; nothing was changed. ${r.error}`);
        for (const w of r.warnings) notify('info', `Share link: ${w}`);
        if (isScratchpadOnly(r.workspace)) {
          openScratchpadFile(r.workspace);
          notify('info', 'Opened a shared CEL scratchpad (the workspace is unchanged).');
        } else if (hasOwnWork()) setPending(r.workspace);
        else {
          openWorkspaceFile(r.workspace);
          notify('info', `Opened a shared workspace: ${r.workspace.documents.length} document(s).`);
        }
      });
    };
    take();
    window.addEventListener('hashchange', take);
    return () => window.removeEventListener('hashchange', take);
  }, []);
  return [pending, () => setPending(undefined)];
}

export function ShareButton() {
  const [open, setOpen] = useState(false);
  const [pending, done] = useSharedLink();
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Share…
      </button>
      {open ? <ShareDialog onClose={() => setOpen(false)} /> : null}
      {pending ? <OpenPrompt ws={pending} onDone={done} /> : null}
    </>
  );
}

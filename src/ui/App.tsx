/** The application shell: toolbar, documents, the selected document, notices, drag and drop, shortcuts. */
import { lazy, useCallback, useEffect, useRef, useState } from 'react';
import { OnDemand } from './OnDemand';
import { useWorkspace, workspace, type Notice } from '../store';
import { useScratchpad } from '../store/scratchpad';
import { DocumentView } from './DocumentView';
import { FixDialog } from './FixDialog';
import { droppedFiles, readFiles } from './files';
import { Sidebar } from './Sidebar';
import { Toolbar } from './Toolbar';

const SimulatePanel = lazy(() => import('./simulator/SimulatePanel'));
const LockoutPanel = lazy(() => import('./simulator/LockoutPanel'));
const ImpactPanel = lazy(() => import('./impact/ImpactPanel'));
const ScratchpadPanel = lazy(() => import('./scratchpad/ScratchpadPanel'));
const MigrationPanel = lazy(() => import('./migrate/MigrationPanel'));

type View = 'document' | 'simulate' | 'lockout' | 'impact' | 'migration' | 'scratchpad';
const VIEWS: { id: View; label: string }[] = [
  { id: 'document', label: 'Document' },
  { id: 'simulate', label: 'Simulate' },
  { id: 'lockout', label: 'Lockout' },
  { id: 'impact', label: 'Impact' },
  { id: 'migration', label: 'Migration' },
  { id: 'scratchpad', label: 'CEL scratchpad' },
];

/** Document, or one of the workspace-level views; selecting a document or focusing a field shows the document again. */
function useView(): [View, (v: View) => void] {
  const [view, setView] = useState<View>('document');
  const selectedId = useWorkspace((s) => s.selectedId);
  const focusSeq = useWorkspace((s) => s.focus?.seq);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new selection or focus request is the trigger, not a value the effect reads
  useEffect(() => setView('document'), [selectedId, focusSeq]);
  // A shared scratchpad link was opened: show it.
  const scratchShown = useScratchpad((s) => s.shown);
  useEffect(() => {
    if (scratchShown) setView('scratchpad');
  }, [scratchShown]);
  return [view, setView];
}

/** How long a notice stays (hover or focus holds it); sticky ones stay until dismissed. */
const NOTICE_MS = { info: 8000, action: 15000, error: 15000 } as const;

function NoticeItem({ notice }: { notice: Notice }) {
  const [held, setHeld] = useState(false);
  const id = notice.id!;
  useEffect(() => {
    if (notice.sticky || held) return;
    const ms = notice.level === 'error' ? NOTICE_MS.error : notice.action ? NOTICE_MS.action : NOTICE_MS.info;
    const timer = setTimeout(() => workspace.getState().dismissNotice(id), ms);
    return () => clearTimeout(timer);
  }, [notice, held, id]);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: pointer and focus only hold the notice on screen while it is read; its action is a button
    <div
      className={`notice ${notice.level}`}
      data-notice-id={id}
      onPointerEnter={() => setHeld(true)}
      onPointerLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <span>{notice.text}</span>
      {notice.action ? (
        <button
          type="button"
          className="small"
          onClick={() => {
            notice.action!.run();
            workspace.getState().dismissNotice(id);
          }}
        >
          {notice.action.label}
        </button>
      ) : null}
      <button type="button" className="icon" aria-label="Dismiss" onClick={() => workspace.getState().dismissNotice(id)}>
        ×
      </button>
    </div>
  );
}

/** Notices sit between the header and the workspace (they never cover it) and dismiss themselves. */
function Notices() {
  const notices = useWorkspace((s) => s.notices);
  return (
    <div className="notices" role="status" aria-live="polite">
      {notices.map((n) => (
        <NoticeItem key={n.id} notice={n} />
      ))}
    </div>
  );
}

/** Undo/redo anywhere outside the YAML editor (which binds the same keys to the same actions). */
function useHistoryShortcuts() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || (e.target as HTMLElement | null)?.closest?.('.monaco-editor')) return;
      const key = e.key.toLowerCase();
      if (key === 'z' && !e.shiftKey) workspace.getState().undo();
      else if ((key === 'z' && e.shiftKey) || key === 'y') workspace.getState().redo();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
}

/**
 * The document list as a drawer on a phone-width screen (the toggle and the backdrop show only
 * there, app.css). It closes when a document is chosen or added; focus goes back to the toggle.
 */
function useDrawer() {
  const [open, setOpen] = useState(false);
  const isOpen = useRef(false);
  isOpen.current = open;
  const toggle = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => {
    if (!isOpen.current) return;
    setOpen(false);
    if (document.activeElement?.closest('.sidebar')) toggle.current?.focus();
  }, []);
  const selectedId = useWorkspace((s) => s.selectedId);
  // biome-ignore lint/correctness/useExhaustiveDependencies: choosing a document (selectedId changing) is what closes the drawer
  useEffect(close, [selectedId, close]);
  // Opened: focus into it (the selected document, else its first control).
  useEffect(() => {
    if (!open) return;
    const drawer = document.getElementById('documents-drawer');
    (drawer?.querySelector<HTMLElement>('[aria-current="true"]') ?? drawer?.querySelector<HTMLElement>('input, button, summary'))?.focus();
  }, [open]);
  return { open, toggle, close, flip: () => (open ? close() : setOpen(true)) };
}

export function App() {
  const doc = useWorkspace((s) => s.docs.find((d) => d.id === s.selectedId));
  const hasDocs = useWorkspace((s) => s.docs.length > 0);
  const [dragging, setDragging] = useState(false);
  const [view, setView] = useView();
  const drawer = useDrawer();
  const docCount = useWorkspace((s) => s.docs.length);
  useHistoryShortcuts();
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the page takes dropped files anywhere; the toolbar has an Import button for keyboard users
    <div
      className="app"
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes('Files')) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={(e) => {
        if (!e.dataTransfer.files.length) return;
        e.preventDefault();
        setDragging(false);
        // a dropped folder is walked (its files keep their paths in it); the items are read before the event ends
        const files = e.dataTransfer.files;
        void droppedFiles(e.dataTransfer.items).then((inFolders) => readFiles(inFolders ?? files));
      }}
    >
      <Toolbar />
      <Notices />
      <div className="main">
        <Sidebar open={drawer.open} onClose={drawer.close} />
        {drawer.open ? <div className="drawer-backdrop" aria-hidden="true" onClick={drawer.close} /> : null}
        <main className="content">
          <nav className="views" aria-label="Views">
            <button
              type="button"
              ref={drawer.toggle}
              className="drawer-toggle"
              aria-expanded={drawer.open}
              aria-controls="documents-drawer"
              data-testid="drawer-toggle"
              onClick={drawer.flip}
            >
              ☰ Documents ({docCount})
            </button>
            {VIEWS.map((v) => (
              <button key={v.id} type="button" aria-pressed={view === v.id} data-view={v.id} onClick={() => setView(v.id)}>
                {v.label}
              </button>
            ))}
          </nav>
          {view === 'simulate' ? (
            <OnDemand part="the simulator" fallback={<p className="empty">Loading the simulator…</p>}>
              <SimulatePanel />
            </OnDemand>
          ) : view === 'impact' ? (
            <OnDemand part="the impact analysis" fallback={<p className="empty">Loading the impact analysis…</p>}>
              <ImpactPanel onOpenInSimulate={() => setView('simulate')} />
            </OnDemand>
          ) : view === 'migration' ? (
            <OnDemand part="the migration" fallback={<p className="empty">Loading the migration…</p>}>
              <MigrationPanel />
            </OnDemand>
          ) : view === 'scratchpad' ? (
            <OnDemand part="the CEL scratchpad" fallback={<p className="empty">Loading the CEL scratchpad…</p>}>
              <ScratchpadPanel />
            </OnDemand>
          ) : view === 'lockout' ? (
            <OnDemand part="the lockout analysis" fallback={<p className="empty">Loading the lockout analysis…</p>}>
              <LockoutPanel />
            </OnDemand>
          ) : doc ? (
            <DocumentView key={doc.id} doc={doc} />
          ) : (
            <p className="empty">
              {hasDocs ? 'Select a document.' : 'An empty workspace: create a document (+ New…), open or paste YAML, or drop files anywhere.'}
            </p>
          )}
        </main>
      </div>
      <FixDialog />
      {dragging ? (
        <div className="drop-overlay" aria-hidden="true">
          Drop YAML or JSON files to import them
        </div>
      ) : null}
    </div>
  );
}

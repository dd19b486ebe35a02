/** Import (file, paste), export (download, copy), undo and redo. */
import { useEffect, useRef, useState, type RefObject } from 'react';
import { KUBERNETES_VERSIONS, isKubernetesVersion } from '../base/releases';
import { WORKBENCH_VERSION } from '../base/version';
import { exportDocs, exportManifestDirectory, useWorkspace, workspace, type WorkspaceDoc } from '../store';
import { ADMISSION_CONFIGURATION_FILE, type ManifestDirLayout } from '../share/manifest-dir';
import { zipFiles } from '../share/zip';
import { Dialog } from './Dialog';
import { MAX_FILE_BYTES, offerReplace, readFiles } from './files';
import { download } from './download';
import { ShareButton } from './ShareDialog';
import { setTheme, useTheme } from './theme';

/** Close a disclosure menu (Escape gives focus back to its summary). */
function closeMenu(menu: HTMLDetailsElement | null, refocus: boolean) {
  if (!menu?.open) return;
  menu.open = false;
  if (refocus) menu.querySelector('summary')?.focus();
}

/** An open menu closes when the user clicks or moves focus elsewhere. */
function useCloseOnOutsideClick(ref: RefObject<HTMLDetailsElement | null>) {
  useEffect(() => {
    const away = (e: Event) => {
      if (ref.current && !ref.current.contains(e.target as Node)) closeMenu(ref.current, false);
    };
    document.addEventListener('pointerdown', away);
    document.addEventListener('focusin', away);
    return () => {
      document.removeEventListener('pointerdown', away);
      document.removeEventListener('focusin', away);
    };
  }, [ref]);
}

/** Dark mode on or off (the system's setting until the user picks; the choice is kept). */
function ThemeToggle() {
  const theme = useTheme();
  return (
    <button
      type="button"
      className="theme-toggle"
      aria-pressed={theme === 'dark'}
      aria-label="Dark mode"
      data-testid="theme-toggle"
      title="Dark mode (follows the system until you choose)"
      onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
    >
      ◐
    </button>
  );
}

/** Paste YAML or JSON: added to the workspace, or in place of it (one undo step either way). */
function PasteDialog({ onClose }: { onClose: () => void }) {
  const [text, setText] = useState('');
  const ws = workspace.getState;
  const doImport = (replace: boolean) => {
    const ids = ws().importText(text, 'paste');
    if (replace) ws().keepOnly(ids);
    else offerReplace(ids, 'the pasted text');
    onClose();
  };
  const disabled = !text.trim() || text.length > MAX_FILE_BYTES;
  return (
    <Dialog labelledBy="paste-title" onClose={onClose} testId="paste-dialog">
      <h2 id="paste-title">Paste YAML or JSON</h2>
      <p className="help">One or more documents separated by ---, a kind: List, or JSON. Everything stays in your browser.</p>
      <textarea aria-label="YAML to import" className="mono" rows={16} autoFocus value={text} onChange={(e) => setText(e.target.value)} />
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          disabled={disabled}
          title="Only the pasted documents stay in the workspace (Undo brings the others back)"
          onClick={() => doImport(true)}
        >
          Replace workspace
        </button>
        <button type="button" className="primary" disabled={disabled} onClick={() => doImport(false)}>
          Import
        </button>
      </div>
    </Dialog>
  );
}

/** Whether CEL expressions are being checked yet. */
function CelStatus() {
  const state = useWorkspace((s) => s.celState);
  const message = useWorkspace((s) => s.celMessage);
  const release = useWorkspace((s) => s.kubernetesVersion);
  const text = { idle: 'CEL: starting', loading: 'CEL: loading engine…', ready: 'CEL: ready', failed: 'CEL: unavailable' }[state];
  return (
    <span
      className={`cel-status ${state}`}
      role="status"
      title={message ?? `cel-go and the Kubernetes ${release} CEL environment, in WebAssembly`}
      data-testid="cel-status"
    >
      {text}
    </span>
  );
}

/** The cluster's Kubernetes release: what is served, validated and compiled follows it. */
function TargetVersion() {
  const release = useWorkspace((s) => s.kubernetesVersion);
  return (
    <label
      className="target-version"
      title="The Kubernetes release of your cluster: served API versions, validation rules, the CEL environment, lints and simulation follow it"
    >
      Kubernetes{' '}
      <select
        value={release}
        data-testid="kubernetes-version"
        aria-label="Target Kubernetes version"
        onChange={(e) => isKubernetesVersion(e.target.value) && workspace.getState().setKubernetesVersion(e.target.value)}
      >
        {KUBERNETES_VERSIONS.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Toolbar() {
  const fileInput = useRef<HTMLInputElement>(null);
  const [pasting, setPasting] = useState(false);
  const [strip, setStrip] = useState(false);
  const [reorder, setReorder] = useState(false);
  const [format, setFormat] = useState<'yaml' | 'json'>('yaml');
  const [layout, setLayout] = useState<ManifestDirLayout>('per-object');
  const hasStatic = useWorkspace((s) => s.staticManifests || s.docs.some((d) => d.static));
  const canUndo = useWorkspace((s) => s.history.past.length > 0);
  const canRedo = useWorkspace((s) => s.history.future.length > 0);
  const selected = useWorkspace((s) => s.docs.find((d) => d.id === s.selectedId));
  const ws = workspace.getState;
  const exportMenu = useRef<HTMLDetailsElement>(null);
  useCloseOnOutsideClick(exportMenu);

  const doExport = (docs: readonly WorkspaceDoc[], how: 'download' | 'copy', name: string) => {
    closeMenu(exportMenu.current, false);
    const { text, stale } = exportDocs(docs, { stripServerFields: strip, reorderKeys: reorder, format });
    if (stale.length) ws().notify({ level: 'info', text: `${stale.length} document(s) have YAML that does not parse: their last valid version was exported.` });
    if (how === 'download') download(`${name}.${format}`, text, format === 'json' ? 'application/json' : 'application/yaml');
    else
      navigator.clipboard.writeText(text).then(
        () => ws().notify({ level: 'info', text: `Copied ${docs.length} document(s) to the clipboard.` }),
        () => ws().notify({ level: 'error', text: 'The browser refused clipboard access. Use Download instead.' }),
      );
  };

  /** The static manifest directory: a ZIP of one directory per plugin plus the AdmissionConfiguration, or that snippet alone. */
  const doExportManifests = (what: 'zip' | 'configuration') => {
    closeMenu(exportMenu.current, false);
    const files = exportManifestDirectory(ws().docs, layout, ws());
    const count = Object.keys(files).length - 1;
    if (count <= 0)
      return ws().notify({ level: 'info', text: 'No document is a static manifest: mark one (its header, or the whole workspace in the sidebar).' });
    if (what === 'zip') {
      download('static-manifests.zip', zipFiles(files) as Uint8Array<ArrayBuffer>, 'application/zip');
      ws().notify({
        level: 'info',
        text: `Static manifest directory: ${count} file(s) and ${ADMISSION_CONFIGURATION_FILE} (unzip on each control-plane host).`,
      });
    } else
      navigator.clipboard.writeText(files[ADMISSION_CONFIGURATION_FILE] ?? '').then(
        () => ws().notify({ level: 'info', text: 'Copied the AdmissionConfiguration to the clipboard.' }),
        () => ws().notify({ level: 'error', text: 'The browser refused clipboard access. Use Download instead.' }),
      );
  };

  return (
    <header className="toolbar">
      <h1 title={`Admission Workbench ${WORKBENCH_VERSION}`}>Admission Workbench</h1>
      <TargetVersion />
      <div className="toolbar-group" role="group" aria-label="Import">
        <button type="button" onClick={() => fileInput.current?.click()}>
          Open files…
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          accept=".yaml,.yml,.json,text/yaml,application/json"
          className="visually-hidden"
          aria-label="Open YAML or JSON files"
          tabIndex={-1}
          data-testid="file-input"
          onChange={(e) => {
            if (e.target.files) void readFiles(e.target.files);
            e.target.value = '';
          }}
        />
        <button type="button" onClick={() => setPasting(true)}>
          Paste YAML…
        </button>
        <button
          type="button"
          data-testid="new-workspace"
          title="Start from an empty workspace (Undo brings the documents back)"
          onClick={() => ws().clearAll()}
        >
          New empty workspace
        </button>
      </div>
      <div className="toolbar-group" role="group" aria-label="Export">
        <details className="menu" ref={exportMenu} onKeyDown={(e) => e.key === 'Escape' && closeMenu(exportMenu.current, true)}>
          <summary data-testid="export-menu">Export</summary>
          <div className="menu-panel">
            <button type="button" onClick={() => doExport(ws().docs, 'download', 'workspace')}>
              Download all
            </button>
            <button type="button" disabled={!selected} onClick={() => selected && doExport([selected], 'download', 'document')}>
              Download document
            </button>
            <button type="button" onClick={() => doExport(ws().docs, 'copy', '')}>
              Copy all
            </button>
            <label className="checkbox">
              <input type="checkbox" checked={strip} onChange={(e) => setStrip(e.target.checked)} /> Strip server fields
            </label>
            <label
              className="checkbox"
              title="Write keys in kubectl's order (apiVersion, kind, metadata, …). Unchecked, YAML exports the documents' own text: untouched documents byte for byte."
            >
              <input type="checkbox" checked={reorder} onChange={(e) => setReorder(e.target.checked)} data-testid="export-reorder" /> Reorder keys
            </label>
            <label className="checkbox">
              Format{' '}
              <select id="export-format" value={format} onChange={(e) => setFormat(e.target.value as 'yaml' | 'json')}>
                <option value="yaml">YAML</option>
                <option value="json">JSON</option>
              </select>
            </label>
            <hr />
            <button
              type="button"
              data-testid="export-manifests"
              disabled={!hasStatic}
              title="The documents marked static as a manifest directory (one directory per admission plugin) with the AdmissionConfiguration that points the plugins at it, in one ZIP"
              onClick={() => doExportManifests('zip')}
            >
              Static manifest directory (ZIP)
            </button>
            <button type="button" data-testid="copy-admission-configuration" disabled={!hasStatic} onClick={() => doExportManifests('configuration')}>
              Copy AdmissionConfiguration
            </button>
            <label className="checkbox">
              Files{' '}
              <select
                id="export-manifest-layout"
                data-testid="export-manifest-layout"
                value={layout}
                onChange={(e) => setLayout(e.target.value as ManifestDirLayout)}
              >
                <option value="per-object">one per object</option>
                <option value="per-directory">one per directory (multi-document)</option>
              </select>
            </label>
          </div>
        </details>
        <ShareButton />
      </div>
      <span className="spacer" />
      <CelStatus />
      <div className="toolbar-group" role="group" aria-label="History">
        <button type="button" disabled={!canUndo} onClick={() => ws().undo()} title="Undo (Ctrl/Cmd+Z)" aria-label="Undo">
          ↶
        </button>
        <button type="button" disabled={!canRedo} onClick={() => ws().redo()} title="Redo (Ctrl/Cmd+Shift+Z)" aria-label="Redo">
          ↷
        </button>
      </div>
      <ThemeToggle />
      {pasting ? <PasteDialog onClose={() => setPasting(false)} /> : null}
    </header>
  );
}

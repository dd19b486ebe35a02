/** Import (file, paste), export (download, copy), undo and redo. */
import { useRef, useState } from 'react';
import { KUBERNETES_VERSIONS, isKubernetesVersion } from '../base/releases';
import { exportDocs, useWorkspace, workspace, type WorkspaceDoc } from '../store';
import { MAX_FILE_BYTES, readFiles } from './files';
import { download } from './download';
import { ShareButton } from './ShareDialog';


/** Whether CEL expressions are being checked yet. */
function CelStatus() {
  const state = useWorkspace((s) => s.celState);
  const message = useWorkspace((s) => s.celMessage);
  const release = useWorkspace((s) => s.kubernetesVersion);
  const text = { idle: 'CEL: starting', loading: 'CEL: loading engine…', ready: 'CEL: ready', failed: 'CEL: unavailable' }[state];
  return (
    <span className={`cel-status ${state}`} role="status" title={message ?? `cel-go and the Kubernetes ${release} CEL environment, in WebAssembly`} data-testid="cel-status">
      {text}
    </span>
  );
}

/** The cluster's Kubernetes release: what is served, validated and compiled follows it. */
function TargetVersion() {
  const release = useWorkspace((s) => s.kubernetesVersion);
  return (
    <label className="target-version" title="The Kubernetes release of your cluster: served API versions, validation rules, the CEL environment, lints and simulation follow it">
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
  const [pasteText, setPasteText] = useState('');
  const [strip, setStrip] = useState(false);
  const [reorder, setReorder] = useState(false);
  const [format, setFormat] = useState<'yaml' | 'json'>('yaml');
  const canUndo = useWorkspace((s) => s.history.past.length > 0);
  const canRedo = useWorkspace((s) => s.history.future.length > 0);
  const selected = useWorkspace((s) => s.docs.find((d) => d.id === s.selectedId));
  const ws = workspace.getState;

  const doExport = (docs: readonly WorkspaceDoc[], how: 'download' | 'copy', name: string) => {
    const { text, stale } = exportDocs(docs, { stripServerFields: strip, reorderKeys: reorder, format });
    if (stale.length) ws().notify({ level: 'info', text: `${stale.length} document(s) have YAML that does not parse: their last valid version was exported.` });
    if (how === 'download') download(`${name}.${format}`, text, format === 'json' ? 'application/json' : 'application/yaml');
    else
      navigator.clipboard.writeText(text).then(
        () => ws().notify({ level: 'info', text: `Copied ${docs.length} document(s) to the clipboard.` }),
        () => ws().notify({ level: 'error', text: 'The browser refused clipboard access. Use Download instead.' }),
      );
  };

  return (
    <header className="toolbar">
      <h1>Admission Workbench</h1>
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
          data-testid="file-input"
          onChange={(e) => {
            if (e.target.files) void readFiles(e.target.files);
            e.target.value = '';
          }}
        />
        <button type="button" onClick={() => setPasting(true)}>
          Paste YAML…
        </button>
      </div>
      <div className="toolbar-group" role="group" aria-label="Export">
        <button type="button" onClick={() => doExport(ws().docs, 'download', 'workspace')}>
          Download all
        </button>
        <button type="button" disabled={!selected} onClick={() => selected && doExport([selected], 'download', 'document')}>
          Download document
        </button>
        <button type="button" onClick={() => doExport(ws().docs, 'copy', '')}>
          Copy all
        </button>
        <ShareButton />
        <label className="checkbox">
          <input type="checkbox" checked={strip} onChange={(e) => setStrip(e.target.checked)} /> Strip server fields
        </label>
        <label className="checkbox" title="Write keys in kubectl's order (apiVersion, kind, metadata, …). Unchecked, YAML exports the documents' own text: untouched documents byte for byte.">
          <input type="checkbox" checked={reorder} onChange={(e) => setReorder(e.target.checked)} data-testid="export-reorder" /> Reorder keys
        </label>
        <label className="visually-hidden" htmlFor="export-format">
          Export format
        </label>
        <select id="export-format" value={format} onChange={(e) => setFormat(e.target.value as 'yaml' | 'json')}>
          <option value="yaml">YAML</option>
          <option value="json">JSON</option>
        </select>
      </div>
      <CelStatus />
      <div className="toolbar-group" role="group" aria-label="History">
        <button type="button" disabled={!canUndo} onClick={() => ws().undo()} title="Undo (Ctrl/Cmd+Z)">
          Undo
        </button>
        <button type="button" disabled={!canRedo} onClick={() => ws().redo()} title="Redo (Ctrl/Cmd+Shift+Z)">
          Redo
        </button>
      </div>
      {pasting ? (
        <div className="dialog-backdrop">
          <div role="dialog" aria-modal="true" aria-labelledby="paste-title" className="dialog">
            <h2 id="paste-title">Paste YAML or JSON</h2>
            <p className="help">One or more documents separated by ---, a kind: List, or JSON. Everything stays in your browser.</p>
            <textarea
              aria-label="YAML to import"
              className="mono"
              rows={16}
              autoFocus
              value={pasteText}
              onChange={(e) => setPasteText(e.target.value)}
              onKeyDown={(e) => e.key === 'Escape' && setPasting(false)}
            />
            <div className="dialog-actions">
              <button type="button" onClick={() => setPasting(false)}>
                Cancel
              </button>
              <button
                type="button"
                className="primary"
                disabled={!pasteText.trim() || pasteText.length > MAX_FILE_BYTES}
                onClick={() => {
                  ws().importText(pasteText, 'paste');
                  setPasteText('');
                  setPasting(false);
                }}
              >
                Import
              </button>
            </div>
          </div>
        </div>
      ) : null}
    </header>
  );
}

/** Import (file, paste), export (download, copy), undo and redo. */
import { useRef, useState } from 'react';
import { KUBERNETES_VERSIONS, isKubernetesVersion, releaseLabel } from '../base/releases';
import { isPlatformId, PLATFORMS } from '../base/platforms';
import { WORKBENCH_VERSION } from '../base/version';
import { FIELD_VALIDATION_HELP, FIELD_VALIDATIONS, isFieldValidation } from '../k8s/field-validation';
import { useWorkspace, workspace } from '../store';
import { Dialog } from './Dialog';
import { ExportMenu } from './ExportMenu';
import { MAX_FILE_BYTES, offerReplace, readFiles } from './files';
import { ShareButton } from './ShareDialog';
import { setTheme, useTheme } from './theme';
import { UpgradeDialog } from './UpgradeDialog';

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
  const text = { idle: 'CEL: starting', loading: 'CEL: loading engine…', ready: 'CEL: ready', failed: `CEL ${release}: unavailable` }[state];
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

/** The cluster's Kubernetes release or platform (built on one): what is served, validated and compiled follows it. */
function TargetVersion() {
  const release = useWorkspace((s) => s.kubernetesVersion);
  const platform = useWorkspace((s) => s.platform);
  const choose = (v: string) => {
    if (isPlatformId(v)) workspace.getState().setPlatform(v);
    else if (isKubernetesVersion(v)) workspace.getState().setKubernetesVersion(v);
  };
  return (
    <label
      className="target-version"
      title="The Kubernetes release of your cluster, or the platform it runs: served API versions, validation rules, the CEL environment, lints and simulation follow it; a platform adds its critical namespaces to the lockout report"
    >
      Target{' '}
      <select
        value={platform ?? release}
        data-testid="kubernetes-version"
        aria-label="Target Kubernetes version or platform"
        onChange={(e) => choose(e.target.value)}
      >
        <optgroup label="Kubernetes">
          {KUBERNETES_VERSIONS.map((v) => (
            <option key={v} value={v}>
              {releaseLabel(v)}
            </option>
          ))}
        </optgroup>
        <optgroup label="OpenShift">
          {PLATFORMS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label} (Kubernetes {p.kubernetesVersion})
            </option>
          ))}
        </optgroup>
      </select>
    </label>
  );
}

/** The writes' field validation directive: unknown fields are errors (kubectl's Strict), warnings or nothing. */
function FieldValidationPicker() {
  const mode = useWorkspace((s) => s.fieldValidation);
  return (
    <label
      className="target-version"
      title={`What the apiserver does with unknown fields (?fieldValidation=): ${FIELD_VALIDATIONS.map((m) => `${m}: ${FIELD_VALIDATION_HELP[m]}`).join('; ')}`}
    >
      Fields{' '}
      <select
        value={mode}
        data-testid="field-validation"
        aria-label="Field validation"
        onChange={(e) => isFieldValidation(e.target.value) && workspace.getState().setFieldValidation(e.target.value)}
      >
        {FIELD_VALIDATIONS.map((m) => (
          <option key={m} value={m} title={FIELD_VALIDATION_HELP[m]}>
            {m}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Toolbar() {
  const fileInput = useRef<HTMLInputElement>(null);
  const [pasting, setPasting] = useState(false);
  const [upgrading, setUpgrading] = useState(false);
  const canUndo = useWorkspace((s) => s.history.past.length > 0);
  const canRedo = useWorkspace((s) => s.history.future.length > 0);
  const ws = workspace.getState;

  return (
    <header className="toolbar">
      <h1 title={`Admission Workbench ${WORKBENCH_VERSION}`}>Admission Workbench</h1>
      <TargetVersion />
      <button
        type="button"
        data-testid="upgrade-open"
        title="The workspace checked at two releases: what appears, is gone or changes at the second"
        onClick={() => setUpgrading(true)}
      >
        What changes…
      </button>
      <FieldValidationPicker />
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
        <ExportMenu />
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
      {upgrading ? <UpgradeDialog onClose={() => setUpgrading(false)} /> : null}
    </header>
  );
}

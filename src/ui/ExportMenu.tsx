/**
 * The header's Export menu: the workspace or the selected document as YAML or JSON (download or
 * clipboard), and the static manifest directory. A static set that does not load is not
 * exported as it is (the command line's `check --export-manifests` refuses it too): a dialog
 * says why, and exports only when the user chooses "Export anyway".
 */
import { useRef, useState } from 'react';
import { exportDocs, exportManifestDirectory, useWorkspace, workspace, type WorkspaceDoc } from '../store';
import { ADMISSION_CONFIGURATION_FILE, type ManifestDirLayout } from '../share/manifest-dir';
import { zipFiles } from '../share/zip';
import { Dialog } from './Dialog';
import { download } from './download';
import { closeMenu, onMenuKeyDown, useCloseOnOutsideClick } from './menu';

type ManifestExport = 'zip' | 'configuration';

/** Asked before exporting a static set that does not load. */
function DoesNotLoadDialog({ headline, onCancel, onExport }: { headline: string; onCancel: () => void; onExport: () => void }) {
  return (
    <Dialog role="alertdialog" labelledBy="not-loading-title" describedBy="not-loading-text" onClose={onCancel} testId="manifests-do-not-load">
      <h2 id="not-loading-title">This static manifest set does not load</h2>
      <p id="not-loading-text">
        {headline}. A kube-apiserver started with these files will not start. Fix the problems the documents list first; the command line (check
        --export-manifests) writes nothing for such a set.
      </p>
      <div className="dialog-actions">
        {/* biome-ignore lint/a11y/noAutofocus: the safe choice of an alert dialog takes the focus (the dialog pattern) */}
        <button type="button" className="primary" autoFocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" data-testid="export-anyway" onClick={onExport}>
          Export anyway (the apiserver will not start)
        </button>
      </div>
    </Dialog>
  );
}

export function ExportMenu() {
  const [strip, setStrip] = useState(false);
  const [reorder, setReorder] = useState(false);
  const [format, setFormat] = useState<'yaml' | 'json'>('yaml');
  const [layout, setLayout] = useState<ManifestDirLayout>('per-object');
  const [refused, setRefused] = useState<{ what: ManifestExport; headline: string } | null>(null);
  const hasStatic = useWorkspace((s) => s.staticManifests || s.docs.some((d) => d.static));
  const selected = useWorkspace((s) => s.docs.find((d) => d.id === s.selectedId));
  const ws = workspace.getState;
  const menu = useRef<HTMLDetailsElement>(null);
  useCloseOnOutsideClick(menu);

  const doExport = (docs: readonly WorkspaceDoc[], how: 'download' | 'copy', name: string) => {
    closeMenu(menu.current, false);
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
  const doExportManifests = (what: ManifestExport, anyway = false) => {
    closeMenu(menu.current, false);
    const out = exportManifestDirectory(ws().docs, layout, ws(), { anyway });
    if (!out.ok) return setRefused({ what, headline: out.headline });
    const count = Object.keys(out.files).length - 1;
    if (count <= 0)
      return ws().notify({ level: 'info', text: 'No document is a static manifest: mark one (its header, or the whole workspace in the sidebar).' });
    if (what === 'zip') {
      download('static-manifests.zip', zipFiles(out.files) as Uint8Array<ArrayBuffer>, 'application/zip');
      ws().notify({
        level: 'info',
        text: `Static manifest directory: ${count} file(s) and ${ADMISSION_CONFIGURATION_FILE} (unzip on each control-plane host).${anyway ? ' The set does not load: a kube-apiserver started with it will not start.' : ''}`,
      });
    } else
      navigator.clipboard.writeText(out.files[ADMISSION_CONFIGURATION_FILE] ?? '').then(
        () => ws().notify({ level: 'info', text: 'Copied the AdmissionConfiguration to the clipboard.' }),
        () => ws().notify({ level: 'error', text: 'The browser refused clipboard access. Use Download instead.' }),
      );
  };

  return (
    <>
      <details className="menu" ref={menu} onKeyDown={onMenuKeyDown}>
        <summary data-testid="export-menu">Export</summary>
        <div className="menu-panel">
          <button type="button" onClick={() => doExport(ws().docs, 'download', 'workspace')}>
            Download all
          </button>
          <button type="button" disabled={!selected} onClick={() => selected && doExport([selected], 'download', 'document')}>
            Download document
          </button>
          <button type="button" title="Every document, as one YAML or JSON text, to the clipboard" onClick={() => doExport(ws().docs, 'copy', '')}>
            Copy all to the clipboard
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
      {refused ? (
        <DoesNotLoadDialog
          headline={refused.headline}
          onCancel={() => setRefused(null)}
          onExport={() => {
            setRefused(null);
            doExportManifests(refused.what, true);
          }}
        />
      ) : null}
    </>
  );
}

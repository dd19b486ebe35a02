/**
 * The header's Export menu: the workspace or the selected document as YAML or JSON (download or
 * clipboard), and the static manifest directory. A static set that does not load is not
 * exported as it is (the command line's `check --export-manifests` refuses it too): a dialog
 * says why, and exports only when the user chooses "Export anyway".
 */
import { useRef, useState } from 'react';
import { exportDocs, useWorkspace, workspace, type WorkspaceDoc } from '../store';
import { ADMISSION_CONFIGURATION_FILE, type ManifestDirLayout } from '../share/manifest-dir';
import { zipFiles } from '../share/zip';
import { Dialog } from './Dialog';
import { download } from './download';
import { closeMenu, onMenuKeyDown, useCloseOnOutsideClick } from './menu';
import { isSourceDocument } from '../migrate/documents';

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
  const [codeLanguage, setCodeLanguage] = useState<'pkl' | 'pkl-self' | 'rust' | 'jsonnet'>('pkl');
  const [refused, setRefused] = useState<{ what: ManifestExport; headline: string } | null>(null);
  const hasStatic = useWorkspace((s) => s.staticManifests || s.docs.some((d) => d.static));
  const hasSources = useWorkspace((s) => s.docs.some((d) => d.object !== undefined && isSourceDocument(d.object)));
  const [keepSource, setKeepSource] = useState(false);
  const selected = useWorkspace((s) => s.docs.find((d) => d.id === s.selectedId));
  const ws = workspace.getState;
  const menu = useRef<HTMLDetailsElement>(null);
  useCloseOnOutsideClick(menu);

  const doExport = (docs: readonly WorkspaceDoc[], how: 'download' | 'copy', name: string) => {
    closeMenu(menu.current, false);
    const { text, stale, unparsed } = exportDocs(docs, { stripServerFields: strip, reorderKeys: reorder, format });
    if (stale.length) ws().notify({ level: 'info', text: `${stale.length} document(s) have YAML that does not parse: their last valid version was exported.` });
    if (unparsed.length) {
      const how = format === 'json' || strip || reorder ? 'left out (this export rewrites the objects)' : 'exported as written';
      ws().notify({ level: 'info', text: `${unparsed.length} document(s) have YAML that has never parsed: ${how}.` });
    }
    if (how === 'download') download(`${name}.${format}`, text, format === 'json' ? 'application/json' : 'application/yaml');
    else
      navigator.clipboard.writeText(text).then(
        () => ws().notify({ level: 'info', text: `Copied ${docs.length} document(s) to the clipboard.` }),
        () => ws().notify({ level: 'error', text: 'The browser refused clipboard access. Use Download instead.' }),
      );
  };

  /** The static manifest directory: a ZIP of one directory per plugin plus the AdmissionConfiguration, or that snippet alone. */
  const doExportManifests = async (what: ManifestExport, anyway = false) => {
    closeMenu(menu.current, false);
    const { exportManifestDirectory } = await import('../store/export-manifests');
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

  /** The documents as Pkl, Rust or Jsonnet (src/share/code): one file, or a ZIP of Pkl's modules; refused, with each field's path, where the language cannot hold a field as written. */
  const doExportCode = async (docs: readonly WorkspaceDoc[]) => {
    closeMenu(menu.current, false);
    const [language, selfContained] = codeLanguage === 'pkl-self' ? (['pkl', true] as const) : ([codeLanguage, false] as const);
    // the code writers load with the first export (src/store/export-code.ts)
    const { exportCode } = await import('../store/export-code');
    const out = await exportCode(docs, language, { kubernetesVersion: ws().kubernetesVersion, selfContained });
    if (out.problems.length) {
      const first = out.problems.slice(0, 3).map((p) => `${p.object} ${p.path}: ${p.message}`);
      return ws().notify({
        level: 'error',
        text: `Not exported: ${out.problems.length} field(s) cannot be written as ${language} as they are. ${first.join('; ')}`,
      });
    }
    if (out.files.length === 1) download(out.files[0]!.name, out.files[0]!.text, 'text/plain');
    else
      download(`${language}-manifests.zip`, zipFiles(Object.fromEntries(out.files.map((f) => [f.name, f.text]))) as Uint8Array<ArrayBuffer>, 'application/zip');
    if (out.stale.length)
      ws().notify({ level: 'info', text: `${out.stale.length} document(s) have YAML that does not parse: their last valid version was exported.` });
  };

  /** The Gatekeeper and Kyverno documents converted (the Migration view's set): a ZIP for a GitOps repository, or the markdown summary alone. */
  const doExportMigration = async (what: 'zip' | 'summary') => {
    closeMenu(menu.current, false);
    // the converters load with the first migration export (or the Migration view)
    const { migrationFiles } = await import('../store/migrate');
    const out = migrationFiles(keepSource);
    if (!out) return ws().notify({ level: 'error', text: 'Nothing to export: no Gatekeeper or Kyverno document converts here (the Migration view says why).' });
    if (what === 'summary') return download('MIGRATION.md', out.files['MIGRATION.md'] ?? '', 'text/markdown');
    download('native-admission.zip', zipFiles(out.files) as Uint8Array<ArrayBuffer>, 'application/zip');
    const count = Object.keys(out.files).filter((f) => f.startsWith('native/')).length;
    ws().notify({
      level: 'info',
      text: `Converted set: ${count} object file(s) under native/${keepSource ? ', the sources under source/' : ''}, and MIGRATION.md (${out.rules} rule(s)).`,
    });
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
            onClick={() => void doExportManifests('zip')}
          >
            Static manifest directory (ZIP)
          </button>
          <button type="button" data-testid="copy-admission-configuration" disabled={!hasStatic} onClick={() => void doExportManifests('configuration')}>
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
          <hr />
          <button type="button" data-testid="export-code" onClick={() => void doExportCode(ws().docs)}>
            All as code
          </button>
          <button type="button" disabled={!selected} onClick={() => selected && void doExportCode([selected])}>
            Document as code
          </button>
          <label className="checkbox" title="Code that evaluates back to exactly these objects">
            Language{' '}
            <select
              id="export-code-language"
              data-testid="export-code-language"
              value={codeLanguage}
              onChange={(e) => setCodeLanguage(e.target.value as typeof codeLanguage)}
            >
              <option value="pkl">Pkl (pkl-k8s templates)</option>
              <option value="pkl-self">Pkl (self-contained)</option>
              <option value="rust">Rust (k8s-openapi)</option>
              <option value="jsonnet">Jsonnet</option>
            </select>
          </label>
          <hr />
          <button
            type="button"
            data-testid="export-migration"
            disabled={!hasSources}
            title="The Gatekeeper and Kyverno policies converted to native admission, one file per object under native/, with MIGRATION.md, in one ZIP"
            onClick={() => void doExportMigration('zip')}
          >
            Converted policies (ZIP)
          </button>
          <button type="button" data-testid="export-migration-summary" disabled={!hasSources} onClick={() => void doExportMigration('summary')}>
            Migration summary (markdown)
          </button>
          <label className="checkbox">
            <input type="checkbox" checked={keepSource} onChange={(e) => setKeepSource(e.target.checked)} data-testid="export-keep-source" /> Keep the source
            policies beside (source/)
          </label>
        </div>
      </details>
      {refused ? (
        <DoesNotLoadDialog
          headline={refused.headline}
          onCancel={() => setRefused(null)}
          onExport={() => {
            setRefused(null);
            void doExportManifests(refused.what, true);
          }}
        />
      ) : null}
    </>
  );
}

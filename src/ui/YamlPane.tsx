/**
 * The YAML pane: Monaco with monaco-yaml (schema completion, hover and type
 * markers from the registry), two-way with the form. Our own validation
 * problems are markers at the field's line. Loaded lazily (Monaco is large).
 */
import { useEffect, useRef, useState } from 'react';
import { applyText } from '../monaco/apply-text';
import { registerFixActions, type LineFix } from '../monaco/fix-actions';
import { letEscapeThenTabLeave, TAB_TRAP_HELP } from '../monaco/tab-escape';
import { isLargeModel, monaco, modelUri } from '../monaco/setup';
import { docKind, docPositions, openFix, workspace, type WorkspaceDoc } from '../store';
// this pane is a lazy chunk: the checks come with it if they are not in yet
import { docProblems } from '../store/problems';
import { kindSpecOf, paramSpecOf } from '../k8s';
import { isSourceDocument } from '../migrate/documents';
import { revealEdited } from './yaml-reveal';
import { coverageStore, type DocCoverage } from '../store/coverage';

const COVERAGE_LABEL = { covered: 'Covered by the saved cases', partly: 'Partly covered by the saved cases', never: 'Never run by the saved cases' } as const;

/** Gutter marks of the saved cases' coverage (src/store/coverage.ts), for the text they were computed on. */
function coverageDecorations(model: monaco.editor.ITextModel, c: DocCoverage | undefined): monaco.editor.IModelDeltaDecoration[] {
  if (!c || c.text !== model.getValue()) return [];
  return c.marks
    .filter((m) => m.line <= model.getLineCount())
    .map((m) => ({
      range: new monaco.Range(m.line, 1, m.line, 1),
      options: { linesDecorationsClassName: `cov-mark cov-${m.state}`, linesDecorationsTooltip: `${COVERAGE_LABEL[m.state]}\n${m.title}` },
    }));
}
import { ALL_MARKERS_UP_TO, nearVisible } from './yaml-markers';

const OWNER = 'workbench';

/** A keystroke the store took longer than this for (a large text read whole) makes the next ones wait for a pause in typing. */
const SLOW_KEYSTROKE_MS = 400;
const TYPING_PAUSE_MS = 150;
/** Markers need positions (a parse of the text): computed when the browser is idle, not in the keystroke. */
const MARKER_DELAY_MS = 120;
const SEVERITY = { error: monaco.MarkerSeverity.Error, warning: monaco.MarkerSeverity.Warning, info: monaco.MarkerSeverity.Info };

function markersFor(doc: WorkspaceDoc, visible?: { startLine: number; endLine: number }): monaco.editor.IMarkerData[] {
  const problems = docProblems(doc, workspace.getState().docs);
  if (doc.error) {
    const e = doc.error;
    return [
      {
        severity: monaco.MarkerSeverity.Error,
        message: `${e.message}\nThe form keeps the last version that parsed.`,
        startLineNumber: e.line,
        startColumn: e.column,
        endLineNumber: e.endLine ?? e.line,
        endColumn: e.endColumn ?? e.column + 1,
      },
    ];
  }
  const positions = docPositions(doc);
  if (!positions) return [];
  return nearVisible(problems.items, positions, visible).map((p) => {
    const pos = positions.positionOf(p.field);
    const r = pos.exact ? (pos.key ?? pos.value) : (pos.key ?? pos.value);
    const oneLine = r.startLine === r.endLine;
    return {
      severity: SEVERITY[p.level],
      message: `${p.field || '(object)'}: ${p.message}${p.hint ? `\n${p.hint}` : ''}`,
      source: p.lint ? `${p.label} ${p.lint}` : p.label,
      startLineNumber: r.startLine,
      startColumn: r.startColumn,
      endLineNumber: oneLine ? r.endLine : r.startLine,
      endColumn: oneLine ? Math.max(r.endColumn, r.startColumn + 1) : r.startColumn + 200,
    };
  });
}

/** The quick fixes of the problems on lines start..end of a document's model (Monaco code actions). */
function fixesAt(uri: monaco.Uri, startLine: number, endLine: number): LineFix[] {
  const docId = /\/workspace\/([^.]+)\./.exec(uri.path)?.[1];
  const docs = workspace.getState().docs;
  const doc = docs.find((d) => d.id === docId);
  const positions = doc && !doc.error ? docPositions(doc) : undefined;
  if (!doc || !positions) return [];
  // (of 30,000 problems, those in the list elements on these lines: Monaco asks at every keystroke)
  return nearVisible(docProblems(doc, docs).items, positions, { startLine, endLine }, 1).flatMap((p) => {
    if (!p.fixes?.length) return [];
    const pos = positions.positionOf(p.field);
    const line = (pos.key ?? pos.value).startLine;
    if (line < startLine || line > endLine) return [];
    const problem = `${p.label} ${p.field || '(object)'}: ${p.message}`;
    return p.fixes.map((fix) => ({ title: `${fix.title} (${p.label})`, run: () => openFix({ docId: doc.id, problem, fix }) }));
  });
}
registerFixActions(monaco, fixesAt);

export default function YamlPane({ doc }: { doc: WorkspaceDoc }) {
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const applying = useRef(false);
  const docId = doc.id;
  /** The live region's text: how to leave the editor, once Esc has armed the way out. */
  const [announcement, setAnnouncement] = useState('');

  useEffect(() => {
    const editor = monaco.editor.create(host.current!, {
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 13,
      tabSize: 2,
      insertSpaces: true,
      wordWrap: 'off',
      renderWhitespace: 'boundary',
      // Monaco dims the number of the empty line after the final newline to a contrast of 1.8:1 (axe: serious); shown as the others.
      renderFinalNewline: 'on',
      ariaLabel: `YAML of the selected document. ${TAB_TRAP_HELP}`,
      fixedOverflowWidgets: true,
    });
    editorRef.current = editor;
    // Undo and redo go through the workspace, so they cover form and YAML edits alike.
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyZ, () => workspace.getState().undo());
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyMod.Shift | monaco.KeyCode.KeyZ, () => workspace.getState().redo());
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyY, () => workspace.getState().redo());
    // Tab indents here: Esc then Tab leaves (Ctrl+M, Monaco's tab-focus mode, is the other way out).
    const escapeThenTab = letEscapeThenTabLeave(editor, monaco.KeyCode, setAnnouncement);
    return () => {
      escapeThenTab.dispose();
      editor.dispose();
      editorRef.current = null;
    };
  }, []);

  // One model per document; switching documents switches models (and keeps each one's view state in Monaco).
  useEffect(() => {
    const editor = editorRef.current!;
    const current = workspace.getState().docs.find((d) => d.id === docId);
    if (!current) return;
    const uri = modelUri(docId, docKind(current));
    const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(current.text, 'yaml', uri);
    if (model.getValue() !== current.text) model.setValue(current.text);
    editor.setModel(model);
    // Folding reads the whole text again after every change (its ranges stop at 5,000 anyway): off for a large model.
    editor.updateOptions({ folding: !isLargeModel(model) });
    editor.updateOptions({
      readOnly:
        !kindSpecOf(current.object) &&
        !isSourceDocument(current.object) &&
        !paramSpecOf(
          current.object,
          workspace.getState().docs.map((d) => d.object),
        ) &&
        !current.error &&
        current.object !== undefined,
    });
    /** The model's text as last written or read by us. */
    let modelText = model.getValue();
    // Every keystroke goes to the store: an edit inside one list element of a large text is read
    // in part (src/yaml reparse.ts). Where the store had to read a large text whole (a JSON text,
    // a new list item: seconds), the next keystrokes are handed over after a pause in typing.
    let typing: ReturnType<typeof setTimeout> | undefined;
    let slow = false;
    const flush = () => {
      if (typing) clearTimeout(typing);
      typing = undefined;
      modelText = model.getValue();
      const t0 = performance.now();
      workspace.getState().setText(docId, modelText);
      slow = performance.now() - t0 > SLOW_KEYSTROKE_MS;
    };
    const sub = model.onDidChangeContent(() => {
      if (applying.current) return;
      if (!slow) return flush();
      if (typing) clearTimeout(typing);
      typing = setTimeout(flush, TYPING_PAUSE_MS);
    });
    const blur = editor.onDidBlurEditorText(() => typing && flush());
    let marking: ReturnType<typeof setTimeout> | undefined;
    let marked: WorkspaceDoc | undefined;
    const mark = (d: WorkspaceDoc) => {
      marked = d;
      if (marking) clearTimeout(marking);
      marking = setTimeout(() => {
        const r = editor.getModel() === model ? editor.getVisibleRanges()[0] : undefined;
        const visible = r && { startLine: r.startLineNumber, endLine: editor.getVisibleRanges().at(-1)!.endLineNumber };
        monaco.editor.setModelMarkers(model, OWNER, markersFor(d, visible));
      }, MARKER_DELAY_MS);
    };
    // Many problems: the markers follow the view (only those around the visible lines are set).
    const scrolled = editor.onDidScrollChange((e) => {
      if (e.scrollTopChanged && marked && editor.getModel() === model && docProblems(marked, workspace.getState().docs).items.length > ALL_MARKERS_UP_TO)
        mark(marked);
    });
    const apply = (d: WorkspaceDoc) => {
      if (!typing && modelText !== d.text) {
        applying.current = true;
        applyText(monaco, model, d.text, modelText);
        modelText = d.text;
        applying.current = false;
      }
      mark(d);
    };
    // A form edit reaches the YAML at the next frame: the keystroke itself only updates the store and the form.
    let frame: number | undefined;
    let pending: WorkspaceDoc | undefined;
    const sync = (d: WorkspaceDoc) => {
      pending = d;
      frame ??= requestAnimationFrame(() => {
        frame = undefined;
        if (pending) apply(pending);
        if (pending) revealEdited(editor, pending);
        pending = undefined;
      });
    };
    apply(current);
    // coverage marks: after the cases run, and again once the text they were computed on is shown
    const coverage = editor.createDecorationsCollection();
    const showCoverage = () => {
      const c = coverageStore.getState().byDoc[docId];
      if (c || coverage.length) coverage.set(coverageDecorations(model, c));
    };
    showCoverage();
    const unsubscribeCoverage = coverageStore.subscribe(showCoverage);
    const contentCoverage = model.onDidChangeContent(showCoverage);
    const unsubscribe = workspace.subscribe((s, prev) => {
      const d = s.docs.find((x) => x.id === docId);
      // Models of deleted documents go (this one's own model goes when the pane unmounts).
      if (s.docs !== prev.docs && s.docs.length < prev.docs.length) disposeModelsExcept(new Set([...s.docs.map((x) => x.id), docId]));
      if (d && d !== prev.docs.find((x) => x.id === docId)) sync(d);
      else if (d && s.problemsRevision !== prev.problemsRevision) mark(d);
      if (s.focus && s.focus !== prev.focus && s.focus.docId === docId && d && !d.error) {
        const pos = docPositions(d)?.positionOf(s.focus.path);
        if (pos) {
          const r = pos.key ?? pos.value;
          editor.revealLineInCenterIfOutsideViewport(r.startLine);
          editor.setSelection({ startLineNumber: r.startLine, startColumn: r.startColumn, endLineNumber: r.startLine, endColumn: r.startColumn });
        }
      }
    });
    return () => {
      if (typing) flush();
      if (frame !== undefined) cancelAnimationFrame(frame);
      if (pending) apply(pending);
      if (marking) clearTimeout(marking);
      sub.dispose();
      blur.dispose();
      scrolled.dispose();
      unsubscribe();
      unsubscribeCoverage();
      contentCoverage.dispose();
      coverage.clear();
      if (!workspace.getState().docs.some((x) => x.id === docId)) {
        editorRef.current?.setModel(null); // the editor may already be disposed (unmount)
        model.dispose();
      }
    };
  }, [docId]);

  return (
    <>
      <div className="yaml-editor" ref={host} data-testid="yaml-editor" />
      <div className="visually-hidden" role="status" aria-live="polite" data-testid="yaml-editor-keys">
        {announcement}
      </div>
    </>
  );
}

/** Drop models of documents that no longer exist (an undo re-creates them from the workspace text). */
export function disposeModelsExcept(ids: ReadonlySet<string>) {
  for (const m of monaco.editor.getModels()) {
    const id = /\/workspace\/([^.]+)\./.exec(m.uri.path)?.[1];
    if (id && !ids.has(id)) m.dispose();
  }
}

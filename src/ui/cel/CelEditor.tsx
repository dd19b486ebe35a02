/**
 * A small Monaco editor for one CEL expression (lazily loaded, like the YAML pane): auto
 * height, multi-line, language 'cel' with squiggles at the compile errors' line and column,
 * hover and completion (src/monaco/cel-language.ts). Undo/redo go through the workspace history.
 * Tab moves focus (tabFocusMode), so the form stays keyboard-navigable.
 */
import { useEffect, useRef } from 'react';
import { applyText } from '../../monaco/apply-text';
import { monaco } from '../../monaco/setup';
import { isEngineFailure, type CelCompileOptions, type CelCompileResult, type CelContext } from '../../cel/types';
import { CEL_LANGUAGE_ID, clearCelModelContext, registerCelLanguage, setCelMarkers, setCelModelContext, typeCheckMarkers } from '../../monaco/cel-language';
import { useProblemsAt } from '../form-context';
import { useRefusedAt, workspace } from '../../store';
import { celLanguageServices, notRun, traceLabels, useCelTrace } from '../../store/cel';
import { convertDraft } from '../../store/test-inputs';
import { typedFields } from '../../store/object-fields';
import { celTestsInputsOf } from './use-cel';
import './cel.css';

/** Where the cursor was in the textarea when the editor took over. */
export interface Handover {
  offset: number;
  focus: boolean;
}

export interface CelEditorProps {
  docId: string;
  path: string;
  label: string;
  context: CelContext;
  options: CelCompileOptions;
  value: string;
  compiled: CelCompileResult | undefined;
  describedBy: string;
  invalid: boolean;
  domId: string;
  handover: Handover;
  onChange(value: string): void;
  onReady(): void;
  currentText(): string;
}

const MAX_HEIGHT = 320;
export const CEL_MARKER_OWNER = 'cel';
/** The markers of the apiserver's type checking (status.typeChecking), beside the compile errors. */
export const TYPE_CHECK_MARKER_OWNER = 'cel-typecheck';

let counter = 0;

let registered = false;
/** The 'cel' language (tokens, completion, hover), registered once. */
function ensureCelLanguage() {
  if (registered) return;
  registered = true;
  registerCelLanguage(monaco, celLanguageServices);
}

export default function CelEditor(props: CelEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const applying = useRef(false);
  const latest = useRef(props);
  latest.current = props;
  const { docId, path, context, options, value, compiled } = props;

  useEffect(() => {
    ensureCelLanguage();
    const p = latest.current;
    const uri = monaco.Uri.parse(`inmemory://cel/${encodeURIComponent(p.docId)}/${++counter}.cel`);
    const model = monaco.editor.createModel(p.currentText(), CEL_LANGUAGE_ID, uri);
    const editor = monaco.editor.create(host.current!, {
      model,
      automaticLayout: true,
      minimap: { enabled: false },
      lineNumbers: 'off',
      glyphMargin: false,
      folding: false,
      lineDecorationsWidth: 6,
      lineNumbersMinChars: 0,
      scrollBeyondLastLine: false,
      wordWrap: 'on',
      wrappingIndent: 'indent',
      overviewRulerLanes: 0,
      overviewRulerBorder: false,
      hideCursorInOverviewRuler: true,
      renderLineHighlight: 'none',
      scrollbar: { vertical: 'auto', horizontal: 'hidden', alwaysConsumeMouseWheel: false, verticalScrollbarSize: 8 },
      fontSize: 13,
      lineHeight: 19,
      padding: { top: 3, bottom: 3 },
      tabSize: 2,
      insertSpaces: true,
      ariaLabel: `${p.label}: CEL expression (${p.context}). Tab leaves the editor; Ctrl+Space lists completions.`,
      fixedOverflowWidgets: true,
      editContext: false,
      tabFocusMode: true,
      // Completion opens on '.' and Ctrl+Space (quick suggestions on every word hit a Monaco suggest-model race: 'getItemsByProvider' of undefined).
      quickSuggestions: false,
      suggestOnTriggerCharacters: true,
      wordBasedSuggestions: 'off',
      contextmenu: false,
      stickyScroll: { enabled: false },
      occurrencesHighlight: 'off',
      renderWhitespace: 'none',
      guides: { indentation: false },
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    });
    editorRef.current = editor;
    // Auto height: as tall as the content, up to MAX_HEIGHT.
    const fitHeight = () => {
      const h = Math.min(MAX_HEIGHT, Math.max(25, editor.getContentHeight()));
      if (host.current && host.current.style.height !== `${h}px`) {
        host.current.style.height = `${h}px`;
        editor.layout();
      }
    };
    const sizeSub = editor.onDidContentSizeChange(fitHeight);
    fitHeight();

    // Undo and redo go through the workspace, so they cover form, YAML and CEL edits alike.
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyZ, () => workspace.getState().undo());
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyMod.Shift | monaco.KeyCode.KeyZ, () => workspace.getState().redo());
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyY, () => workspace.getState().redo());

    const changeSub = model.onDidChangeContent(() => {
      if (!applying.current) latest.current.onChange(model.getValue());
    });

    // The editor's input element is the field's control: label, help, problems and data-path.
    const input = editor.getDomNode()?.querySelector('textarea');
    if (input) {
      input.id = p.domId;
      input.setAttribute('data-path', p.path);
      input.setAttribute('aria-describedby', p.describedBy);
    }

    // Take over from the textarea: same cursor, same focus.
    const pos = model.getPositionAt(Math.min(p.handover.offset, model.getValueLength()));
    editor.setPosition(pos);
    if (p.handover.focus) editor.focus();
    p.onReady();
    // Text typed into the textarea while Monaco loaded reaches the store through onChange already.
    return () => {
      sizeSub.dispose();
      changeSub.dispose();
      clearCelModelContext(model);
      editor.dispose();
      model.dispose();
      editorRef.current = null;
    };
  }, []);

  // The store changed (undo, a YAML edit, a list reorder), or refused what was typed here (an anchor or alias): follow it.
  const refused = useRefusedAt(docId, path);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a refusal leaves value as it was; the editor must show it again
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model || model.getValue() === value) return;
    applying.current = true;
    try {
      applyText(monaco, model, value);
    } finally {
      applying.current = false;
    }
  }, [value, refused]);

  useEffect(() => {
    const input = editorRef.current?.getDomNode()?.querySelector('textarea');
    if (!input) return;
    input.id = props.domId;
    input.setAttribute('data-path', path);
    input.setAttribute('aria-describedby', props.describedBy);
    if (props.invalid) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }, [path, props.domId, props.describedBy, props.invalid]);

  // Where the expression lives (completion and hover), with the document's current test input.
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    setCelModelContext(model, {
      context,
      options,
      sampleInputs: () => convertDraft(celTestsInputsOf(latest.current.docId)).cel,
      // object/oldObject and params typed by the schemas of the kinds the document can match (the schemas load on first use)
      typedFields: (root, fieldPath) => typedFields(latest.current.docId, latest.current.path, root, fieldPath),
    });
  }, [context, options]);

  // Squiggles at the compile errors (none while the engine itself is unavailable).
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    const engineDown = compiled && isEngineFailure(compiled);
    setCelMarkers(monaco, model, model.getValue().trim() && !engineDown ? compiled : undefined, CEL_MARKER_OWNER);
  }, [compiled]);

  // Warnings of the apiserver's type checking against the matched kinds' schemas (ValidatingAdmissionPolicy
  // validations' expression and messageExpression; the problems list has them too).
  const problemsHere = useProblemsAt(path);
  const typeWarnings = (problemsHere ?? []).filter((p) => p.label === 'TypeChecking').map((p) => p.message);
  const typeWarningsKey = typeWarnings.join('\0');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the markers are placed on the model's text, which follows value
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    const text = model.getValue();
    // Only while the text is the one that was checked (its source line is quoted in the warning).
    const current = typeWarningsKey !== '' && text.split('\n').some((line) => line.trim() !== '' && typeWarningsKey.includes(` | ${line}\n`));
    monaco.editor.setModelMarkers(model, TYPE_CHECK_MARKER_OWNER, current ? typeCheckMarkers(monaco, model, typeWarningsKey.split('\0')) : []);
  }, [typeWarningsKey, value]);

  // After a test run: each sub-expression's value after it, greyed text for what did not run
  // (store/cel.ts useCelTrace; src/cel/trace.ts picks the labels). Gone as soon as the text differs.
  const trace = useCelTrace(docId, path);
  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model) return;
    const decorations = editor.createDecorationsCollection(traceDecorations(model, trace));
    const sub = model.onDidChangeContent(() => decorations.clear());
    return () => {
      sub.dispose();
      decorations.clear();
    };
  }, [trace]);

  return <div className="cel-editor-host" ref={host} data-testid="cel-editor" data-expression-path={path} />;
}

/** The full value in a hover, cut beyond this many characters. */
const HOVER_MAX = 4000;

function traceDecorations(model: monaco.editor.ITextModel, trace: ReturnType<typeof useCelTrace>): monaco.editor.IModelDeltaDecoration[] {
  if (!trace || model.getValue() !== trace.expression) return [];
  const range = (from: number, to: number) => monaco.Range.fromPositions(model.getPositionAt(from), model.getPositionAt(to));
  const out: monaco.editor.IModelDeltaDecoration[] = notRun(trace.expression, trace.trace).map((r) => ({
    range: range(r.from, r.to),
    options: {
      inlineClassName: 'cel-trace-notrun',
      hoverMessage: { value: 'Not evaluated in this run (short-circuited, or a branch or macro body not entered).' },
    },
  }));
  // The values go after empty ranges at their end, in the labels' order (innermost first, as the
  // test run panel shows them): Monaco orders the text after decorations that end at one place by
  // where they start, which would put an enclosing expression's value before its operand's.
  for (const l of traceLabels(trace.expression, trace.trace)) {
    const full =
      l.full.length > HOVER_MAX
        ? `${l.full.slice(0, HOVER_MAX)}\n… (${l.full.length - HOVER_MAX} more characters; the Test result shows the whole value)`
        : l.full;
    out.push({
      range: range(l.from, l.at),
      options: {
        hoverMessage: { value: `${l.error ? 'Error' : 'Value'} of \`${trace.expression.slice(l.from, l.at).replace(/`/g, "'")}\`:\n\n\`\`\`\n${full}\n\`\`\`` },
      },
    });
    out.push({
      range: range(l.at, l.at),
      options: { showIfCollapsed: true, after: { content: ` ${l.text}`, inlineClassName: l.error ? 'cel-trace-value error' : 'cel-trace-value' } },
    });
  }
  return out;
}

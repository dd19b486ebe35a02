/**
 * A CEL expression field: the expression with its context. Until it is focused it is a plain
 * textarea (cheap: a page may hold hundreds of expressions); on focus a small Monaco editor
 * (language 'cel': squiggles at the compile errors, hover types and docs, completion) is
 * loaded and takes its place. Below it: the result type and static cost, and the Test area.
 */
import { lazy, useEffect, useRef, useState } from 'react';
import { OnDemand } from './OnDemand';
import type { StringField } from '../k8s';
import { CEL_LIMITS, type CelCompileResult, type CelContext } from '../cel/types';
import { useTestOpen } from '../store/test-inputs';
import { Labelled, useDescribedBy } from './Labelled';
import { useForm, type ControlProps } from './form-context';
import { TestPanel } from './cel/TestPanel';
import { useCelOptions, useCompile } from './cel/use-cel';
import type { Handover } from './cel/CelEditor';
import './cel/cel.css';

const CelEditor = lazy(() => import('./cel/CelEditor'));

/** At most this many Monaco editors live at once: tabbing through 200 expressions must not keep 200. */
const MAX_LIVE_EDITORS = 8;
const live: { release(): void; host(): HTMLElement | null }[] = [];

/** Register a live editor; the least recently activated ones that do not hold the focus go back to textareas. */
function registerLive(entry: { release(): void; host(): HTMLElement | null }): () => void {
  live.push(entry);
  for (let i = 0; live.length > MAX_LIVE_EDITORS && i < live.length - 1; ) {
    const old = live[i];
    if (old.host()?.contains(document.activeElement)) i++;
    else {
      live.splice(i, 1);
      old.release();
    }
  }
  return () => {
    const i = live.indexOf(entry);
    if (i >= 0) live.splice(i, 1);
  };
}

export function CelField({ field, path, value, onChange }: ControlProps<StringField>) {
  const { docId, readOnly } = useForm();
  const aria = useDescribedBy(path);
  const text = typeof value === 'string' ? value : '';
  const context = field.cel as CelContext;
  const options = useCelOptions(docId, path, context);
  const [handover, setHandover] = useState<Handover>();
  const [editorReady, setEditorReady] = useState(false);
  const testOpen = useTestOpen(docId, path);
  const compiled = useCompile(text, context, options, (!!handover || testOpen) && text.trim() !== '');
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const fieldRef = useRef<HTMLDivElement>(null);
  const active = !!handover;
  useEffect(() => {
    if (!active) return;
    return registerLive({
      release: () => {
        setHandover(undefined);
        setEditorReady(false);
      },
      host: () => fieldRef.current,
    });
  }, [active]);
  const activate = () => {
    if (handover || readOnly) return;
    const ta = textareaRef.current;
    setHandover({ offset: ta?.selectionStart ?? text.length, focus: document.activeElement === ta });
  };
  const change = (s: string) => onChange(s === '' ? undefined : s);
  return (
    <Labelled field={field} path={path}>
      <div className="cel-field" ref={fieldRef}>
        <span className="cel-context" title="The CEL environment this expression is compiled in">
          CEL · {field.cel}
        </span>
        {!editorReady ? (
          <textarea
            {...aria}
            ref={textareaRef}
            className="mono cel-textarea"
            rows={Math.min(8, Math.max(1, text.split('\n').length))}
            value={text}
            placeholder={field.placeholder}
            readOnly={readOnly}
            spellCheck={false}
            onFocus={activate}
            onChange={(e) => change(e.target.value)}
          />
        ) : null}
        {handover ? (
          <OnDemand part="the CEL editor" fallback={null}>
            <CelEditor
              docId={docId}
              path={path}
              label={field.label}
              context={context}
              options={options}
              value={text}
              compiled={compiled}
              describedBy={aria['aria-describedby']}
              invalid={!!aria['aria-invalid']}
              domId={aria.id}
              handover={handover}
              onChange={change}
              onReady={() => {
                // Keep what was typed while Monaco loaded.
                setEditorReady(true);
              }}
              currentText={() => textareaRef.current?.value ?? text}
            />
          </OnDemand>
        ) : null}
        <CompileInfo result={text.trim() ? compiled : undefined} context={context} />
        <TestPanel docId={docId} path={path} context={context} expression={text} options={options} />
      </div>
    </Labelled>
  );
}

/** The checked result type and the static cost estimate, with a warning near the budget. */
function CompileInfo({ result, context }: { result: CelCompileResult | undefined; context: CelContext }) {
  if (!result) return null;
  const limit = CEL_LIMITS.perCallLimit;
  const budget = context.endsWith('matchCondition') ? CEL_LIMITS.runtimeCelCostBudgetMatchConditions : CEL_LIMITS.runtimeCelCostBudget;
  const max = result.cost?.max;
  const level = max === undefined ? '' : max > limit ? 'over' : max >= limit / 2 ? 'warn' : '';
  const fmt = (n: number) => (n >= 1e15 ? n.toExponential(2) : n.toLocaleString('en-US'));
  return (
    <div className="cel-info" data-testid="cel-info">
      {result.ok ? (
        <span>
          type <code>{result.type}</code>
        </span>
      ) : (
        <span className="cel-compile-error">
          {result.issues.length ? `${result.issues.length} compile error${result.issues.length > 1 ? 's' : ''}` : (result.message ?? 'does not compile')}
        </span>
      )}
      {result.cost ? (
        <span
          className={`cel-cost ${level}`}
          data-testid="cel-cost"
          title={`Static cost estimate. Per-expression runtime limit ${limit.toLocaleString('en-US')}; budget ${budget.toLocaleString('en-US')} per ${context.endsWith('matchCondition') ? 'set of matchConditions' : 'evaluation'}.`}
        >
          estimated cost {fmt(result.cost.min)}–{fmt(result.cost.max)}
          {level === 'over'
            ? ` · exceeds the per-expression limit (${fmt(limit)}): may be cancelled at runtime`
            : level === 'warn'
              ? ` · near the per-expression limit (${fmt(limit)})`
              : ''}
        </span>
      ) : null}
    </div>
  );
}

/**
 * The CEL scratchpad: a bare expression evaluated in any admission
 * context, with the test input beside it, the live result and its cost, through the same CEL
 * editor and test-input form the documents use; its own share link (only the scratchpad: the
 * receiver's workspace is not touched).
 */
import { lazy, useId, useMemo, useState } from 'react';
import { OnDemand } from '../OnDemand';
import { CEL_CONTEXTS, type CelCompileOptions, type CelContext } from '../../cel/types';
import { DEFAULT_KUBERNETES_VERSION } from '../../base/releases';
import { shareUrl } from '../../share';
import { useWorkspace } from '../../store';
import { scratchpadWorkspaceFile } from '../../store/share';
import { setScratchContext, setScratchDraft, setScratchExpression, setScratchParams, useScratchpad } from '../../store/scratchpad';
import { convertDraft } from '../../store/test-inputs';
import { TestInputForm } from '../request/TestInputForm';
import { ResultView } from '../cel/ResultView';
import { useCelState, useCompile, useEvaluations } from '../cel/use-cel';
import '../cel/cel.css';
import './scratchpad.css';

const CelEditor = lazy(() => import('../cel/CelEditor'));

/** What each context is, in the words of the API field that holds such an expression. */
const CONTEXT_LABEL: Record<CelContext, string> = {
  'webhook-matchCondition': 'Webhook matchConditions[].expression',
  'vap-matchCondition': 'ValidatingAdmissionPolicy matchConditions[].expression',
  'vap-validation': 'ValidatingAdmissionPolicy validations[].expression',
  'vap-messageExpression': 'ValidatingAdmissionPolicy validations[].messageExpression',
  'vap-auditAnnotation': 'ValidatingAdmissionPolicy auditAnnotations[].valueExpression',
  'vap-variable': 'ValidatingAdmissionPolicy variables[].expression',
  'map-matchCondition': 'MutatingAdmissionPolicy matchConditions[].expression',
  'map-applyConfiguration': 'MutatingAdmissionPolicy mutations[].applyConfiguration.expression',
  'map-jsonPatch': 'MutatingAdmissionPolicy mutations[].jsonPatch.expression',
};

const SCRATCH_ID = 'scratchpad';
const NO_HANDOVER = { offset: 0, focus: false };

export default function ScratchpadPanel() {
  const { context, expression, params, draft } = useScratchpad((s) => s);
  const release = useWorkspace((s) => s.kubernetesVersion);
  const celState = useCelState();
  const options = useMemo<CelCompileOptions>(
    () => ({ ...(params ? { hasParams: true } : {}), ...(release !== DEFAULT_KUBERNETES_VERSION ? { kubernetesVersion: release } : {}) }),
    [params, release],
  );
  const current = useMemo(() => convertDraft(draft), [draft]);
  const inputs = useMemo(() => [current.cel], [current.cel]);
  const ready = celState === 'ready';
  const compiled = useCompile(expression, context, options, ready && expression.trim() !== '');
  const { results, running } = useEvaluations(expression, context, inputs, options, ready && expression.trim() !== '');
  const [link, setLink] = useState('');
  const uid = useId();
  const waiting = !expression.trim()
    ? 'Type an expression to evaluate it.'
    : celState === 'failed'
      ? 'The CEL engine is unavailable.'
      : !ready
        ? 'Waiting for the CEL engine…'
        : undefined;
  return (
    <section className="scratchpad" aria-labelledby={`${uid}-h`}>
      <h2 id={`${uid}-h`}>CEL scratchpad</h2>
      <p className="pt-muted">A bare expression in any admission context, against the test input below. It belongs to no document.</p>
      <div className="scratch-row">
        <label htmlFor={`${uid}-ctx`}>Context</label>
        <select id={`${uid}-ctx`} value={context} onChange={(e) => setScratchContext(e.target.value as CelContext)} data-testid="scratch-context">
          {CEL_CONTEXTS.map((c) => (
            <option key={c} value={c}>
              {CONTEXT_LABEL[c]}
            </option>
          ))}
        </select>
        <label className="checkbox">
          <input type="checkbox" checked={params} onChange={(e) => setScratchParams(e.target.checked)} /> params declared (spec.paramKind)
        </label>
      </div>
      <label htmlFor={`${uid}-expr`} className="scratch-label">
        Expression
      </label>
      <OnDemand
        part="the CEL editor"
        keepFallback
        fallback={
          <textarea id={`${uid}-expr`} className="scratch-fallback" value={expression} onChange={(e) => setScratchExpression(e.target.value)} rows={3} />
        }
      >
        <CelEditor
          docId={SCRATCH_ID}
          path={SCRATCH_ID}
          label="Scratchpad"
          context={context}
          options={options}
          value={expression}
          compiled={compiled}
          describedBy={`${uid}-result`}
          invalid={!!compiled && !compiled.ok}
          domId={`${uid}-expr`}
          handover={NO_HANDOVER}
          onChange={setScratchExpression}
          onReady={() => undefined}
          currentText={() => expression}
        />
      </OnDemand>
      <div id={`${uid}-result`} aria-live="polite">
        <ResultView result={expression.trim() ? results[0] : undefined} running={running} waiting={waiting} />
      </div>
      <h3>Test input</h3>
      <TestInputForm draft={draft} onChange={setScratchDraft} errors={current.errors} show={{ params }} />
      <div className="scratch-row">
        <button type="button" onClick={() => void shareUrl(location.href, scratchpadWorkspaceFile()).then(setLink)}>
          Share link to this scratchpad
        </button>
        {link ? (
          <>
            <label className="visually-hidden" htmlFor={`${uid}-link`}>
              Scratchpad link
            </label>
            <input id={`${uid}-link`} readOnly value={link} data-testid="scratch-link" onFocus={(e) => e.currentTarget.select()} />
            <button type="button" onClick={() => void navigator.clipboard?.writeText(link)}>
              Copy
            </button>
          </>
        ) : null}
      </div>
    </section>
  );
}

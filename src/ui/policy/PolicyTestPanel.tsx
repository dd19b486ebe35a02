/**
 * The policy test run: a request with its object, namespace, params and authorizer
 * answers, run through the policy and the workspace's bindings with the real CEL
 * engine; the outcome and every step of it (bindings, match conditions, variables,
 * validations and messages, audit annotations, cost).
 */
import { useEffect, useState } from 'react';
import { toText, useWorkspace, type WorkspaceDoc } from '../../store';
import { testInputs, useDraft } from '../../store/test-inputs';
import { runPolicyTest, type PolicyRunOutcome } from '../../store/policy-run';
import type { BindingTrace, EvaluationTrace, MutatingRunResult, ValidatingRunResult } from '../../policy';
import { bindingDetail, type BindingTraceBase } from '../../policy/dispatch';
import { displayValue } from '../display';
import { DiffTable } from './DiffTable';
import { TracedExpression } from '../cel/TracedExpression';
import { PolicyCases } from './PolicyCases';
import { TestInputForm } from '../request/TestInputForm';
import './policy.css';

const RUN_DELAY_MS = 200;

const show = (v: unknown) => (v === undefined ? '—' : typeof v === 'string' ? JSON.stringify(v) : displayValue(v));

function Evaluation({ e }: { e: EvaluationTrace }) {
  return (
    <div className="pt-eval">
      {e.paramName !== undefined ? (
        <div>
          params: <code>{e.paramName || '(typed in)'}</code>
        </div>
      ) : null}
      {e.matchConditions ? (
        <div>
          match conditions: <strong>{e.matchConditions.outcome}</strong>
          {e.matchConditions.failedCondition ? ` (false: ${e.matchConditions.failedCondition})` : ''}
          <ul>
            {e.matchConditions.conditions.map((c) => (
              <li key={c.name} data-testid="pt-match-condition">
                <code>{c.name}</code>: <TracedExpression expression={c.expression} trace={c.trace} /> →{' '}
                {c.ok ? <code>{show(c.value)}</code> : <span className="pt-err">{c.error}</span>}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {e.variables.length ? (
        <div>
          variables
          <ul>
            {e.variables.map((v) => (
              <li key={v.name} data-testid="pt-variable">
                <code>variables.{v.name}</code> = <TracedExpression expression={v.expression} trace={v.trace} /> →{' '}
                {v.ok ? <code>{show(v.value)}</code> : <span className="pt-err">{v.error}</span>}
                {v.type ? <span className="pt-type"> {v.type}</span> : null}
                {!v.used ? <span className="pt-muted"> (unused: not evaluated by Kubernetes)</span> : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div>
        validations
        <ol start={0}>
          {e.validations.map((v) => (
            <li key={v.index} className={`pt-${v.evaluation}`}>
              <TracedExpression expression={v.expression} trace={v.trace} /> →{' '}
              <strong>{v.evaluation === 'admit' ? 'true' : v.evaluation === 'deny' ? 'false' : 'error'}</strong>
              {v.error ? <div className="pt-err">{v.error}</div> : null}
              {v.message ? (
                <div>
                  message ({v.messageSource}): <q>{v.message}</q>
                  {v.code ? ` · ${v.reason ?? 'Invalid'} (${v.code})` : ''}
                </div>
              ) : null}
              {v.messageExpression ? (
                <div data-testid="pt-message-expression">
                  messageExpression: <TracedExpression expression={v.messageExpression.expression} trace={v.messageExpression.trace} /> →{' '}
                  {v.messageExpression.error ? <span className="pt-err">error</span> : <code>{show(v.messageExpression.value)}</code>}
                </div>
              ) : null}
              {v.messageExpression?.rejected || v.messageExpression?.error ? (
                <div className="pt-muted">messageExpression not used: {v.messageExpression.rejected ?? v.messageExpression.error}</div>
              ) : null}
            </li>
          ))}
        </ol>
      </div>
      {e.auditAnnotations.length ? (
        <div>
          audit annotations
          <ul>
            {e.auditAnnotations.map((a) => (
              <li key={a.key} data-testid="pt-audit-annotation">
                <code>{a.key}</code>: <TracedExpression expression={a.valueExpression} trace={a.trace} /> →{' '}
                {a.action === 'publish' ? (
                  <q>{a.value}</q>
                ) : a.action === 'exclude' ? (
                  <span className="pt-muted">omitted (null or empty)</span>
                ) : (
                  <span className="pt-err">{a.error}</span>
                )}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="pt-muted">
        cost {e.cost} of the {e.budget.toLocaleString('en')} budget{e.outOfBudget ? ' — out of budget' : ''}
      </div>
    </div>
  );
}

/**
 * Which params a binding used, and why: what its paramRef found (and parameterNotFoundAction),
 * or, loudly, that the test input's params replaced the paramRef (results then differ from the
 * cluster's, where only paramRef counts).
 */
function ParamsUsed({ params }: { params: BindingTraceBase['params'] }) {
  if (!params?.paramRef) return null;
  const action = params.paramRef.parameterNotFoundAction || 'unset';
  if (params.mode === 'typed') {
    const without = params.overridden?.error ?? params.overridden?.detail ?? '';
    return (
      <div className="pt-params pt-params-override" role="note" data-testid="params-override">
        <strong>The test input's params override this binding's paramRef</strong> ({params.paramRef.by}, parameterNotFoundAction {action}): the cluster would
        not use them. Without them: {without}. Empty the Params input to run with what paramRef finds.
      </div>
    );
  }
  return (
    <div className="pt-params" data-testid="params-used">
      params: {params.error ? <span className="pt-err">{params.error}</span> : params.detail}{' '}
      <span className="pt-muted">
        (paramRef {params.paramRef.by}; parameterNotFoundAction {action})
      </span>
    </div>
  );
}

function Binding({ b }: { b: BindingTrace }) {
  return (
    <li className="pt-binding">
      <div>
        binding <code>{b.name}</code> [{b.validationActions.join(', ')}]:{' '}
        {b.applies ? <strong>applies</strong> : <span className="pt-muted">does not apply</span>}
        {bindingDetail(b) ? ` — ${bindingDetail(b)}` : ''}
      </div>
      <ParamsUsed params={b.params} />
      {b.configError ? <div className="pt-err">{b.configError}</div> : null}
      {b.evaluations.map((e, i) => (
        <Evaluation key={i} e={e} />
      ))}
    </li>
  );
}

/** Errors met (whatever failurePolicy made of them), and the reminder that a policy needs a binding. */
function RunErrors({ errors, failurePolicy, bindings }: { errors: readonly string[]; failurePolicy: string; bindings: number }) {
  return (
    <>
      {errors.length ? (
        <div className="pt-err">
          errors (failurePolicy {failurePolicy})
          <ul>
            {errors.map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {bindings === 0 ? <p className="pt-muted">No binding in the workspace names this policy: a policy without a binding does nothing.</p> : null}
    </>
  );
}

function MutatingResult({ r }: { r: MutatingRunResult }) {
  const label = { admit: r.mutated ? 'Mutated' : 'Admitted unchanged', deny: 'Denied', skip: 'Not applied' }[r.outcome];
  return (
    <div className="pt-result">
      <p
        className={`pt-outcome pt-${r.outcome === 'admit' ? 'admit' : r.outcome}`}
        data-testid="policy-outcome"
        data-outcome={r.outcome}
        data-mutated={String(r.mutated)}
      >
        {label}
        {r.decision.code ? ` · HTTP ${r.decision.code}` : ''}
      </p>
      {r.decision.message ? <p data-testid="policy-message">{r.decision.message}</p> : null}
      {r.skipReason ? <p className="pt-muted">{r.skipReason}</p> : null}
      <DiffTable diff={r.diff} caption="Changes to the object" />
      {r.reinvocation ? (
        <p className={r.reinvocation.changesAgain ? 'pt-err' : 'pt-muted'} data-testid="policy-reinvocation">
          Reinvocation check (the policy applied again to its own output):{' '}
          {r.reinvocation.changesAgain
            ? `it changes the object again (${r.reinvocation.diff.length} change(s)) — not idempotent`
            : 'no further change (idempotent)'}
        </p>
      ) : null}
      <RunErrors errors={r.errors} failurePolicy={r.failurePolicy} bindings={r.bindings.length} />
      <ul className="pt-bindings">
        {r.bindings.map((b) => (
          <li key={b.name} className="pt-binding">
            <div>
              binding <code>{b.name}</code>: {b.applies ? <strong>applies</strong> : <span className="pt-muted">does not apply</span>}
              {bindingDetail(b) ? ` — ${bindingDetail(b)}` : ''}
            </div>
            <ParamsUsed params={b.params} />
            {b.configError ? <div className="pt-err">{b.configError}</div> : null}
            {b.evaluations.map((e, i) => (
              <ol key={i} start={0} className="pt-eval">
                {e.mutations.map((m) => (
                  <li key={m.index} data-testid="pt-mutation">
                    {m.patchType}: <TracedExpression expression={m.expression} trace={m.trace} /> →{' '}
                    {m.error ? (
                      <span className="pt-err">{m.error}</span>
                    ) : m.skipped ? (
                      <span className="pt-muted">{m.skipped}</span>
                    ) : (
                      `${m.changes.length} change(s)`
                    )}
                  </li>
                ))}
              </ol>
            ))}
          </li>
        ))}
      </ul>
      {r.mutated ? (
        <details>
          <summary>Mutated object</summary>
          <pre className="mono pt-object">{toText(r.object)}</pre>
        </details>
      ) : null}
      <p className="pt-muted">total runtime cost {r.totalCost}</p>
    </div>
  );
}

/** Every reason the request is denied, with the one the apiserver reports to the client marked. */
function Denials({ r }: { r: ValidatingRunResult }) {
  if (r.denials.length < 2) return null;
  return (
    <div data-testid="policy-denials">
      All {r.denials.length} reasons (the apiserver reports only the first to the client):
      <ol>
        {r.denials.map((d, i) => (
          <li key={i} data-reported={String(d.reported)}>
            {d.index >= 0 ? <>validation {d.index}</> : 'policy'}
            {d.binding !== undefined ? (
              <>
                {' '}
                (binding <code>{d.binding}</code>)
              </>
            ) : null}
            : {d.message}
            {d.reported ? <strong> — reported</strong> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

function Result({ run }: { run: PolicyRunOutcome }) {
  if (!run.ok)
    return (
      <p className="pt-problem">
        Fix the test inputs to run: {run.inputProblems.map((p) => `${p.field}: line ${p.line}, column ${p.column}: ${p.message}`).join('; ')}
      </p>
    );
  if (run.kind === 'mutating') return <MutatingResult r={run.result} />;
  const r = run.result;
  const label = { admit: 'Admitted', deny: 'Denied', warn: 'Admitted with warnings', skip: 'Not applied' }[r.outcome];
  return (
    <div className="pt-result">
      <p className={`pt-outcome pt-${r.outcome}`} data-testid="policy-outcome" data-outcome={r.outcome}>
        {label}
        {r.decision.code ? ` · HTTP ${r.decision.code}` : ''}
      </p>
      {r.decision.message ? <p data-testid="policy-message">{r.decision.message}</p> : null}
      <Denials r={r} />
      {r.skipReason ? <p className="pt-muted">{r.skipReason}</p> : null}
      {r.warnings.length ? (
        <div>
          warnings
          <ul>
            {r.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {Object.keys(r.auditAnnotations).length ? (
        <div>
          audit annotations on the request
          <ul>
            {Object.entries(r.auditAnnotations).map(([k, v]) => (
              <li key={k}>
                <code>{k}</code>: <code>{v}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <RunErrors errors={r.errors} failurePolicy={r.failurePolicy} bindings={r.bindings.length} />
      <ul className="pt-bindings">
        {r.bindings.map((b) => (
          <Binding key={b.name} b={b} />
        ))}
      </ul>
      <p className="pt-muted">total runtime cost {r.totalCost}</p>
    </div>
  );
}

export default function PolicyTestPanel({ doc }: { doc: WorkspaceDoc }) {
  const { draft, edited } = useDraft(doc.id);
  const docs = useWorkspace((s) => s.docs);
  const celState = useWorkspace((s) => s.celState);
  const [run, setRun] = useState<PolicyRunOutcome | undefined>();
  const [open, setOpen] = useState(true);

  useEffect(() => {
    if (!open || celState !== 'ready') return;
    let cancelled = false;
    const t = setTimeout(() => {
      void runPolicyTest(doc, docs, draft).then((r) => !cancelled && setRun(r));
    }, RUN_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [open, celState, doc, docs, draft]);

  const errors = run && !run.ok ? run.inputProblems : [];
  return (
    <section className="policy-test" aria-label="Policy test run">
      <div className="pt-head">
        <h2>
          <button type="button" className="item-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? '▾' : '▸'} Test run
          </button>
        </h2>
        {edited ? (
          <button type="button" className="small" onClick={() => testInputs.getState().resetDraft(doc.id)}>
            Reset inputs
          </button>
        ) : (
          <span className="pt-muted">inputs: defaults from the policy's rules (shared with the CEL Test areas)</span>
        )}
      </div>
      {open ? (
        <div className="pt-body">
          <div className="pt-inputs">
            <TestInputForm
              draft={draft}
              errors={errors}
              onChange={(d) => testInputs.getState().setDraft(doc.id, d)}
              paramsHelp="A param object typed in. Leave empty to resolve each binding's paramRef against the workspace's documents of the paramKind."
            />
          </div>
          <div className="pt-output" aria-live="polite">
            {celState !== 'ready' ? <p className="pt-muted">Waiting for the CEL engine…</p> : run ? <Result run={run} /> : <p className="pt-muted">Running…</p>}
            <PolicyCases doc={doc} draft={draft} run={run} />
          </div>
        </div>
      ) : null}
    </section>
  );
}

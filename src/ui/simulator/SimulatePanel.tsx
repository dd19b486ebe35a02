/**
 * The Simulate view: a request (from a template or edited in the one test-input form) and the
 * response assumed for each webhook, sent through the workspace's whole admission chain as the
 * apiserver would (src/admission); re-run on every edit. Shows the verdict and the status the
 * client would see, the chain step by step, patches and the object diff, warnings, audit
 * annotations; saved scenarios below.
 */
import { useEffect, useId, useMemo, useState } from 'react';
import type { SimResult } from '../../store/simulator';
import { REQUEST_TEMPLATES, toDraft, type ScenarioCluster } from '../../request';
import { nameOf, namespaceOf, obj, str } from '../../base/json';
import { useWorkspace } from '../../store';
import { runSimulation, setSimulatorDraft, useSimulatorDraft, webhooksOf, type SimRun } from '../../store/simulator';
import { DiffTable } from '../policy/DiffTable';
import { MutationBreaks } from './MutationBreaks';
import { TestInputForm } from '../request/TestInputForm';
import { Scenarios } from './Scenarios';
import { Timeline } from './Timeline';
import { WebhookResponses } from './WebhookResponses';
import { AuthorizationAnswer } from './AuthorizationAnswer';
import { gateEnabled } from '../../base/releases';
import './simulator.css';

const RUN_DELAY_MS = 150;

export default function SimulatePanel() {
  const draft = useSimulatorDraft();
  const docs = useWorkspace((s) => s.docs);
  const celState = useWorkspace((s) => s.celState);
  const release = useWorkspace((s) => s.kubernetesVersion); // runs again at another target release
  const allStatic = useWorkspace((s) => s.staticManifests); // … and when the workspace becomes a static manifest set
  const staticOrder = useWorkspace((s) => s.staticOrder); // … or its static webhooks' order changes
  const gates = useWorkspace((s) => s.featureGates); // … or a gate is turned on
  const conditional = gateEnabled('ConditionalAuthorization', release, gates);
  const webhooks = useMemo(() => {
    const mine = webhooksOf(docs);
    const names = new Set(mine.map((w) => w.name));
    // the cluster's webhooks a request from an Impact report meets too (a workspace webhook of the same name replaces its configuration)
    const theirs = webhooksOf((draft.cluster?.objects ?? []).map((object, i) => ({ id: `cluster-${i}`, object }))).filter((w) => !names.has(w.name));
    return [...mine, ...theirs];
  }, [docs, draft.cluster]);
  const [run, setRun] = useState<SimRun>();
  const [running, setRunning] = useState(false);
  const uid = useId();

  // biome-ignore lint/correctness/useExhaustiveDependencies: runSimulation reads the release, the static flag, the static order and the gates from the store, so they are its triggers
  useEffect(() => {
    if (celState !== 'ready') return;
    let cancelled = false;
    setRunning(true);
    const t = setTimeout(() => {
      void runSimulation(docs, draft).then((r) => {
        if (cancelled) return;
        setRun(r);
        setRunning(false);
      });
    }, RUN_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [celState, docs, draft, release, allStatic, staticOrder, gates]);

  const errors = run && !run.ok ? run.draftErrors : [];
  return (
    <section className="simulate" aria-labelledby={`${uid}-h`}>
      <h2 id={`${uid}-h`}>Simulate a request</h2>
      <p className="sim-muted">
        The request goes through every webhook configuration and admission policy of the workspace, in the apiserver's order: mutating webhooks and
        MutatingAdmissionPolicies (with reinvocation), then validating webhooks and ValidatingAdmissionPolicies. Nothing is sent anywhere.
      </p>
      <div className="sim-body">
        <div className="sim-inputs">
          <label className="sim-template" htmlFor={`${uid}-template`}>
            Request template
          </label>
          <select
            id={`${uid}-template`}
            value=""
            onChange={(e) => {
              const t = REQUEST_TEMPLATES.find((x) => x.id === e.target.value);
              // a template is not the replayed request: the cluster's objects go with it
              if (t) setSimulatorDraft({ input: toDraft(t.input), webhooks: draft.webhooks });
            }}
          >
            <option value="">Start from a template…</option>
            {REQUEST_TEMPLATES.map((t) => (
              <option key={t.id} value={t.id}>
                {t.title}
              </option>
            ))}
          </select>
          {draft.cluster ? (
            <ClusterObjects
              cluster={draft.cluster}
              onForget={() => {
                const { cluster: _, ...rest } = draft;
                setSimulatorDraft(rest);
              }}
            />
          ) : null}
          <TestInputForm draft={draft.input} errors={errors} onChange={(input) => setSimulatorDraft({ ...draft, input })} show={{ params: false }} />
          <WebhookResponses webhooks={webhooks} responses={draft.webhooks} onChange={(w) => setSimulatorDraft({ ...draft, webhooks: w })} />
          {conditional ? (
            <AuthorizationAnswer
              value={draft.authorization}
              onChange={(a) => {
                const { authorization: _, ...rest } = draft;
                setSimulatorDraft(a ? { ...rest, authorization: a } : rest);
              }}
            />
          ) : null}
        </div>
        <div className="sim-output" aria-live="polite" aria-busy={running}>
          {celState === 'failed' ? (
            <p className="pt-problem">The CEL engine is unavailable: policies and matchConditions cannot be evaluated.</p>
          ) : celState !== 'ready' ? (
            <p className="sim-muted">Waiting for the CEL engine…</p>
          ) : !run ? (
            <p className="sim-muted">Running…</p>
          ) : run.ok ? (
            <SimResultView result={run.result} diff={run.diff} breaks={run.breaks} unstored={run.unstored} docs={docs} />
          ) : (
            <div className="pt-problem" role="alert">
              {run.message ?? 'Fix the request to run it:'}
              <ul>
                {run.draftErrors.map((e, i) => (
                  <li key={`d${i}`}>
                    {e.field}: line {e.line}, column {e.column}: {e.message}
                  </li>
                ))}
                {run.responseErrors.map((e, i) => (
                  <li key={`r${i}`}>
                    response of {e.webhook}: {e.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          <Scenarios docs={docs} draft={draft} current={run?.ok ? run.result : undefined} />
        </div>
      </div>
    </section>
  );
}

/** What a request opened from an Impact report meets beside the workspace: the cluster's objects and the release the report judged it at. */
function ClusterObjects({ cluster, onForget }: { cluster: ScenarioCluster; onForget(): void }) {
  const n = cluster.objects.length;
  return (
    <div className="sim-cluster" data-testid="sim-cluster" role="note">
      <p>
        {`From the Impact report${cluster.source ? `, ${cluster.source}` : ''}: the request as the replay built it, the webhook answers it assumed`}
        {cluster.kubernetesVersion ? `, at Kubernetes ${cluster.kubernetesVersion} (the report's release, whatever the workspace's)` : ''}
        {n ? `, and ${n} object${n === 1 ? '' : 's'} of the cluster beside the workspace's (a workspace object of the same kind and name replaces one):` : '.'}
      </p>
      {n ? (
        <ul className="mono">
          {cluster.objects.map((o, i) => (
            <li key={i}>{`${str(obj(o).kind)} ${namespaceOf(o) ? `${namespaceOf(o)}/` : ''}${nameOf(o)}`}</li>
          ))}
        </ul>
      ) : null}
      <button type="button" className="link" onClick={onForget}>
        Run against the workspace alone
      </button>
    </div>
  );
}

type SimOk = Extract<SimRun, { ok: true }>;

function SimResultView({
  result: r,
  diff,
  breaks,
  unstored,
  docs,
}: {
  result: SimResult;
  diff: SimOk['diff'];
  breaks: SimOk['breaks'];
  unstored: SimOk['unstored'];
  docs: Parameters<typeof Timeline>[0]['docs'];
}) {
  const d = r.deniedBy;
  return (
    <div className="sim-result">
      {unstored.length ? (
        <p className="pt-problem" data-testid="sim-unstored" role="alert">
          A real apiserver would not have stored{' '}
          {unstored.map((u, i) => (
            <span key={u.index}>
              {i ? ', ' : ''}
              {u.kind} <code>{u.name || `document ${u.index + 1}`}</code> ({u.errors} {u.errors === 1 ? 'error' : 'errors'}
              {u.static ? '; a static manifest: its set would not load' : ''})
            </span>
          ))}
          : this result is for a configuration a cluster cannot hold. Fix the errors in the problems list.
        </p>
      ) : null}
      <p className={`sim-verdict ${r.allowed ? 'allowed' : 'denied'}`} data-testid="sim-verdict" data-allowed={String(r.allowed)} role="status">
        {r.allowed ? 'Allowed' : `Denied by ${d?.webhook ?? d?.name ?? '?'}`}
        {d ? ` · HTTP ${d.code}${d.reason ? ` ${d.reason}` : ''}` : ''}
      </p>
      <div className="sim-client">
        <div className="sim-sub">What the client sees</div>
        <pre className="mono" data-testid="sim-status">
          {[
            ...r.warnings.map((w) => `Warning: ${w}`),
            d ? `Error from server${d.reason ? ` (${d.reason})` : ''}: ${d.message}` : 'OK (the request is admitted)',
          ].join('\n')}
        </pre>
      </div>
      <MutationBreaks breaks={breaks} docs={docs} />
      {r.notes.length ? (
        <ul className="sim-notes">
          {r.notes.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      ) : null}
      <div className="sim-sub">Admission chain</div>
      <Timeline result={r} docs={docs} />
      {r.patches.length ? (
        <div>
          <div className="sim-sub">Patches, in the order applied</div>
          <ul className="sim-patches">
            {r.patches.map((p, i) => (
              <li key={i}>
                <code>{p.by}</code>
                <pre className="mono sim-patch">{JSON.stringify(p.ops, null, 1)}</pre>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <DiffTable diff={diff} caption="Changes to the object (after all mutations)" testId="sim-diff" />
      {Object.keys(r.auditAnnotations).length ? (
        <div>
          <div className="sim-sub">Audit annotations</div>
          <ul className="sim-annotations">
            {Object.entries(r.auditAnnotations).map(([k, v]) => (
              <li key={k}>
                <code>{k}</code>: <code>{v}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

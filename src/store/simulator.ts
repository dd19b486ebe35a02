/**
 * The admission simulator as the workspace uses it (src/admission over the CEL engine): the
 * simulator's draft (a request and the response assumed per webhook), runs of the draft and
 * of the saved scenarios, the lockout report, and where a step's document is in the workspace.
 * Imported by the lazily loaded simulator views only (keeps src/admission out of the first bundle).
 */
import {
  lockoutReport,
  notRunReason,
  simulateDraft,
  type DocumentRef,
  type DraftRun,
  type LockoutReport,
  type MutationBreak,
  type SimResult,
} from '../admission';

export type { LockoutReport, MutationBreak, SimResult, SimStep } from '../admission';
import { diffJson, type DiffEntry } from '../base/jsonpatch';
import { REQUEST_TEMPLATES, defaultResponse, newId, scenarioFailures, toDraft, type Scenario, type ScenarioExpectation, type SimulatorDraft } from '../request';
import type { WorkspaceDoc } from './documents';
import { nameOf, obj, str } from '../base/json';
import { docProblems } from './problems';
import { testInputs, useTestInputs } from './test-inputs';
import { isStaticDoc, workspace } from './workspace';
import { scenarioCoverageRuns, scenarioProblems } from '../check/cases';
import type { CoverageRun } from '../policy/coverage';

export type SimRun =
  | { ok: true; result: SimResult; diff: DiffEntry[]; breaks: MutationBreak[]; unstored: UnstoredDocument[] }
  | Extract<DraftRun, { ok: false }>;

/** A workspace document a real apiserver would not have stored: it has validation errors, or its text does not parse. */
export interface UnstoredDocument {
  index: number;
  kind: string;
  name: string;
  /** Its errors (a text that does not parse counts as one). */
  errors: number;
  /** A static manifest: the loader would refuse its set (the apiserver would not start), not the API store it. */
  static?: true;
}

/**
 * The documents the simulation ran although a real apiserver would have rejected them (e.g.
 * `timeoutSeconds: 45`): the cluster could not hold that configuration, so the verdict is about
 * one that cannot exist. Kinds the Workbench does not check have no errors here.
 */
export function unstoredDocuments(docs: readonly WorkspaceDoc[]): UnstoredDocument[] {
  const out: UnstoredDocument[] = [];
  docs.forEach((d, index) => {
    const { errors } = docProblems(d, docs);
    if (errors > 0) out.push({ index, kind: str(obj(d.object).kind), name: nameOf(d.object), errors, ...(isStaticDoc(d) ? { static: true as const } : {}) });
  });
  return out;
}

/** The simulator's draft when none is saved: the first template, every webhook allowing. */
export const initialSimulatorDraft = (): SimulatorDraft => ({ input: toDraft(REQUEST_TEMPLATES[0].input), webhooks: {} });

const INITIAL = initialSimulatorDraft();

export function useSimulatorDraft(): SimulatorDraft {
  return useTestInputs((s) => s.simulator) ?? INITIAL;
}

export const setSimulatorDraft = (d: SimulatorDraft): void => testInputs.getState().setSimulator(d);

const objectsOf = (docs: readonly WorkspaceDoc[]): unknown[] => docs.map((d) => d.object ?? null);

/** Indices of the documents that are static manifests (they run before the API objects). */
export const staticIndices = (docs: readonly WorkspaceDoc[]): number[] => docs.flatMap((d, i) => (isStaticDoc(d) ? [i] : []));

/** The workspace's settings every run of its chain takes: the release, the static manifests and their order, the gates turned on. */
export function chainSettings(docs: readonly WorkspaceDoc[]) {
  const { kubernetesVersion, staticOrder, featureGates } = workspace.getState();
  return { kubernetesVersion, staticDocuments: staticIndices(docs), staticOrder, featureGates };
}

/** Send the draft's request through the workspace's admission chain (traced: each policy step shows its expressions' values). Never throws. */
export async function runSimulation(docs: readonly WorkspaceDoc[], draft: SimulatorDraft, trace = true): Promise<SimRun> {
  const run = await simulateDraft(objectsOf(docs), draft, { ...chainSettings(docs), trace });
  if (!run.ok) return run;
  // the mutations' diff: from the object as the apiserver decoded it (defaults filled in), not as typed
  const before = run.result.admitted ?? run.input.request.object;
  return {
    ok: true,
    result: run.result,
    diff: before === undefined ? [] : diffJson(before, run.result.object),
    breaks: run.breaks,
    unstored: unstoredDocuments(docs),
  };
}

export interface ScenarioResult {
  id: string;
  pass: boolean;
  failures: string[];
  verdict?: string;
  /** M06: validators its mutations break (findings: they do not fail the scenario). */
  breaks: MutationBreak[];
}

/** Every saved scenario, in order. */
export async function runScenarios(docs: readonly WorkspaceDoc[], scenarios: readonly Scenario[]): Promise<ScenarioResult[]> {
  const out: ScenarioResult[] = [];
  for (const s of scenarios) {
    const run = await runSimulation(docs, { input: s.input, webhooks: s.webhooks, ...(s.cluster ? { cluster: s.cluster } : {}) }, false);
    if (!run.ok) {
      out.push({ id: s.id, pass: false, failures: [notRunReason(run)], breaks: [] });
      continue;
    }
    const r = run.result;
    const failures = scenarioFailures(s.expect, r);
    out.push({
      id: s.id,
      pass: failures.length === 0,
      failures,
      verdict: r.allowed ? 'allowed' : `denied by ${r.deniedBy?.webhook ?? r.deniedBy?.name ?? '?'}`,
      breaks: run.breaks,
    });
  }
  return out;
}

/**
 * The saved scenarios, run traced, as coverage runs of `policy` (src/check/scenarios.ts): each
 * scenario that runs the policy counts as a case of it, as `check --coverage` counts them.
 */
export async function scenarioCoverageOf(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[]): Promise<CoverageRun[]> {
  const scenarios = testInputs.getState().scenarios;
  if (!scenarios.length) return [];
  const objects = objectsOf(docs);
  const options = { ...chainSettings(docs), trace: true };
  const out: CoverageRun[] = [];
  for (const s of scenarios) {
    const { steps } = await scenarioProblems(objects, s, options);
    const run = steps && scenarioCoverageRuns(s.name, objects, steps).get(policy.object);
    if (run) out.push(run);
  }
  return out;
}

/** A scenario of the current draft with the verdict the user expects. */
export function scenarioOf(name: string, draft: SimulatorDraft, expect: ScenarioExpectation): Scenario {
  return {
    id: newId('s'),
    name,
    input: draft.input,
    webhooks: draft.webhooks,
    ...(draft.authorization ? { authorization: draft.authorization } : {}),
    ...(draft.cluster ? { cluster: draft.cluster } : {}),
    expect,
  };
}

export async function runLockout(docs: readonly WorkspaceDoc[]): Promise<LockoutReport | { error: string }> {
  try {
    return await lockoutReport(objectsOf(docs), {
      kubernetesVersion: workspace.getState().kubernetesVersion,
      platform: workspace.getState().platform,
      staticDocuments: staticIndices(docs),
      staticOrder: workspace.getState().staticOrder,
      featureGates: workspace.getState().featureGates,
    });
  } catch (e) {
    return { error: `The lockout report failed: ${(e as Error).message}` };
  }
}

/** The workspace document a step or finding refers to (undefined: not a workspace document, e.g. an assumed Namespace). */
export const docOfRef = (docs: readonly WorkspaceDoc[], ref: DocumentRef): WorkspaceDoc | undefined => (ref.index >= 0 ? docs[ref.index] : undefined);

export interface WorkspaceWebhook {
  /** `webhooks[i].name`: the key of the assumed responses. */
  name: string;
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  configuration: string;
  docId: string;
  path: string;
}

/** Every webhook of the workspace's webhook configurations (or of any documents with an id), in document order. */
export function webhooksOf(docs: readonly Pick<WorkspaceDoc, 'id' | 'object'>[]): WorkspaceWebhook[] {
  const out: WorkspaceWebhook[] = [];
  for (const d of docs) {
    const o = d.object as { kind?: unknown; metadata?: { name?: unknown }; webhooks?: unknown } | undefined;
    if (!o || (o.kind !== 'MutatingWebhookConfiguration' && o.kind !== 'ValidatingWebhookConfiguration')) continue;
    const ws = Array.isArray(o.webhooks) ? o.webhooks : [];
    ws.forEach((w: unknown, i) => {
      const name = (w as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && name)
        out.push({
          name,
          kind: o.kind as WorkspaceWebhook['kind'],
          configuration: typeof o.metadata?.name === 'string' ? o.metadata.name : '',
          docId: d.id,
          path: `webhooks[${i}].name`,
        });
    });
  }
  return out;
}

export { defaultResponse };

/**
 * A simulator draft (the one test-input model's draft and the response assumed per webhook, as
 * the Simulate view and saved scenarios hold it) sent through the chain: parsed, simulated, and
 * checked for M06 (mutation-check.ts). One home for the Simulate view (src/store/simulator.ts)
 * and saved scenarios (src/check/scenarios.ts, for the CLI). Never throws.
 */
import { nameOf, namespaceOf, obj, str } from '../base/json';
import { ADMISSION_KINDS } from '../k8s/resources';
import type { KubernetesVersion } from '../base/releases';
import type { StaticOrder } from '../k8s/static-manifests';
import { toTestInput, toWebhookResponses, type DraftError, type ResponseError, type ScenarioCluster, type SimulatorDraft, type TestInput } from '../request';
import { mutationBreaks, type MutationBreak } from './mutation-check';
import { simulate } from './simulate';
import type { SimOptions, SimResult } from './types';

export type DraftRun =
  | { ok: true; input: TestInput; result: SimResult; breaks: MutationBreak[] }
  | { ok: false; draftErrors: DraftError[]; responseErrors: ResponseError[]; message?: string };

/** Why a draft did not run, in one line: `does not run: request.name: …; w.example.com: …`. */
export function notRunReason(run: Extract<DraftRun, { ok: false }>): string {
  return `does not run: ${run.message ?? [...run.draftErrors.map((e) => `${e.field}: ${e.message}`), ...run.responseErrors.map((e) => `${e.webhook}: ${e.message}`)].join('; ')}`;
}

/** How a draft runs: the target release, the objects loaded from static manifests (SimOptions.staticDocuments), and `trace` (the simulation, not the M06 probes, records the policies' expression values: SimStep.expressions). */
export interface DraftOptions {
  kubernetesVersion?: KubernetesVersion;
  staticDocuments?: readonly number[];
  staticOrder?: StaticOrder;
  featureGates?: readonly string[];
  trace?: boolean;
}

/**
 * The workspace's objects and then a draft's cluster objects (an Impact report's event: the
 * cluster's chain, params, CRDs), a workspace admission object replacing the cluster's of the same
 * kind and name as the report's overlay candidate does. The workspace comes first, so step and
 * static-manifest indices stay the workspace's; an index past it is a cluster object. Another
 * cluster object (a param) of the same apiVersion, kind, namespace and name as a workspace one is
 * that object as the report's run read it (the log changed the workspace's before that line): it
 * takes the workspace one's place.
 */
export function withClusterObjects(objects: readonly unknown[], cluster: ScenarioCluster | undefined): readonly unknown[] {
  if (!cluster?.objects.length) return objects;
  const key = (o: unknown) => `${str(obj(o).kind)}/${nameOf(o)}`;
  const isAdmission = (o: unknown) => ADMISSION_KINDS.has(str(obj(o).kind));
  const mine = new Set(objects.filter(isAdmission).map(key));
  const fullKey = (o: unknown) => `${str(obj(o).apiVersion)}/${key(o)}/${namespaceOf(o)}`;
  const newer = new Map(cluster.objects.filter((o) => !isAdmission(o) && nameOf(o)).map((o) => [fullKey(o), o]));
  const placed = new Set<unknown>();
  const workspace = objects.map((o) => {
    const n = isAdmission(o) || !nameOf(o) ? undefined : newer.get(fullKey(o));
    if (n === undefined) return o;
    placed.add(n);
    return n;
  });
  return [...workspace, ...cluster.objects.filter((o) => !placed.has(o) && !(isAdmission(o) && mine.has(key(o))))];
}

/** Runs a draft: with its cluster objects after `objects` (withClusterObjects) and at its cluster's release when it has one. */
export async function simulateDraft(
  workspaceObjects: readonly unknown[],
  draft: SimulatorDraft,
  { kubernetesVersion: workspaceVersion, staticDocuments, staticOrder, featureGates, trace = false }: DraftOptions = {},
): Promise<DraftRun> {
  const objects = withClusterObjects(workspaceObjects, draft.cluster);
  const kubernetesVersion = draft.cluster?.kubernetesVersion ?? workspaceVersion;
  const { input, errors } = toTestInput(draft.input);
  const { responses, errors: responseErrors } = toWebhookResponses(draft.webhooks);
  if (errors.length || responseErrors.length) return { ok: false, draftErrors: errors, responseErrors };
  const options: SimOptions = {
    webhooks: responses,
    namespaces: input.namespaceObject !== undefined ? [input.namespaceObject] : undefined,
    authorizer: input.authorizer,
    ...(kubernetesVersion ? { kubernetesVersion } : {}),
    ...(staticDocuments?.length ? { staticDocuments } : {}),
    ...(staticOrder ? { staticOrder } : {}),
    ...(featureGates?.length ? { featureGates } : {}),
    ...(draft.authorization ? { conditionalAuthorization: draft.authorization } : {}),
  };
  try {
    const result = await simulate(objects, input.request, trace ? { ...options, trace } : options);
    return { ok: true, input, result, breaks: await mutationBreaks(objects, input.request, options, undefined, result) };
  } catch (e) {
    return { ok: false, draftErrors: [], responseErrors: [], message: `The simulation failed: ${(e as Error).message}` };
  }
}

/**
 * The CEL engine generations (one engine build per generation, named by the release whose
 * k8s.io/apiserver and cel-go it is built on: the release table's `engine`). The default
 * target's generation is the engine the app starts with (cel.wasm); another one (the 1.38 engine,
 * cel-1.38.wasm) is loaded only when an operation targets a release it answers. Which one an
 * operation goes to is read from its options' kubernetesVersion: nothing here knows a release.
 */
import { DEFAULT_KUBERNETES_VERSION, isKubernetesVersion, releaseOf, type CelEngineBuild } from '../base/releases';
import type { CelOp, OpArgs } from './ops';
import type { CelBatchItem } from './types';

/** The default target's engine generation (the one the app loads first). */
export const DEFAULT_ENGINE: CelEngineBuild = releaseOf(DEFAULT_KUBERNETES_VERSION).engine;

/** The generation that answers a target release (anything that is not a release of the table: the default's, which says it is not). */
export const engineOfRelease = (v: unknown): CelEngineBuild => (isKubernetesVersion(v) ? releaseOf(v).engine : DEFAULT_ENGINE);

const versionIn = (options: unknown): unknown => (options as { kubernetesVersion?: unknown } | undefined)?.kubernetesVersion;

/** Where each operation's options are among its arguments (setInputs, dropInputs and info have none: the default's). */
const OPTIONS_AT: Partial<Record<CelOp, number>> = { compile: 2, evaluate: 3, declarations: 1, typeAt: 3, reads: 2, typeCheck: 2 };

/** The generation of each item of a batch. */
export const itemEngines = (items: readonly CelBatchItem[]): CelEngineBuild[] => items.map((i) => engineOfRelease(versionIn(i.options)));

/**
 * The generation an operation goes to, or, for a batch whose items target releases of more than
 * one generation, each item's (the batch is split).
 */
export function engineOfOp<K extends CelOp>(op: K, args: OpArgs<K>): CelEngineBuild | CelEngineBuild[] {
  if (op === 'evaluateBatch' || op === 'evaluateBatchOnce') {
    const each = itemEngines(args[1] as readonly CelBatchItem[]);
    return each.every((e) => e === each[0]) ? (each[0] ?? DEFAULT_ENGINE) : each;
  }
  // a schema asset is stored in the engine that type-checks at its release
  if (op === 'setSchemas') return engineOfRelease(args[0]);
  const at = OPTIONS_AT[op];
  return at === undefined ? DEFAULT_ENGINE : engineOfRelease(versionIn(args[at]));
}

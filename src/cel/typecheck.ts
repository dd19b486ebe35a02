/**
 * Type checking a ValidatingAdmissionPolicy as kube-controller-manager does (the engine's
 * typeCheck operation), and the schema assets of each release it reads, loaded into the engine
 * on first use. Design: ./README.md (Type checking).
 */
import type { KubernetesVersion } from '../base/releases';
import { isNode, pageBaseUrl, run } from './engine';
import { readSchemaAsset, schemaReleaseFor, type SchemaRelease } from './schemas';
import type { CelTypeCheckOptions, CelTypeCheckResult } from './types';

/** Each release's schema asset's text, read once (the first type check of that release). */
const schemaTexts = new Map<SchemaRelease, Promise<string>>();

function schemaText(release: SchemaRelease): Promise<string> {
  let p = schemaTexts.get(release);
  if (!p) {
    p = readSchemaAsset(release, pageBaseUrl(), isNode());
    schemaTexts.set(release, p);
    p.catch(() => schemaTexts.delete(release));
  }
  return p;
}

/** A release's schema asset (public/cel/schemas-1.3x.json): GVK → definition name, and the definitions (refs "#/definitions/NAME"). */
export interface SchemaAsset {
  release: string;
  gvks: Record<string, string>;
  definitions: Record<string, unknown>;
}

const schemaAssets = new Map<SchemaRelease, Promise<SchemaAsset>>();

/** The schema asset of the release a target release is checked with, parsed once (for completion and hover over typed fields). */
export function schemaAsset(version?: KubernetesVersion): Promise<SchemaAsset> {
  const release = schemaReleaseFor(version);
  let p = schemaAssets.get(release);
  if (!p) {
    p = schemaText(release).then((t) => JSON.parse(t) as SchemaAsset);
    schemaAssets.set(release, p);
    p.catch(() => schemaAssets.delete(release));
  }
  return p;
}

/**
 * Type-checks a ValidatingAdmissionPolicy as kube-controller-manager's
 * validatingadmissionpolicy-status-controller does (wasm/typecheck.go): the warnings it
 * writes into status.typeChecking.expressionWarnings. The release's schema asset is loaded
 * into the engine on first use (and again into a worker that replaced one).
 */
export async function typeCheck(policy: unknown, options: CelTypeCheckOptions): Promise<CelTypeCheckResult> {
  const release = schemaReleaseFor(options.kubernetesVersion as KubernetesVersion | undefined);
  let policyJSON: string;
  try {
    policyJSON = JSON.stringify(policy);
  } catch (err) {
    return { ok: false, kind: 'inputs', message: `policy cannot be serialised: ${String(err)}`, warnings: [] };
  }
  for (let attempt = 0; ; attempt++) {
    const r = await run('typeCheck', policyJSON, release, options);
    if (r.ok) return { ok: true, warnings: r.warnings, schemaRelease: release };
    if (!r.schemasMissing || attempt > 0) return { ok: false, kind: r.kind, message: r.message, warnings: [] };
    let text: string;
    try {
      text = await schemaText(release);
    } catch (err) {
      return { ok: false, kind: 'unavailable', message: `schemas of ${release}: ${err instanceof Error ? err.message : String(err)}`, warnings: [] };
    }
    const set = await run('setSchemas', release, text);
    if (!set.ok) return { ok: false, kind: set.kind, message: set.message, warnings: [] };
  }
}

/** Per-webhook reuse of validation results must never show stale or misplaced errors. */
import { describe, expect, it } from 'vitest';
import type { CelCompiler, CelCompileResult } from '../../cel/types';
import { validateRules } from '../validate';

const hook = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  clientConfig: { url: 'https://hook.example.com/' },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const vwc = (webhooks: unknown[]) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'm' },
  webhooks,
});
const pairs = (o: unknown, cel?: CelCompiler) => validateRules(o, { cel }).map((e) => `${e.field} ${e.type}`);

describe('validation reuse per webhook', () => {
  it('follows edits, reverts and reordering of shared webhook objects', () => {
    const a = hook('a.example.com');
    const b = hook('b.example.com', { timeoutSeconds: 99 });
    expect(pairs(vwc([a, b]))).toEqual(['webhooks[1].timeoutSeconds Invalid']);
    expect(pairs(vwc([b, a]))).toEqual(['webhooks[0].timeoutSeconds Invalid']);
    const fixed = { ...b, timeoutSeconds: 5 };
    expect(pairs(vwc([a, fixed]))).toEqual([]);
    expect(pairs(vwc([a, b]))).toEqual(['webhooks[1].timeoutSeconds Invalid']);
    expect(pairs({ ...vwc([a, b]), kind: 'MutatingWebhookConfiguration' })).toEqual(['webhooks[1].timeoutSeconds Invalid']);
  });

  it('does not keep results that depended on a CEL answer not known yet', () => {
    const h = hook('c.example.com', { matchConditions: [{ name: 'x', expression: 'object.foo' }] });
    let known = false;
    const bad: CelCompileResult = { ok: false, message: 'must evaluate to bool but got dyn', issues: [] };
    const compiler: CelCompiler = { compile: () => (known ? bad : undefined) };
    expect(pairs(vwc([h]), compiler)).toEqual([]);
    known = true;
    expect(pairs(vwc([h]), compiler)).toEqual(['webhooks[0].matchConditions[0].expression Invalid']);
  });
});

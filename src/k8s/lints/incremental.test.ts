/**
 * Lints remember what they found per webhook and per pair of webhooks (W23), by object identity.
 * After any sequence of copy-on-write edits (as the store makes them: unchanged webhooks stay the
 * same objects), the findings must be those of a fresh copy of the object, which nothing remembers.
 */
import { describe, expect, it } from 'vitest';
import { insertAt, moveAt, removeAt, setIn } from '../edit';
import { lint } from './index';

type O = Record<string, unknown>;
type Json = unknown;
const rule = (resources: string[], apiGroups = ['']) => ({ operations: ['CREATE', 'UPDATE'], apiGroups, apiVersions: ['v1'], resources });
const service = (name: string) => ({ service: { namespace: 'ns', name, path: '/validate' } });
const webhook = (i: number, over: O = {}): O => ({
  name: `w${i}.example.com`,
  clientConfig: service(i % 3 === 0 ? 'a' : 'b'),
  rules: [rule(i % 2 ? ['pods'] : ['configmaps'])],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...over,
});
const config = (n: number, kind = 'ValidatingWebhookConfiguration'): O => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind,
  metadata: { name: 'hooks' },
  webhooks: Array.from({ length: n }, (_, i) => webhook(i)),
});

/** What a finding says (fixes are functions: compared by title). */
const said = (o: unknown) => lint(o, [o]).map((l) => `${l.id} ${l.field}: ${l.message} | ${(l.fixes ?? []).map((f) => f.title).join('; ')}`);
/** The same object with no shared identities: nothing is remembered for it. */
const fresh = (o: unknown) => JSON.parse(JSON.stringify(o)) as unknown;
const w23 = (o: unknown) => {
  const found = lint(o, [o])
    .filter((l) => l.id === 'W23')
    .map((l) => `${l.field} ${l.message}`);
  expect(found).toEqual(
    lint(fresh(o), [fresh(o)])
      .filter((l) => l.id === 'W23')
      .map((l) => `${l.field} ${l.message}`),
  );
  return found;
};

describe('lints remembered per webhook and per pair of webhooks follow every edit', () => {
  it('W23 of an unchanged webhook changes when the webhook it pairs with is edited', () => {
    let o = config(3) as Json;
    o = setIn(o, ['webhooks', 1, 'clientConfig'], service('a'));
    o = setIn(o, ['webhooks', 1, 'rules'], [rule(['configmaps'])]);
    expect(w23(o)).toEqual(['webhooks[1].clientConfig calls the same endpoint as webhooks[0] for overlapping rules: each matching request calls it twice']);
    // webhooks[1] stays the same object; webhooks[0] moves to another endpoint, then its rules stop overlapping
    const moved = setIn(o, ['webhooks', 0, 'clientConfig', 'service', 'name'], 'c');
    expect(w23(moved)).toEqual([]);
    const back = setIn(moved, ['webhooks', 0, 'clientConfig', 'service', 'name'], 'a');
    expect(w23(back)).toEqual(w23(o));
    expect(w23(setIn(back, ['webhooks', 0, 'rules', 0, 'resources'], ['secrets']))).toEqual([]);
    // the same endpoint written with its keys in another order, and with the default port spelled out
    expect(w23(setIn(o, ['webhooks', 0, 'clientConfig'], { service: { path: '/validate', name: 'a', namespace: 'ns', port: 443 } }))).toEqual(w23(o));
    // order matters: the later webhook is the one reported, against the first earlier one
    expect(w23(moveAt(o, ['webhooks'], 0, 2))).toEqual([
      'webhooks[2].clientConfig calls the same endpoint as webhooks[0] for overlapping rules: each matching request calls it twice',
    ]);
    const third = insertAt(o, ['webhooks'], webhook(9, { clientConfig: service('a'), rules: [rule(['*'], ['*'])] }));
    expect(w23(third)).toEqual([
      'webhooks[1].clientConfig calls the same endpoint as webhooks[0] for overlapping rules: each matching request calls it twice',
      'webhooks[3].clientConfig calls the same endpoint as webhooks[0] for overlapping rules: each matching request calls it twice',
    ]);
    expect(w23(removeAt(third, ['webhooks'], 0))).toEqual([
      'webhooks[2].clientConfig calls the same endpoint as webhooks[0] for overlapping rules: each matching request calls it twice',
    ]);
  });

  it('a url endpoint and odd clientConfigs are compared as before', () => {
    const url = { url: 'https://hook.example.com/' };
    const o = {
      ...config(0),
      webhooks: [
        webhook(0, { clientConfig: url }),
        webhook(1, { clientConfig: url, rules: [rule(['configmaps'])] }),
        webhook(2, { clientConfig: 'odd' }),
        webhook(3, { clientConfig: 'odd' }),
        webhook(4, { clientConfig: null }),
        webhook(5, {}),
      ],
    };
    expect(w23(o)).toEqual(w23(fresh(o)));
    expect(w23(o)).toEqual(['webhooks[1].clientConfig calls the same endpoint as webhooks[0] for overlapping rules: each matching request calls it twice']);
  });

  it('after a long series of edits, every finding is the one a fresh copy gets', () => {
    // a small deterministic generator: the same edits on every run
    let seed = 12;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const edits: ((o: Json, n: number) => Json)[] = [
      (o, n) => setIn(o, ['webhooks', next(n), 'clientConfig'], service(['a', 'b', 'c'][next(3)]!)),
      (o, n) => setIn(o, ['webhooks', next(n), 'rules'], [rule([['pods'], ['configmaps'], ['*'], ['pods/exec']][next(4)]!, next(2) ? [''] : ['*'])]),
      (o, n) => setIn(o, ['webhooks', next(n), 'failurePolicy'], next(2) ? 'Fail' : 'Ignore'),
      (o, n) => setIn(o, ['webhooks', next(n), 'timeoutSeconds'], [undefined, 5, 30][next(3)] as Json),
      (o, n) => setIn(o, ['webhooks', next(n), 'name'], `w${next(4)}.example.com`),
      (o, n) =>
        setIn(
          o,
          ['webhooks', next(n), 'namespaceSelector'],
          next(2) ? { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] } : undefined,
        ),
      (o, n) => moveAt(o, ['webhooks'], next(n), next(n)),
      (o, n) => (n > 2 ? removeAt(o, ['webhooks'], next(n)) : o),
      (o, n) => insertAt(o, ['webhooks'], webhook(next(9)), next(n + 1)),
      (o) => setIn(o, ['metadata', 'annotations'], next(2) ? { 'cert-manager.io/inject-ca-from': 'ns/cert' } : undefined),
    ];
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      let o = config(8, kind) as Json;
      for (let step = 0; step < 300; step++) {
        const n = ((o as O).webhooks as unknown[]).length;
        o = edits[next(edits.length)]!(o, n);
        expect(said(o), `${kind}, step ${step}`).toEqual(said(fresh(o)));
      }
    }
    // 600 edits, each linted twice: about 1 s alone, 10 s beside the rest of the suite on 2 cores.
  }, 60_000);
});

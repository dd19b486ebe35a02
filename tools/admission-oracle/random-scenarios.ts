/**
 * Generated scenarios for the admission differential test: random webhook chains and policies
 * over ConfigMap requests, deterministic for a seed. The hand-written ones: ./scenarios.ts; the
 * oracle: ../README.md.
 */
import type { WebhookResponse } from '../../src/admission';
import { prng } from '../validation-oracle/mutants';
import {
  addLabel,
  cmRequest,
  cmRule,
  configMap,
  hook,
  map,
  mapb,
  mutating,
  scenario as s,
  USERS,
  validating,
  vap,
  vapb,
  type OracleScenario,
} from './scenario-builders';

type Json = unknown;

/** Generated scenarios: random webhook chains and policies over ConfigMap requests (deterministic for `seed`). */
export function generated(count: number, seed: number): OracleScenario[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const chance = (p: number) => rnd() < p;
  const out: OracleScenario[] = [];
  const conditions = [
    "object.metadata.name == 'settings'",
    "request.userInfo.username == 'alice'",
    "has(object.metadata.labels) && 'app' in object.metadata.labels",
    "object.data['mode'] == 'fast'",
    'request.dryRun == true',
  ];
  const vapExpressions = [
    'size(object.data) <= 1',
    "object.metadata.name != 'settings'",
    "has(object.metadata.labels) && 'team' in object.metadata.labels",
    "'team-a-admins' in request.userInfo.groups",
    'true',
  ];
  for (let n = 0; n < count; n++) {
    const objects: Json[] = [];
    const webhooks: Record<string, WebhookResponse> = {};
    const respond = (name: string, mutatingHook: boolean) => {
      const r = rnd();
      webhooks[name] =
        r < 0.35
          ? 'allow'
          : r < 0.5
            ? 'deny'
            : r < 0.62
              ? 'unavailable'
              : r < 0.75
                ? { warnings: [`warning from ${name}`] }
                : mutatingHook || chance(0.2)
                  ? addLabel(`k${Math.floor(rnd() * 3)}`, `v${n}`)
                  : 'allow';
    };
    const randomHook = (name: string, mutatingHook: boolean) => {
      const extra: Record<string, unknown> = {
        failurePolicy: pick(['Fail', 'Ignore']),
        sideEffects: pick(['None', 'NoneOnDryRun']), // v1 refuses Some and Unknown: no v1 webhook can be rejected for a dry run
        rules: [cmRule(pick([['CREATE'], ['UPDATE'], ['CREATE', 'UPDATE'], ['*']]))],
      };
      if (mutatingHook) extra.reinvocationPolicy = pick(['Never', 'IfNeeded']);
      if (chance(0.3)) extra.namespaceSelector = { matchLabels: { env: pick(['prod', 'dev']) } };
      if (chance(0.3))
        extra.objectSelector = pick([
          { matchLabels: { app: 'web' } },
          { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
          { matchLabels: { app: 'db' } },
        ]);
      if (chance(0.3)) extra.matchConditions = [{ name: 'c', expression: pick(conditions) }];
      respond(name, mutatingHook);
      return hook(name, extra);
    };
    const mutatingCount = Math.floor(rnd() * 3);
    for (let i = 0; i < mutatingCount; i++)
      objects.push(mutating(`m${i}-${n}`, ...Array.from({ length: 1 + Math.floor(rnd() * 2) }, (_, j) => randomHook(`m${i}w${j}.g${n}.example.com`, true))));
    const validatingCount = Math.floor(rnd() * 2);
    for (let i = 0; i < validatingCount; i++) objects.push(validating(`v${i}-${n}`, randomHook(`v${i}.g${n}.example.com`, false)));
    if (chance(0.4)) {
      objects.push(vap(`p${n}`, { validations: [{ expression: pick(vapExpressions), message: `p${n} says no` }] }));
      objects.push(vapb(`p${n}-b`, `p${n}`, { validationActions: pick([['Deny'], ['Warn'], ['Audit'], ['Warn', 'Audit']]) }));
    }
    if (chance(0.3)) {
      objects.push(
        map(`mp${n}`, {
          reinvocationPolicy: pick(['Never', 'IfNeeded']),
          mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' } }],
        }),
      );
      objects.push(mapb(`mp${n}-b`, `mp${n}`));
    }
    const namespace = pick(['team-a', 'team-b']);
    const labels = pick<Record<string, string> | null>([{ app: 'web' }, { app: 'db' }, null, {}]);
    const data = pick<Record<string, string>>([{ mode: 'fast' }, { mode: 'slow', extra: '1' }]);
    const object = configMap('settings', namespace, labels, data);
    const operation = pick(['CREATE', 'CREATE', 'UPDATE'] as const);
    const request = cmRequest({
      operation,
      object,
      userInfo: pick([USERS.alice, USERS.bob]),
      ...(operation === 'UPDATE' ? { oldObject: configMap('settings', namespace) } : {}),
    });
    out.push(s(`generated ${n} (seed ${seed})`, objects, request, webhooks));
  }
  return out;
}

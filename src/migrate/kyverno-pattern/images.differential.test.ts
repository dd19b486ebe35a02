/**
 * Kyverno's `images` registries (images.ts) against the Kyverno engine on images the mutants do not
 * make: references distribution/reference refuses or splits in other ways (upper case, `_`, ports,
 * IPv6, digests, lengths at the limits), blank and missing images, names given twice, each list
 * and the controllers' templates. The fixture policy adds a pull secret when an image's registry is
 * `corp.reg.com`; a wrong registry, a load that should fail or one that should not all disagree.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../fixtures';
import { decideKyverno, type KyvernoRequest } from '../../../tools/kyverno-oracle/oracle';
import { ORACLE_TEST_TIMEOUT } from '../../../tools/go-oracle.mjs';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { type MutateAnswer, mutateDifferential } from './mutate-helpers';
import { convertPatternRule } from './rule';
import { type DifferentialRequest, enforcePolicy, readKyvernoFolders } from './test-helpers';

useEngine('native');

const R = 'corp.reg.com';
const IMAGES: (string | undefined)[][] = [
  [`${R}/App:1`],
  [`${R}/a_b/x`],
  [`a_b.${R}/x`],
  [`${R}:5000/x`],
  [`Corp.reg.com/x`],
  [`CORP.REG.COM/x`],
  [`${R}/x@sha256:${'a'.repeat(64)}`],
  [`${R}/x@sha256:${'a'.repeat(63)}`],
  [`${R}/x@sha256:${'A'.repeat(64)}`],
  [`${R}/x@md5:${'a'.repeat(32)}`],
  [`${R}/x:tag@sha512:${'b'.repeat(128)}`],
  [`${R}/${'a'.repeat(255)}`],
  [`${R}/${'a'.repeat(256)}`],
  [`x_y.z/${'a'.repeat(249)}`],
  [`x_y.z/${'a'.repeat(250)}`, `${R}/x`],
  [R],
  [`${R}/`],
  [` ${R}/x`],
  ['   ', `${R}/x`],
  ['\u00a0', `${R}/x`],
  ['localhost/x', `${R}/y`],
  ['nginx', 'Corp/x'],
  [`${R}/x:${'t'.repeat(128)}`],
  [`${R}/x:${'t'.repeat(129)}`],
  [`${R}/x:-t`],
  ['[::1]:5000/x', `${R}/z`],
  [`${R}/x__y--z`],
  [`${R}/x`, undefined],
];
const pod = (name: string, spec: Obj): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const containers = (images: (string | undefined)[]) => images.map((image, i) => ({ name: `c${i}`, ...(image === undefined ? {} : { image }) }));
const template = (spec: Obj) => ({ metadata: { labels: { a: 'b' } }, spec });
const RESOURCES: Obj[] = [
  ...IMAGES.map((images, i) => pod(`edge-${i}`, { containers: containers(images) })),
  // a name given twice keeps the last container's image (one without an image keeps the one before)
  pod('twice-1', {
    containers: [
      { name: 'a', image: `${R}/x` },
      { name: 'a', image: 'nginx' },
    ],
  }),
  pod('twice-2', {
    containers: [
      { name: 'a', image: 'nginx' },
      { name: 'a', image: `${R}/x` },
    ],
  }),
  pod('twice-3', { containers: [{ name: 'a', image: `${R}/x` }, { name: 'a' }] }),
  // no image anywhere: Kyverno's context then has no `images` at all
  pod('no-image', { containers: [{ name: 'a' }] }),
  pod('init', { initContainers: [{ name: 'i', image: `${R}/x` }], containers: [{ name: 'a' }] }),
  pod('init-bad', { initContainers: [{ name: 'i', image: 'Bad Image' }], containers: [{ name: 'a', image: `${R}/x` }] }),
  pod('ephemeral', { ephemeralContainers: [{ name: 'e', image: `${R}/x` }], containers: [{ name: 'a', image: 'nginx' }] }),
  pod('ephemeral-bad', { ephemeralContainers: [{ name: 'e', image: 'a:b:c' }], containers: [{ name: 'a', image: `${R}/x` }] }),
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: template({ containers: [{ name: 'a', image: `${R}/x` }] }) },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd-bad' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: template({ containers: [{ name: 'a', image: `${R}/X` }] }) },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'cj' },
    spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: `${R}/x` }] } } } } },
  },
];

describe('images.<list>.*.registry against the Kyverno engine', () => {
  it('adds the pull secret to the objects Kyverno does, and fails where Kyverno fails', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const [folder] = readKyvernoFolders(join(fixturePath('kyverno-mutate'), 'other', 'add-imagepullsecrets-for-containers-and-initcontainers'));
    const policy = folder!.policies[0]!;
    const rule = ((policy.spec as Obj).rules as Obj[])[0]!;
    const decide = async (p: Obj, requests: DifferentialRequest[]) =>
      (await decideKyverno(
        requests.map(({ admitted, operation, ...world }): KyvernoRequest => ({ policy: p, resource: admitted, operation, ...world })),
      )) as MutateAnswer[];
    const d = await mutateDifferential(policy, rule, RESOURCES, 0, decide);
    expect(d.status).toBe('exact');
    expect(
      d.disagreements.map((x) => `${JSON.stringify(x.resource).slice(0, 300)}: kyverno ${x.kyverno.slice(0, 200)} / workbench ${x.workbench.slice(0, 200)}`),
    ).toEqual([]);
    expect(d.changed).toBeGreaterThan(10);
  });

  it("reads the registries only as the whole value of an In operator (their order is a Go map's)", () => {
    const of = (operator: string, value: string) => {
      const r = {
        name: 'r',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        preconditions: { all: [{ key: R, operator, value }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } },
      };
      return convertPatternRule(enforcePolicy(r), r).status;
    };
    expect(of('AnyIn', '{{ images.containers.*.registry }}')).toBe('exact');
    expect(of('AllNotIn', '{{ images.ephemeralContainers.*.registry || `[]` }}')).toBe('exact');
    expect(of('Equals', '{{ images.containers.*.registry }}')).toBe('unsupported');
    expect(of('AnyIn', 'x-{{ images.containers.*.registry }}')).toBe('unsupported');
    expect(of('AnyIn', '{{ images.containers.*.registry | [0] }}')).toBe('unsupported');
    expect(of('AnyIn', '{{ images.containers.*.path }}')).toBe('unsupported');
  });
});

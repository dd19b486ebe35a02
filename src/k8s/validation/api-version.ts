/**
 * Is the object's apiVersion served by the target release? An apiVersion the release
 * does not serve by default fails before validation: kubectl says
 * `no matches for kind "ValidatingWebhookConfiguration" in version "admissionregistration.k8s.io/v1beta1"`
 * (k8s.io/apimachinery pkg/api/meta/errors.go NoKindMatchError; the apiserver itself answers 404).
 * The hint says what the release has instead and, for a version that exists but is off by
 * default, what enables it. Facts: registry/served.ts.
 */
import type { FieldError } from '../errors';
import { required } from '../errors';
import { KINDS } from '../registry/kinds';
import { firstServedIn, versionsIn } from '../registry/served';
import type { KindSpec, KindVersion } from '../registry/types';
import type { KubernetesVersion } from '../../base/releases';

export interface ServedCheck {
  /** The apiVersion error, if any. */
  errors: FieldError[];
  /** The release has this version (served or opt-in): its validation applies. */
  known: boolean;
}

const quote = (s: string): string => JSON.stringify(s);

function whatTheReleaseHas(spec: KindSpec, release: KubernetesVersion): string {
  const has = versionsIn(spec, release);
  const served = has.filter((v) => v.releases[release] === 'served');
  if (served.length > 0) return `Kubernetes ${release} serves ${spec.kind} as ${served.map((v) => `${spec.group}/${v.name}`).join(', ')}.`;
  const optIn = has.filter((v) => v.releases[release] === 'opt-in');
  const first = spec.versions.map(firstServedIn).find((r) => r !== undefined);
  const later = first
    ? ` It is served by default from Kubernetes ${first} (${spec.group}/${spec.versions.find((v) => v.releases[first] === 'served')!.name}).`
    : '';
  if (optIn.length === 0) {
    const firstOf = spec.versions.flatMap((v) => Object.keys(v.releases) as KubernetesVersion[]).sort()[0];
    return `Kubernetes ${release} has no ${spec.kind}${firstOf ? ` (it first appears in Kubernetes ${firstOf})` : ''}.${later}`;
  }
  return `Kubernetes ${release} has ${spec.kind} only as ${optIn.map((v) => v.name).join(' and ')}, off by default (${optIn[0]!.enable}).${later}`;
}

function hintFor(spec: KindSpec, kv: KindVersion | undefined, apiVersion: string, release: KubernetesVersion): string {
  const serving = kv?.releases[release];
  const v1 = spec.versions[0]!.releases[release] === 'served' ? `${spec.group}/${spec.versions[0]!.name}` : undefined;
  if (kv && serving === 'opt-in')
    return `Kubernetes ${release} has ${apiVersion} ${spec.kind} but does not serve it by default: the kube-apiserver needs ${kv.enable}.${v1 ? ` Or convert it to ${v1}.` : ''}`;
  const removed =
    kv?.removedIn && Number(kv.removedIn.slice(2)) <= Number(release.slice(2)) ? `Kubernetes ${kv.removedIn} removed ${apiVersion} ${spec.kind}. ` : '';
  return `${removed}${whatTheReleaseHas(spec, release)}${v1 && kv ? ` Convert it to ${v1} (Convert to v1 keeps its behaviour).` : ''}`;
}

/** The apiVersion check of an object whose kind the registry knows, at `release`. */
export function validateServedVersion(spec: KindSpec, apiVersion: string, release: KubernetesVersion): ServedCheck {
  const kv = spec.versions.find((v) => `${spec.group}/${v.name}` === apiVersion);
  const serving = kv?.releases[release];
  if (serving === 'served') return { errors: [], known: true };
  return {
    errors: [
      {
        type: 'NotSupported',
        field: 'apiVersion',
        message: `no matches for kind ${quote(spec.kind)} in version ${quote(apiVersion)}`,
        hint: hintFor(spec, kv, apiVersion, release),
      },
    ],
    known: serving === 'opt-in',
  };
}

/**
 * An object that claims our API group (registry claimsAdmissionKind) but names no kind of it: a
 * kind typed wrong (`ValidatingWebhookConfigurations`, any case), or no kind or apiVersion at all.
 * kubectl refuses it before it reaches the apiserver (`no matches for kind`, `kind not set`).
 */
export function validateUnknownKind(apiVersion: unknown, kind: unknown): FieldError[] {
  const named = typeof kind === 'string' && kind !== '' ? kind : undefined;
  const spec = named === undefined ? undefined : KINDS.find((k) => k.kind === named);
  if (typeof apiVersion !== 'string' || apiVersion === '')
    return [
      {
        ...required('apiVersion', 'apiVersion not set'),
        hint: `kubectl refuses an object without an apiVersion.${spec ? ` ${spec.kind} is ${spec.group}/${spec.versions[0]!.name}.` : ''}`,
      },
    ];
  const group = apiVersion.slice(0, apiVersion.indexOf('/'));
  const kinds = KINDS.filter((k) => k.group === group).map((k) => k.kind);
  const has = `${group} has ${kinds.join(', ')}.`;
  if (named === undefined) return [{ ...required('kind', 'kind not set'), hint: `kubectl refuses an object without a kind. ${has}` }];
  const lower = named.toLowerCase();
  const near = kinds.find((k) => k.toLowerCase() === lower || `${k.toLowerCase()}s` === lower);
  return [
    {
      type: 'NotSupported',
      field: 'kind',
      message: `no matches for kind ${quote(named)} in version ${quote(apiVersion)}`,
      hint: `${near ? `Did you mean ${near}? ` : ''}${has}`,
    },
  ];
}

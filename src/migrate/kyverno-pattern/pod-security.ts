/**
 * `validate.podSecurity` (kyverno v1.19 pkg/engine/handlers/validation/validate_pss.go, pkg/pss):
 * the Pod Security Standards checks of the level and version as one validation each, Kyverno's
 * `exclude` entries applied as pkg/pss applies them. Kyverno reads the Pod of a Pod, of a
 * controller's `spec.template` and of a CronJob's `spec.jobTemplate.spec.template` (whose metadata
 * it takes from `spec.jobTemplate.metadata`, not the template's).
 *
 * Exclusions (ApplyPodSecurityExclusion): each exclude runs the checks again on another Pod and
 * removes, for every field error found there, one error of the same field (indexes ignored) from the
 * Pod's own: without `images` on a copy of the Pod whose only container is `{name: fake}`; with
 * `images` on a Pod of the containers whose image matches (no pod-level fields), where a container's
 * error also needs the same container name. A check whose errors are all removed passes. The CEL
 * counts errors by those keys.
 */
import { POD_CONTROLLERS } from './autogen';
import { Unsupported } from './pattern';
import { POD_META_TYPES, POD_SPEC_TYPES, typesCel, typesCelGroups } from './pod-security-decode';
import { type PodView, PSS_CHECKS, type PssCheck, checkAt, hasPath, orEmpty } from './pod-security-checks';
import { celString, wildcardRegex } from './scalar';

type Rec = Record<string, unknown>;

export interface PodSecurityParts {
  validations: { expression: string; message: string }[];
  variables: { name: string; expression: string }[];
  differences: string[];
}

/** Where Kyverno's getSpec finds the Pod of each kind. */
const SHAPES = [
  { kinds: ['Pod'], spec: 'spec', meta: 'metadata', metas: ['metadata'] },
  {
    kinds: POD_CONTROLLERS.filter((k) => k !== 'CronJob'),
    spec: 'spec.template.spec',
    meta: 'spec.template.metadata',
    metas: ['metadata', 'spec.template.metadata'],
  },
  {
    kinds: ['CronJob'],
    spec: 'spec.jobTemplate.spec.template.spec',
    meta: 'spec.jobTemplate.metadata',
    metas: ['metadata', 'spec.jobTemplate.metadata', 'spec.jobTemplate.spec.template.metadata'],
  },
];
const LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

interface Exclude {
  controlName: string;
  images?: string[];
}

/** The Pod Kyverno reads, as variables (`ps` of the object, `psOld` of the old object): its spec, metadata and container lists. */
function podVariables(prefix: string, root: string, shapes: typeof SHAPES): { name: string; expression: string }[] {
  const at = (path: string) => `(${hasPath(root, path)} ? dyn(${root}.${path}) : dyn({}))`;
  const pick = (f: (s: (typeof SHAPES)[number]) => string) => `${shapes.map((s) => `${inKinds(s.kinds)} ? ${f(s)} : `).join('')}dyn({})`;
  return [
    { name: `${prefix}Spec`, expression: pick((s) => at(s.spec)) },
    { name: `${prefix}Meta`, expression: pick((s) => at(s.meta)) },
    ...LISTS.map((k) => ({
      name: `${prefix}${k}`,
      expression: `(${hasPath(`variables.${prefix}Spec`, k)} ? variables.${prefix}Spec.${k} : []).map(c, c == null ? dyn({}) : c)`,
    })),
  ];
}

const realView = (prefix: string): PodView => ({
  spec: `variables.${prefix}Spec`,
  meta: `variables.${prefix}Meta`,
  lists: LISTS.map((k) => [k, `variables.${prefix}${k}`]),
});

const KIND = 'request.kind.kind';
/** The most characters of one decode check (typesCelGroups). */
const DECODE_GROUP = 12_000;

const inKinds = (ks: readonly string[]) => (ks.length === 1 ? `${KIND} == '${ks[0]}'` : `${KIND} in [${ks.map((k) => `'${k}'`).join(', ')}]`);

/** Kyverno's Pod for an exclude without images: the Pod with one container named fake. */
const fakeView = (real: PodView): PodView => ({ ...real, lists: [['containers', "[dyn({'name': 'fake'})]"]] });

/** Kyverno's Pod for an exclude with images: the matching containers only. */
function matchingView(real: PodView, images: string[]): PodView {
  const image = orEmpty('c', 'image');
  const hit = images.map((g) => (/[*?]/.test(g) ? `${image}.matches(${celString(wildcardRegex(g))})` : `${image} == ${celString(g)}`)).join(' || ');
  return { spec: null, meta: null, lists: real.lists.map(([k, l]) => [k, `${l}.filter(c, ${hit || 'false'})`]) };
}

/** The CEL that holds when `check` passes on `real` after the exclusions. */
function passes(check: PssCheck, minor: number, real: PodView, excludes: Exclude[]): string {
  const errs = checkAt(check, minor);
  const mine = excludes.filter((e) => e.controlName === check.control);
  if (mine.length === 0) return `(${errs(real)}).size() == 0`;
  const pod = mine.filter((e) => !e.images?.length).map(() => errs(fakeView(real)));
  const img = mine.filter((e) => e.images?.length).map((e) => errs(matchingView(real, e.images as string[])));
  const count = (l: string, same: string) => `${l}.filter(psX, ${same}).size()`;
  const byField = 'psX[0] == psK[0]';
  const byName = `${byField} && psX[1] == psK[1]`;
  // an error stays unless the image exclusions hold as many of its key or the pod exclusions as many of its field
  return `[${errs(real)}].all(psD, [${pod.join(' + ') || '[]'}].all(psP, [${img.join(' + ') || '[]'}].all(psI, psD.all(psK, ${count('psD', byName)} <= ${count('psI', byName)} || ${count('psD', byField)} <= ${count('psP', byField)}))))`;
}

/** The minor version Kyverno's ParseVersion reads (`latest` or empty: every check's newest version). */
function minorOf(version: unknown): number {
  if (version === undefined || version === '' || version === 'latest') return Number.POSITIVE_INFINITY;
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(String(version));
  // Kyverno answers an error for the rule: not converted
  if (!m) throw new Unsupported(`podSecurity.version ${JSON.stringify(version)} (Kyverno fails to parse it)`);
  return Number(m[1]);
}

function excludesOf(ps: Rec, differences: string[], checks: PssCheck[]): Exclude[] {
  const raw = ps.exclude ?? [];
  if (!Array.isArray(raw)) throw new Unsupported('podSecurity.exclude that is not a list');
  const out = raw.map((e: Rec) => {
    if (e.restrictedField !== undefined || e.values !== undefined) throw new Unsupported('podSecurity.exclude with restrictedField/values');
    const known = PSS_CHECKS.some((c) => c.control === e.controlName);
    if (!known) throw new Unsupported(`podSecurity.exclude controlName ${JSON.stringify(e.controlName)}`);
    if (e.images !== undefined && !(Array.isArray(e.images) && e.images.every((i) => typeof i === 'string')))
      throw new Unsupported('podSecurity.exclude images that are not a list of strings');
    return { controlName: String(e.controlName), images: e.images as string[] | undefined };
  });
  // Kyverno removes errors exclude by exclude, in order: a pod-level exclude before an images exclude of the same check may take an
  // error the images exclude held. The count is exact when one kind excludes a check, or the images exclude holds every container ('*').
  for (const c of checks) {
    const mine = out.filter((e) => e.controlName === c.control);
    const firstImages = mine.findIndex((e) => e.images?.length);
    const podBefore = mine.slice(0, Math.max(firstImages, 0)).some((e) => !e.images?.length);
    if (firstImages > 0 && podBefore && !mine.every((e) => !e.images?.length || e.images.includes('*')))
      differences.push(
        `exclusions of ${c.control} with and without images: Kyverno removes the errors in order (a pod-level exclusion first may take an error an images exclusion would hold); the CEL lets either hold it`,
      );
  }
  return out;
}

/**
 * One validation per check of the level and version (guarded by the request's kind), and the
 * variable `podSecurityOldViolates` when `oldCondition` is given (allowExistingViolations: an UPDATE
 * whose old object violates too is let through; `oldCondition` is the old object's preconditions).
 */
export function podSecurityParts(rule: Rec, kinds: readonly string[], oldCondition?: string): PodSecurityParts {
  const ps = ((rule.validate as Rec).podSecurity ?? {}) as Rec;
  const level = String(ps.level ?? '');
  if (!['baseline', 'restricted', 'privileged'].includes(level)) throw new Unsupported(`podSecurity.level ${JSON.stringify(ps.level)}`);
  const minor = minorOf(ps.version);
  const differences: string[] = [];
  // evaluatePSS skips the restricted checks only at baseline (privileged runs them all, as restricted)
  const checks = PSS_CHECKS.filter((c) => level !== 'baseline' || c.level === 'baseline');
  const excludes = excludesOf(ps, differences, checks);
  const shapes = SHAPES.filter((s) => s.kinds.some((k) => kinds.includes(k) || kinds.includes('*')));
  const variables = podVariables('ps', 'object', shapes);
  const exempt = oldCondition === undefined ? '' : ' || variables.podSecurityOldViolates';
  if (oldCondition !== undefined) {
    const old = realView('psOld');
    variables.push(...podVariables('psOld', 'oldObject', shapes), {
      name: 'podSecurityOldViolates',
      expression: `request.operation == 'UPDATE' && oldObject != null && (${oldCondition}) && !(${checks.map((c) => passes(c, minor, old, excludes)).join(' && ')})`,
    });
  }
  const version = String(ps.version ?? '');
  const validations = checks.map((c) => ({
    expression: `(${passes(c, minor, realView('ps'), excludes)})${exempt}`,
    message: `Validation rule '${String(rule.name)}' failed. It violates PodSecurity "${level}:${version}": ${c.id}${c.control ? ` (${c.control})` : ''}`,
  }));
  // getSpec decodes the object (a field of the wrong type errs) and errs on other kinds: the pod
  // spec's fields in groups (typesCelGroups), then each kind's metadata, the same message for all
  const podKinds = inKinds(shapes.flatMap((s) => s.kinds));
  const decodes = [
    ...typesCelGroups('variables.psSpec', POD_SPEC_TYPES, DECODE_GROUP).map((g) => `!(${podKinds}) || ${g}`),
    shapes
      .map(
        (s) =>
          `(${inKinds(s.kinds)} ? ${s.metas.map((m) => `(!(${hasPath('object', m)}) || ${typesCel(`object.${m}`, POD_META_TYPES)})`).join(' && ')} : true)`,
      )
      .join(' && '),
  ];
  validations.unshift(
    ...decodes.map((expression) => ({
      expression,
      message: `Validation rule '${String(rule.name)}' errored: the object does not decode as a Pod or Pod controller`,
    })),
  );
  // getSpec errs on other kinds: Kyverno answers an error (the request is denied)
  const known = SHAPES.flatMap((s) => s.kinds);
  if (kinds.includes('*') || kinds.some((k) => !known.includes(k)))
    validations.push({
      expression: inKinds(known),
      message: `Validation rule '${String(rule.name)}' errored: podSecurity reads Pods and Pod controllers only`,
    });
  return { validations, variables, differences };
}

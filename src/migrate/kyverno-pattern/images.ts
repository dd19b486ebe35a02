/**
 * Kyverno's `images` variable, read as `images.<containers|initContainers|ephemeralContainers>.*.registry`
 * only, following kyverno v1.19 pkg/utils/api/image.go (ExtractImagesFromResource) and
 * pkg/utils/image/infos.go (GetImageInfo) with the default configuration (registry `docker.io`, added):
 * per container list of the resource's pod spec (by the object's `kind`, as the registered
 * extractors find it), a map from the container's name to its image's parts. Kyverno loads it when
 * a query names it, all at once: a container without a text name, or an image that
 * distribution/reference v0.6 does not parse, fails the load and so the query; an absent or blank
 * image is left out; a name given twice keeps its last container's image.
 */
import type { JpNode } from './jmespath';
import { celString } from './scalar';

/** The lists BuildStandardExtractors reads, by the name the variable gives them. */
const LISTS = ['initContainers', 'containers', 'ephemeralContainers'];

/** The pod spec of each kind registeredExtractors knows (others have no images). */
const SPECS: [string[], string][] = [
  [['Pod'], 'spec'],
  [['DaemonSet', 'Deployment', 'ReplicaSet', 'ReplicationController', 'StatefulSet', 'Job'], 'spec.template.spec'],
  [['CronJob'], 'spec.jobTemplate.spec.template.spec'],
];

// distribution/reference v0.6's grammar (regexp.go, printed from the module): a domain, and a name with an optional tag
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const DOMAIN =
  '(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?';
// a digest: Parse also validates it (go-digest v1: an algorithm it can compute, its exact hex length)
const DIGEST = '(?:sha256:[a-f0-9]{64}|sha384:[a-f0-9]{96}|sha512:[a-f0-9]{128})';
const REFERENCE = `^(?:${DOMAIN}/)?${COMPONENT}(?:/${COMPONENT})*(?::[0-9A-Za-z_][0-9A-Za-z_.-]{0,127})?(?:@${DIGEST})?$`;
// Go's strings.TrimSpace: unicode.IsSpace (White_Space: the separators and \t \n \v \f \r U+0085)
const BLANK = '^[\\pZ\\t\\n\\v\\f\\r\\x{85}]*$';

/** Whether `n` is the one form read: `images.<list>.*.registry`. */
export function imagesRegistries(n: JpNode): string | undefined {
  if (n.type !== 'ValueProjection' || n.right.type !== 'Field' || n.right.name !== 'registry') return undefined;
  const l = n.left;
  if (l.type !== 'Sub' || l.left.type !== 'Field' || l.left.name !== 'images' || l.right.type !== 'Field') return undefined;
  return LISTS.includes(l.right.name) ? l.right.name : undefined;
}

/**
 * GetImageInfo's registry of the image `s` (a CEL string): addDefaultRegistry prefixes `docker.io/`
 * unless the text before the first `/` has a `.` or `:`, is `localhost` or is not lower case; the
 * registry is then that text (reference.Domain, or the first path component when it has a `_`).
 * `[valid, registry]`: valid also needs a repository path of at most 255 characters.
 */
function registryCel(s: string, p: string): string {
  const prefix = `${s}.substring(0, ${s}.indexOf('/'))`;
  const added = `(!${s}.contains('/') || [${prefix}].all(${p}, !${p}.contains('.') && !${p}.contains(':') && ${p} != 'localhost' && ${p}.lowerAscii() == ${p}))`;
  const full = `(${added} ? 'docker.io/' + ${s} : ${s})`;
  // the path: after the domain (when the first component is one), else the whole name; up to the tag or digest
  const rest = `${full}.substring(${full}.indexOf('/') + 1)`;
  const first = `${full}.substring(0, ${full}.indexOf('/'))`;
  const short = celString('^[^:@]{0,255}(?:[:@]|$)');
  const path = `(${first}.matches(${celString(`^${DOMAIN}$`)}) ? ${rest}.matches(${short}) : ${full}.matches(${short}))`;
  return `[dyn(${full}.matches(${celString(REFERENCE)}) && ${path}), dyn(${added} ? 'docker.io' : ${prefix})]`;
}

/**
 * The CEL `[status, value]` pair (jmespath-cel.ts) of `images.<list>.*.registry` on `object`: 2 when
 * loading fails, nil when the list has no image, else its images' registries (Kyverno's order is
 * a Go map's: the CEL keeps the list's).
 */
export function imagesRegistriesCel(list: string, object: string, names: { next(p: string): string }): string {
  const x = names.next('im');
  const s = names.next('is');
  const p = names.next('ip');
  const r = names.next('ir');
  const i = names.next('ii');
  const y = names.next('iy');
  const str = (v: string) => `(type(${v}) == string)`;
  const hasImage = (v: string) => `(type(${v}) == map && has(${v}.image) && ${str(`${v}.image`)} && !${v}.image.matches(${celString(BLANK)}))`;
  const bad = (v: string) =>
    `(type(${v}) == map && (!has(${v}.name) || !${str(`${v}.name`)} || (${hasImage(v)} && ![${v}.image].all(${s}, ${registryCel(s, p)}[0]))))`;
  const spec = (path: string) => {
    // a step that is missing or null ends the extraction; another value than a map fails it (invalid image config)
    const steps = path.split('.');
    let cel = `[dyn(${object})]`;
    for (const step of steps)
      cel = `${cel}.map(${x}, ${x} == null ? dyn(null) : type(${x}) == map ? (has(${x}.${step}) ? dyn(${x}.${step}) : dyn(null)) : dyn('invalid'))`;
    return cel;
  };
  const kinds = SPECS.map(([ks, path]) => `${ks.map((k) => `${object}.kind == '${k}'`).join(' || ')} ? ${spec(path)}`).join(' : ');
  const specOf = `(type(${object}) == map && has(${object}.kind) ? (${kinds} : [dyn(null)]) : [dyn(null)])[0]`;
  const listsOf = (sp: string) => LISTS.map((l) => `(type(${sp}) == map && has(${sp}.${l}) && type(${sp}.${l}) == list ? ${sp}.${l} : [])`);
  const body = (sp: string) => {
    const all = listsOf(sp).join(' + ');
    const mine = listsOf(sp)[LISTS.indexOf(list)]!;
    // the last container of each name with an image is the one kept
    const kept = `lists.range(size(${mine})).filter(${i}, ${hasImage(`${mine}[${i}]`)} && !lists.range(size(${mine})).exists(${y}, ${y} > ${i} && ${hasImage(`${mine}[${y}]`)} && ${mine}[${y}].name == ${mine}[${i}].name))`;
    const regs = `${kept}.map(${i}, [${mine}[${i}].image].map(${s}, ${registryCel(s, p)}[1])[0])`;
    return `(${sp} != null && type(${sp}) != map) || (${all}).exists(${r}, ${bad(r)}) ? [dyn(2), dyn(null)] : [${regs}].map(${r}, size(${r}) == 0 ? [dyn(0), dyn(null)] : [dyn(0), dyn(${r})])[0]`;
  };
  const sp = names.next('io');
  return `[${specOf}].map(${sp}, ${body(sp)})[0]`;
}

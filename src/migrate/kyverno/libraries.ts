/**
 * Kyverno's CEL environment has libraries the apiserver's does not (github.com/kyverno/sdk
 * extensions/cel/libs, and the cel-go extensions kyverno's compiler adds to the Kubernetes set:
 * pkg/cel/compiler/env.go). An expression that calls one cannot run in a native policy.
 */

/** A Kyverno-only name: the variable or function as written, and the library it belongs to. */
interface KyvernoName {
  pattern: RegExp;
  library: string;
}

// A library variable is matched with its members (`resource.Get`, `json.unmarshal`), not as a bare
// name, so that a comprehension's own variable (`containers.all(image, image.endsWith(…))`) is not
// taken for it; functions where they are called.
const member = (name: string, members: string) => new RegExp(`(?<![\\w.])${name}\\s*\\.\\s*(?:${members})\\b`);
const call = (name: string) => new RegExp(`(?<![\\w.])${name}\\s*\\(`);
const CAPITALISED = '[A-Z]\\w*';

const NAMES: readonly KyvernoName[] = [
  { pattern: member('resource', CAPITALISED), library: 'resource (Kubernetes API lookups)' },
  { pattern: member('http', CAPITALISED), library: 'http (HTTP calls)' },
  { pattern: member('image', CAPITALISED), library: 'image data (registry lookups)' },
  { pattern: member('globalContext', '\\w+'), library: 'globalContext' },
  { pattern: member('generator', CAPITALISED), library: 'generator' },
  { pattern: member('json', 'unmarshal|marshal'), library: 'json parsing' },
  { pattern: member('yaml', 'parse'), library: 'yaml parsing' },
  { pattern: member('gzip', 'compress|decompress'), library: 'gzip' },
  { pattern: member('hash', 'md5|sha1|sha256'), library: 'hash' },
  { pattern: call('md5'), library: 'hash' },
  { pattern: call('sha1'), library: 'hash' },
  { pattern: call('sha256'), library: 'hash' },
  { pattern: call('random'), library: 'random' },
  { pattern: member('random', 'random'), library: 'random' },
  { pattern: member('time', 'now|toCron|truncate'), library: 'time' },
  { pattern: call('listObjToMap'), library: 'transform' },
  { pattern: member('transform', 'listObjToMap'), library: 'transform' },
  { pattern: call('parseServiceAccount'), library: 'user' },
  { pattern: member('user', 'parseServiceAccount'), library: 'user' },
  { pattern: member('x509', 'decode'), library: 'x509' },
  { pattern: call('image'), library: 'image references' },
  { pattern: call('parseImageReference'), library: 'image references' },
  { pattern: call('isImage'), library: 'image references' },
  { pattern: member('exceptions', 'allowedImages|allowedValues'), library: 'policy exceptions' },
  // cel-go extensions in Kyverno's environment and not in the apiserver's
  { pattern: member('base64', 'encode|decode'), library: 'base64 (cel-go encoders)' },
  { pattern: member('math', '\\w+'), library: 'math (cel-go math)' },
];

/** Text of string literals blanked out, so a name inside a message or a quoted key is not taken for a call. */
function withoutStrings(expression: string): string {
  return expression.replace(/(['"])(?:\\.|(?!\1)[^\\\n])*\1/g, (m) => m[0] + ' '.repeat(Math.max(0, m.length - 2)) + m[0]);
}

/** The Kyverno-only names an expression uses (each once, in the order of NAMES). */
export function kyvernoOnlyNames(expression: string): { name: string; library: string }[] {
  const text = withoutStrings(expression);
  const out: { name: string; library: string }[] = [];
  for (const n of NAMES) {
    const m = n.pattern.exec(text);
    if (!m) continue;
    out.push({ name: m[0].replace(/[\s(]+/g, ''), library: n.library });
  }
  return out;
}

/** One expression of a source policy, where it is. */
export interface SourceExpression {
  path: string;
  expression: string;
}

/** Why these expressions cannot run natively, or undefined when they all can. */
export function kyvernoOnlyReason(expressions: readonly SourceExpression[]): string | undefined {
  const found: string[] = [];
  for (const e of expressions) {
    for (const n of kyvernoOnlyNames(e.expression)) found.push(`${e.path} calls ${n.name} (Kyverno's ${n.library} library)`);
  }
  return found.length ? `uses Kyverno-only CEL: ${found.join('; ')}` : undefined;
}

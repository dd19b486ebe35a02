/**
 * Text-level readings of CEL expressions for lints (no parse): which optional fields an
 * expression reads unguarded, nested comprehensions, authorizer calls, and the libraries
 * it uses. They err on the quiet side: a finding is a hint, never an error.
 */

/** Selections that may be absent on a real object: `object.metadata.labels.x`, `object.spec.x.y`. */
const OPTIONAL_READ = /\b(object|oldObject)\.(metadata\.(labels|annotations)|spec\.[A-Za-z_]\w*\.[A-Za-z_]\w*|status\.[A-Za-z_]\w*)/g;

/** Field reads that error when absent (no has(), ?. or orValue anywhere in the expression). */
export function unguardedReads(expression: string): string[] {
  if (/\bhas\(|\.\?|orValue\(|\?\./.test(expression)) return [];
  return [...new Set([...expression.matchAll(OPTIONAL_READ)].map((m) => m[0]))];
}

const MACRO = /\.(all|exists|exists_one|map|filter|transformList|transformMap|transformMapEntry)\(/g;

/** The index of the parenthesis closing the one at `open`. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** A comprehension inside another one (cost grows with the product of the list sizes). */
export function hasNestedComprehension(expression: string): boolean {
  for (const m of expression.matchAll(MACRO)) {
    const open = m.index + m[0].length - 1;
    const body = expression.slice(open + 1, closing(expression, open));
    if (new RegExp(MACRO.source).test(body)) return true;
  }
  return false;
}

export const authorizerChecks = (expression: string): number => (expression.match(/\.check\(/g) ?? []).length;

/** What makes an expression expensive, in words, or '' when nothing does. */
export function cheapCelRisks(expression: string): string {
  const checks = authorizerChecks(expression);
  if (checks > 0) return `${checks} authorizer check${checks > 1 ? 's' : ''} (350,000 each)`;
  if (hasNestedComprehension(expression)) return 'a comprehension inside another one';
  return '';
}

/** Libraries and the first Kubernetes minor that accepts them in newly written expressions (introduced + 1). */
export const LIBRARY_MINORS: readonly { name: string; pattern: RegExp; minor: number }[] = [
  { name: 'the IP library (ip(), isIP())', pattern: /\b(ip|isIP)\(/, minor: 31 },
  { name: 'the CIDR library (cidr(), isCIDR())', pattern: /\b(cidr|isCIDR)\(/, minor: 31 },
  { name: 'the format library (format.named(), format.dns1123Label(), …)', pattern: /\bformat\.[a-zA-Z]+\(/, minor: 32 },
  {
    name: 'two-variable comprehensions',
    pattern: /\.(all|exists|existsOne|exists_one|transformList|transformMap|transformMapEntry)\(\s*[A-Za-z_]\w*\s*,\s*[A-Za-z_]\w*\s*,/,
    minor: 33,
  },
  { name: 'the semver library (semver(), isSemver())', pattern: /\b(semver|isSemver)\(/, minor: 34 },
  { name: 'lists.range() / sortBy() / first() / last()', pattern: /\blists\.range\(|\.(sortBy|first|last)\(/, minor: 35 },
  { name: 'includes() (the Kubernetes lists library v1)', pattern: /\.includes\(/, minor: 38 },
  { name: 'isMask() (the CIDR library v1)', pattern: /\.isMask\(/, minor: 39 },
];

/** Libraries `expression` uses that a `minor` apiserver rejects when the expression is written. */
export const librariesNewerThan = (expression: string, minor: number) => LIBRARY_MINORS.filter((l) => l.minor > minor && l.pattern.test(expression));

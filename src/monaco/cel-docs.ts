/** Markdown for functions and macros, shown by completion and hover. */
import type { CelFunction, CelMacro } from '../cel/types';

export function signatureList(fn: CelFunction, member?: boolean): string {
  return fn.overloads
    .filter((o) => member === undefined || o.member === member)
    .map((o) => o.signature)
    .join('\n');
}

export function functionMarkdown(fn: CelFunction, member?: boolean): string {
  const parts = ['```\n' + signatureList(fn, member) + '\n```'];
  if (fn.doc) parts.push(fn.doc);
  const examples = fn.overloads.flatMap((o) => o.examples ?? []);
  if (examples.length) parts.push('Examples:\n```\n' + examples.slice(0, 6).join('\n') + '\n```');
  return parts.join('\n\n');
}

export function macroMarkdown(m: CelMacro[]): string {
  const first = m[0]!;
  const sigs = m.map(
    (x) => `${x.receiver ? 'e.' : ''}${x.name}(${Array.from({ length: x.argCount }, (_, i) => ['x', 'y', 'expr', 'expr2'][i] ?? `a${i}`).join(', ')})`,
  );
  const parts = ['```\n' + sigs.join('\n') + '\n```', `macro${first.doc ? ': ' + first.doc : ''}`];
  const ex = m.flatMap((x) => x.examples ?? []);
  if (ex.length) parts.push('Examples:\n```\n' + ex.slice(0, 6).join('\n') + '\n```');
  return parts.join('\n\n');
}

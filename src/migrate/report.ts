/**
 * What a conversion says, for people and for a GitOps repository: the rules by status (the CLI's
 * text, a markdown summary for a pull request) and the produced objects as files, one file per
 * object. Shared by `admission-workbench convert` and the app's Migration view and Export menu.
 */
import { kindOf, nameOf, namespaceOf, type Obj } from '../base/json';
import { serializeDocuments } from '../yaml';
import type { Conversion, RuleResult, RuleStatus } from './types';

export const STATUSES: readonly RuleStatus[] = ['exact', 'different', 'unsupported'];

/** How the summary names a status. */
export const STATUS_LABEL: Record<RuleStatus, string> = { exact: 'exact', different: 'different', unsupported: 'not convertible' };

/** A source document no converter reads (its project's converter is not part of this build): listed, never dropped. */
export interface Unread {
  kind: string;
  name: string;
  namespace?: string;
  /** Where it came from (a file name). */
  origin?: string;
}

/**
 * The source project's own tests run on one rule's converted objects: the cases passed, each failed
 * one with why, and apart those the source tool and the apiserver decide differently (`differs`
 * says why: src/migrate/source-tests.ts unservedDifference, decodeDifference).
 */
export interface RuleTests {
  passed: number;
  failed: { name: string; why: string }[];
  differs?: { name: string; why: string; differs: string }[];
}

const differing = (t: RuleTests): number => t.differs?.length ?? 0;

const testsLine = (t: RuleTests): string =>
  `tests: ${t.passed} passed, ${t.failed.length} failed${differing(t) ? `, ${differing(t)} decided differently by the source tool` : ''}`;

export const countByStatus = (rules: readonly RuleResult[]): Record<RuleStatus, number> => {
  const out: Record<RuleStatus, number> = { exact: 0, different: 0, unsupported: 0 };
  for (const r of rules) out[r.status]++;
  return out;
};

/** `kind/name`, as RuleResult.produced names an object. */
export const objectRef = (o: unknown): string => `${kindOf(o)}/${nameOf(o)}`;

const sourceRef = (r: RuleResult): string => `${r.source.kind}/${r.source.namespace ? `${r.source.namespace}/` : ''}${r.source.name}`;

/** One line per rule: the status, the source and rule, the reason, the produced objects. */
export function conversionText(conversion: Conversion, unread: readonly Unread[] = [], tests: readonly (RuleTests | undefined)[] = []): string {
  const lines: string[] = [];
  for (const [i, r] of conversion.rules.entries()) {
    // one line per rule: a reason written over several lines is joined
    lines.push(`${STATUS_LABEL[r.status].padEnd(15)} ${sourceRef(r)} rule ${r.source.rule}${r.reason ? `: ${r.reason.replace(/\s*\n\s*/g, ' ')}` : ''}`);
    if (r.produced.length) lines.push(`${''.padEnd(15)}   → ${r.produced.join(', ')}`);
    if (r.duplicate) lines.push(`${''.padEnd(15)}   ! ${r.duplicate}`);
    const t = tests[i];
    if (t) {
      lines.push(`${''.padEnd(15)}   ${testsLine(t)}`);
      for (const f of t.failed) lines.push(`${''.padEnd(15)}     FAIL ${f.name}: ${f.why.replace(/\s*\n\s*/g, ' ')}`);
      for (const f of t.differs ?? []) lines.push(`${''.padEnd(15)}     DIFFERS ${f.name}: ${f.differs}; ${f.why.replace(/\s*\n\s*/g, ' ')}`);
    }
  }
  for (const u of unread)
    lines.push(`${'not read'.padEnd(15)} ${u.kind}/${u.namespace ? `${u.namespace}/` : ''}${u.name}: no converter for its project in this build`);
  const c = countByStatus(conversion.rules);
  lines.push(
    `${conversion.rules.length} rule(s): ${c.exact} exact, ${c.different} different, ${c.unsupported} not convertible${unread.length ? `; ${unread.length} document(s) not read` : ''}; ${conversion.objects.length} object(s) produced${testsTotal(tests)}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `; imported tests: N passed, M failed` when any rule was tested. */
const testsTotal = (tests: readonly (RuleTests | undefined)[]): string => {
  const run = tests.filter((t): t is RuleTests => !!t);
  if (!run.length) return '';
  const passed = run.reduce((n, t) => n + t.passed, 0);
  const failed = run.reduce((n, t) => n + t.failed.length, 0);
  const differs = run.reduce((n, t) => n + differing(t), 0);
  return `; imported tests: ${passed} passed, ${failed} failed${differs ? `, ${differs} decided differently by the source tool` : ''}`;
};

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** A markdown summary for a pull request: counts, then one table row per rule. */
export function conversionMarkdown(conversion: Conversion, unread: readonly Unread[] = [], tests: readonly (RuleTests | undefined)[] = []): string {
  const c = countByStatus(conversion.rules);
  const out = [
    '## Policies converted to native admission',
    '',
    `${conversion.rules.length} rule(s): **${c.exact} exact**, **${c.different} different**, **${c.unsupported} not convertible**; ${conversion.objects.length} object(s) produced${testsTotal(tests)}.`,
    '',
    '"Exact" is said only where a differential test against the source project\'s own engine agrees; "different" states the difference.',
    '',
  ];
  const tested = tests.some(Boolean);
  if (conversion.rules.length) {
    out.push(`| Status | Source | Rule | Reason | Produced |${tested ? ' Tests |' : ''}`, `| --- | --- | --- | --- | --- |${tested ? ' --- |' : ''}`);
    for (const [i, r] of conversion.rules.entries()) {
      const t = tests[i];
      const testCell = !tested
        ? ''
        : t
          ? ` ${testsLine(t).slice('tests: '.length)}${t.failed.map((f) => `<br>FAIL ${cell(f.name)}: ${cell(f.why)}`).join('')}${(t.differs ?? []).map((f) => `<br>DIFFERS ${cell(f.name)}: ${cell(f.differs)}`).join('')} |`
          : ' |';
      out.push(
        `| ${STATUS_LABEL[r.status]} | ${cell(sourceRef(r))} | ${cell(r.source.rule)} | ${cell([r.reason, r.duplicate].filter(Boolean).join('; '))} | ${r.produced.map((p) => `\`${cell(p)}\``).join('<br>')} |${testCell}`,
      );
    }
    out.push('');
  }
  if (unread.length) {
    out.push('Not read (no converter for their project in this build):', '');
    for (const u of unread) out.push(`- ${u.kind}/${u.namespace ? `${u.namespace}/` : ''}${u.name}${u.origin ? ` (${u.origin})` : ''}`);
    out.push('');
  }
  return out.join('\n');
}

const fileSafe = (s: string): string => s.toLowerCase().replace(/[^a-z0-9.-]+/g, '-') || 'unnamed';

/** A file name per object, unique in `taken`: `<kind>-<namespace>-<name>.yaml`, lowercase. */
function fileNameOf(o: unknown, taken: Set<string>): string {
  const base = [kindOf(o), namespaceOf(o), nameOf(o)].filter(Boolean).map(fileSafe).join('-');
  let name = `${base}.yaml`;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}.yaml`;
  taken.add(name);
  return name;
}

export interface ConversionFileOptions {
  /** The source documents, written under `source/` beside `native/` (omit: the source is removed from the repository). */
  sources?: readonly { object: unknown; text?: string }[];
  /** MIGRATION.md, the markdown summary (default true). */
  summary?: boolean;
  unread?: readonly Unread[];
}

/**
 * The converted set as files for a GitOps repository: `native/<kind>-<name>.yaml`, one object per
 * file, in the conversion's order; the sources under `source/` when kept; MIGRATION.md.
 */
export function conversionFiles(conversion: Conversion, options: ConversionFileOptions = {}): Record<string, string> {
  const files: Record<string, string> = {};
  const taken = new Set<string>();
  for (const o of conversion.objects) files[`native/${fileNameOf(o, taken)}`] = serializeDocuments([o as Obj]);
  const sourceNames = new Set<string>();
  for (const s of options.sources ?? []) {
    const text = s.text ?? serializeDocuments([s.object as Obj]);
    files[`source/${fileNameOf(s.object, sourceNames)}`] = text.endsWith('\n') ? text : `${text}\n`;
  }
  if (options.summary !== false) files['MIGRATION.md'] = conversionMarkdown(conversion, options.unread);
  return files;
}

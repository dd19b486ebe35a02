/**
 * Report formats of `check`: text (like a compiler: `file:line:column: error: field: message`),
 * json (`{files, problems, summary}`), github (workflow commands: annotations on the pull
 * request's lines) and junit (XML for CI test reports).
 */
import { countsText } from '../check/severity';
import { fails, type FailOn, type Problem } from './problem';
import { belowMinimum, coverageText, type CoverageReport } from './coverage';

export const FORMATS = ['text', 'json', 'github', 'junit'] as const;
export type Format = (typeof FORMATS)[number];

export interface Summary {
  files: number;
  documents: number;
  /** Admission objects checked. */
  checked: number;
  /** Objects of other kinds, not checked. */
  skipped: number;
  /** What the apiserver would reject (unreadable input included). */
  errors: number;
  /** What the apiserver would accept with a warning. */
  warnings: number;
  /** Ours: lints and caBundle findings (never the apiserver's). */
  findings: number;
  cases: { total: number; passed: number; failed: number };
  /** Input that could not be read (missing, binary, too large …). */
  unreadable: number;
  exitCode: number;
}

export interface Report {
  files: string[];
  problems: Problem[];
  summary: Summary;
  /** With --coverage. */
  coverage?: CoverageReport;
  /** --min-coverage, when given. */
  minCoverage?: number;
}

/** The coverage lines of the text and github reports (quiet: only when below --min-coverage). */
function coverageLines(r: Report, quiet: boolean): string[] {
  if (!r.coverage) return [];
  const below = r.minCoverage !== undefined && belowMinimum(r.coverage, r.minCoverage);
  if (quiet && !below) return [];
  const lines = coverageText(r.coverage, r.minCoverage);
  return quiet ? lines.slice(-1) : lines;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function summaryLine(s: Summary): string {
  const parts = [plural(s.files, 'file'), `${plural(s.documents, 'object')} (${s.checked} checked, ${s.skipped} kept but not checked)`, countsText(s)];
  if (s.cases.total) parts.push(`cases: ${s.cases.passed}/${s.cases.total} passed`);
  if (s.unreadable) parts.push(`${s.unreadable} unreadable`);
  return parts.join(', ');
}

export function problemLine(p: Problem): string {
  const where = `${p.file}:${p.line}:${p.column}`;
  const field = p.field && !['YAML', 'Case', 'Scenario'].includes(p.type) ? `${p.field}: ` : '';
  const rule = p.type === 'Lint' && p.rule ? ` [${p.rule}${p.level ? `, ${p.level}` : ''}]` : '';
  // A type-checking warning: its code first, then the controller's text (one paragraph per kind), indented.
  if (p.type === 'TypeChecking') return `${where}: ${p.severity}: ${field}[TypeChecking] ${p.message.replace(/\n/g, '\n    ')}`;
  return `${where}: ${p.severity}: ${field}${p.message}${rule}`;
}

function text(r: Report, failOn: FailOn, quiet: boolean): string {
  const shown = quiet ? r.problems.filter((p) => fails(p, failOn)) : r.problems;
  const lines = shown.map(problemLine);
  lines.push(...coverageLines(r, quiet));
  if (!quiet) lines.push(summaryLine(r.summary));
  return lines.length ? `${lines.join('\n')}\n` : '';
}

// GitHub workflow commands: https://docs.github.com/actions/reference/workflow-commands-for-github-actions
const ghData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const ghProperty = (s: string) => ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
/** Annotation levels: a finding is a warning annotation at level warning, a notice at info. */
const ghLevel = (p: Problem) => (p.severity === 'finding' ? (p.level === 'warning' ? 'warning' : 'notice') : p.severity);

/** One workflow command per problem (quiet: only those at or above `failOn`); `check --upgrade-from` annotates its changes with it. */
export function githubAnnotations(problems: readonly Problem[], failOn: FailOn, quiet: boolean): string[] {
  const shown = quiet ? problems.filter((p) => fails(p, failOn)) : problems;
  return shown.map((p) => {
    const title = p.type === 'Lint' && p.rule ? `${p.rule} ${p.field}` : p.field || p.type;
    return `::${ghLevel(p)} file=${ghProperty(p.file)},line=${p.line},col=${p.column},title=${ghProperty(title)}::${ghData(p.message)}`;
  });
}

function github(r: Report, failOn: FailOn, quiet: boolean): string {
  const lines = githubAnnotations(r.problems, failOn, quiet);
  const cov = coverageLines(r, quiet);
  const below = !!r.coverage && r.minCoverage !== undefined && belowMinimum(r.coverage, r.minCoverage);
  cov.forEach((l, i) => lines.push(`::${below && i === cov.length - 1 ? 'error' : 'notice'} title=coverage::${ghData(l)}`));
  if (!quiet) lines.push(summaryLine(r.summary));
  return `${lines.join('\n')}\n`;
}

const xml = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/**
 * One testsuite per file, one testcase per file (and per saved case): failing problems are its
 * failures. `name`: the run's (`check --upgrade-from` reports its changes with it).
 */
export function junitXml(files: readonly string[], problems: readonly Problem[], failOn: FailOn, name = 'admission-workbench check'): string {
  const byFile = new Map<string, Problem[]>(files.map((f) => [f, []]));
  for (const p of problems) (byFile.get(p.file) ?? byFile.set(p.file, []).get(p.file)!).push(p);
  const suites = [...byFile].map(([file, problems]) => {
    const failing = problems.filter((p) => fails(p, failOn));
    const isCase = (p: Problem) => p.type === 'Case' || p.type === 'Scenario';
    const cases = failing.filter(isCase);
    const other = failing.filter((p) => !isCase(p));
    const testcases = [
      `    <testcase classname="${xml(file)}" name="check">${other.length ? `\n      <failure message="${xml(`${other.length} problem(s)`)}">${xml(other.map(problemLine).join('\n'))}</failure>\n    ` : ''}</testcase>`,
      ...cases.map(
        (p) =>
          `    <testcase classname="${xml(file)}" name="${xml(p.rule ?? p.field)}">\n      <failure message="${xml(p.message)}">${xml(problemLine(p))}</failure>\n    </testcase>`,
      ),
    ];
    return `  <testsuite name="${xml(file)}" tests="${testcases.length}" failures="${(other.length ? 1 : 0) + cases.length}">\n${testcases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(name)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** The documented key order of a problem in JSON. */
const ordered = ({ file, line, column, document, kind, name, field, type, severity, level, message, rule, hint }: Problem): Problem => ({
  file,
  line,
  column,
  document,
  kind,
  name,
  field,
  type,
  severity,
  ...(level !== undefined ? { level } : {}),
  message,
  ...(rule !== undefined ? { rule } : {}),
  ...(hint !== undefined ? { hint } : {}),
});

export function formatReport(r: Report, format: Format, failOn: FailOn, quiet: boolean): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify({ files: r.files, problems: r.problems.map(ordered), summary: r.summary, ...(r.coverage ? { coverage: r.coverage } : {}) }, null, 2)}\n`;
    case 'github':
      return github(r, failOn, quiet);
    case 'junit':
      return junitXml(r.files, r.problems, failOn);
    default:
      return text(r, failOn, quiet);
  }
}

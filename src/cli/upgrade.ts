/**
 * `check --upgrade-from A`: the check (src/cli/check.ts) and the `--cases` run at release A and
 * at the target release B, compared by src/check/upgrade.ts. Expressions compile at A as written
 * (environment.NewExpressions) and at B as stored (StoredExpressions): when the cluster upgrades
 * they are already in etcd, and that is how B's apiserver compiles them. Unreadable input
 * answers nothing (exit 2): a file missing at both releases would hide every difference.
 */
import { createFillingCompiler, evaluate, loadCelFor } from '../cel';
import { celAtRelease } from '../check/cases';
import { upgradeChanges, type UpgradeChange } from '../check/upgrade';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import type { CelCompiler } from '../cel/types';
import type { CheckArgs } from './args';
import { runCasesFile, type CasesSummary } from './cases';
import { checkTexts, type CheckResult } from './check';
import { githubAnnotations, junitXml, problemLine } from './format';
import { CHECK_INPUTS, readInputs, type FileSystem, type InputFile } from './inputs';
import { sortProblems, type Problem } from './problem';

/** The JSON report of `--upgrade-from` (`--format json`). */
export interface UpgradeReport {
  from: KubernetesVersion;
  to: KubernetesVersion;
  files: string[];
  /** How each release compiles the expressions: as written at `from`, as stored (already in etcd) at `to`. */
  compiled: { from: 'NewExpressions'; to: 'StoredExpressions' };
  changes: UpgradeChange<Problem>[];
  summary: { appears: number; gone: number; changed: number; worse: number; cases: { from: CasesSummary; to: CasesSummary }; exitCode: number };
}

interface IO {
  fs: FileSystem;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** What a comparison reads besides the files: the check's settings and the `--cases` file (read from `fs`). */
export type UpgradeOptions = Pick<CheckArgs, 'platform' | 'fieldValidation' | 'static' | 'manifestBase' | 'cases' | 'staticOrder' | 'featureGates'>;

/** The comparison (without the CLI's exit code), or why it compares nothing (the lines to show; the CLI exits 2). */
export type UpgradeComparison = Omit<UpgradeReport, 'summary'> & { summary: Omit<UpgradeReport['summary'], 'exitCode'> };
export type UpgradeResult = { ok: true; report: UpgradeComparison } | { ok: false; messages: string[] };

/**
 * The check of the files at one release, repeated until the engine has answered every expression
 * it met (at once in Node); `stored`: every expression compiled as one the apiserver already stores.
 */
async function checkedAt(options: UpgradeOptions, files: readonly InputFile[], release: KubernetesVersion, stored: boolean): Promise<CheckResult | string> {
  const filling = createFillingCompiler();
  const cel: CelCompiler = stored ? { compile: (e, c, o) => filling.compile(e, c, { ...o, stored: true }) } : filling;
  // a run meets the expressions of the last one, and the variables they declare: two rounds, rarely three
  for (let round = 0; round < 4; round++) {
    const checked = await checkTexts(files, {
      cel,
      kubernetesVersion: release,
      platform: options.platform,
      fieldValidation: options.fieldValidation,
      static: options.static,
      manifestBase: options.manifestBase,
    });
    if (!filling.missing()) return checked;
    const failure = await filling.fill();
    if (failure) return `the ${release} engine did not compile: ${failure}`;
  }
  return `the ${release} engine's answers did not settle`;
}

/** Every problem of the check and the cases at one release, or why there are none. */
async function problemsAt(
  options: UpgradeOptions,
  files: readonly InputFile[],
  release: KubernetesVersion,
  fs: FileSystem,
  stored: boolean,
): Promise<{ problems: Problem[]; cases: CasesSummary } | { messages: string[] }> {
  const checked = await checkedAt(options, files, release, stored);
  if (typeof checked === 'string') return { messages: [checked] };
  const problems = [...checked.problems];
  if (checked.manifestHeadline)
    problems.push({
      file: '',
      line: 1,
      column: 1,
      document: 0,
      kind: '',
      name: '',
      field: '',
      type: 'Manifests',
      severity: 'error',
      message: checked.manifestHeadline,
    });
  let cases: CasesSummary = { total: 0, passed: 0, failed: 0 };
  if (options.cases) {
    const objects = checked.objects.map((o) => o.object);
    const run = await runCasesFile(options.cases, objects, fs, celAtRelease({ evaluate }, release), release, {
      static: options.static === true,
      staticOrder: options.staticOrder,
      featureGates: options.featureGates,
    });
    if (run.unreadable) return { messages: run.problems.filter((x) => x.type === 'File').map((p) => `${p.file}: ${p.message}`) };
    problems.push(...run.problems);
    cases = run.summary;
  }
  return { problems, cases };
}

/**
 * What changes for the files from release `from` to `to` (the CLI's `check --upgrade-from` and
 * the app's upgrade panel): both releases' engine generations must start, since a release
 * compiled without its engine would show every compile error as gone.
 */
export async function compareReleases(
  options: UpgradeOptions,
  from: KubernetesVersion,
  to: KubernetesVersion,
  files: readonly InputFile[],
  fs: FileSystem,
  fileOrder: readonly string[] = [],
): Promise<UpgradeResult> {
  for (const release of [from, to]) {
    const failure = await loadCelFor(release);
    if (failure) return { ok: false, messages: [`compares nothing without the ${release} engine: ${failure}`] };
  }
  const before = await problemsAt(options, files, from, fs, false);
  if ('messages' in before) return { ok: false, messages: before.messages };
  const after = await problemsAt(options, files, to, fs, true);
  if ('messages' in after) return { ok: false, messages: after.messages };
  const names = files.map((f) => f.name);
  const order = [...fileOrder, ...names];
  const sorted = (ps: Problem[]) => sortProblems(ps, order);
  const changes = upgradeChanges(sorted(before.problems), sorted(after.problems), from, to);
  const count = (k: UpgradeChange<Problem>['change']) => changes.filter((c) => c.change === k).length;
  return {
    ok: true,
    report: {
      from,
      to,
      compiled: { from: 'NewExpressions', to: 'StoredExpressions' },
      files: names,
      changes,
      summary: {
        appears: count('appears'),
        gone: count('gone'),
        changed: count('changed'),
        worse: changes.filter((c) => c.worse).length,
        cases: { from: before.cases, to: after.cases },
      },
    },
  };
}

/** What the comparison compiled how, as the report says it. */
export const STORED_NOTE = (from: KubernetesVersion, to: KubernetesVersion) => `compiled at ${from} as written, at ${to} as stored`;

const WORDS: Record<UpgradeChange<Problem>['change'], string> = { appears: 'appears in', gone: 'gone in', changed: 'changed in' };

function changeLine(c: UpgradeChange<Problem>, from: KubernetesVersion): string {
  const head = `${WORDS[c.change]} ${c.release}${c.worse ? ' (worse)' : ''}`;
  // problemLine starts with the position; the change goes right after it (a file name may hold colons)
  const where = `${c.problem.file}:${c.problem.line}:${c.problem.column}: `;
  const line = `${where}${head}: ${problemLine(c.problem).slice(where.length)}`;
  return c.before ? `${line}\n    at ${from}: ${c.before.severity}: ${c.before.message.replace(/\n/g, '\n    ')}` : line;
}

/** A change as a problem of the CI formats (github, junit): what got worse fails (an error), the rest is a notice. */
function changeProblem(c: UpgradeChange<Problem>, from: KubernetesVersion): Problem {
  const before = c.before ? ` (at ${from}: ${c.before.severity}: ${c.before.message})` : '';
  const message = `${WORDS[c.change]} ${c.release}${c.worse ? ' (worse)' : ''}: ${c.problem.severity}: ${c.problem.message}${before}`;
  return { ...c.problem, severity: c.worse ? 'error' : 'finding', level: 'info', message };
}

export async function runUpgrade(args: CheckArgs & { upgradeFrom: KubernetesVersion }, io: IO): Promise<number> {
  const from = args.upgradeFrom;
  const to = args.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const read = await readInputs(args.paths, io.fs, CHECK_INPUTS);
  if (read.problems.length) {
    for (const p of read.problems) io.stderr(`admission-workbench: ${p.file}: ${p.message}\n`);
    io.stderr('admission-workbench: --upgrade-from compares nothing while input is unreadable.\n');
    return 2;
  }
  const result = await compareReleases(args, from, to, read.files, io.fs, args.paths);
  if (!result.ok) {
    for (const m of result.messages) io.stderr(`admission-workbench: --upgrade-from ${m}\n`);
    return 2;
  }
  const { changes } = result.report;
  const worse = result.report.summary.worse;
  const exitCode = worse ? 1 : 0;
  const report: UpgradeReport = { ...result.report, summary: { ...result.report.summary, exitCode } };
  const { from: casesFrom, to: casesTo } = report.summary.cases;
  const summaryLine = `upgrade ${from} → ${to}: ${report.summary.appears} appear, ${report.summary.gone} gone, ${report.summary.changed} changed, ${worse} worse${
    casesTo.total ? `, cases: ${casesFrom.passed}/${casesFrom.total} passed at ${from}, ${casesTo.passed}/${casesTo.total} at ${to}` : ''
  } (${STORED_NOTE(from, to)})`;
  const shown = args.quiet ? changes.filter((c) => c.worse) : changes;
  const lines =
    args.format === 'github'
      ? githubAnnotations(
          shown.map((c) => changeProblem(c, from)),
          'error',
          false,
        )
      : shown.map((c) => changeLine(c, from));
  if (!args.quiet) lines.push(summaryLine);
  if (args.format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else if (args.format === 'junit')
    io.stdout(
      junitXml(
        report.files,
        changes.map((c) => changeProblem(c, from)),
        'error',
        `admission-workbench upgrade ${from} → ${to}`,
      ),
    );
  else if (lines.length) io.stdout(`${lines.join('\n')}\n`);
  return exitCode;
}

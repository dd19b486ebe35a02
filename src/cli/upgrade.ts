/**
 * `check --upgrade-from A`: the check (src/cli/check.ts) and the `--cases` run at release A and
 * at the target release B, compared by src/check/upgrade.ts. Unreadable input answers nothing
 * (exit 2): a file missing at both releases would hide every difference.
 */
import { createSyncCompiler, evaluate, loadCelFor } from '../cel';
import { celAtRelease } from '../check/cases';
import { upgradeChanges, type UpgradeChange } from '../check/upgrade';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import type { CheckArgs } from './args';
import { runCasesFile, type CasesSummary } from './cases';
import { checkTexts } from './check';
import { problemLine } from './format';
import { readInputs, type FileSystem, type InputFile } from './inputs';
import { sortProblems, type Problem } from './problem';

/** The JSON report of `--upgrade-from` (`--format json`). */
export interface UpgradeReport {
  from: KubernetesVersion;
  to: KubernetesVersion;
  files: string[];
  changes: UpgradeChange<Problem>[];
  summary: { appears: number; gone: number; changed: number; worse: number; cases: { from: CasesSummary; to: CasesSummary }; exitCode: number };
}

interface IO {
  fs: FileSystem;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Every problem of the check and the cases at one release; undefined (after saying why) on unreadable cases. */
async function problemsAt(
  args: CheckArgs,
  files: readonly InputFile[],
  release: KubernetesVersion,
  io: IO,
): Promise<{ problems: Problem[]; cases: CasesSummary } | undefined> {
  const checked = await checkTexts(files, {
    cel: createSyncCompiler(),
    kubernetesVersion: release,
    platform: args.platform,
    fieldValidation: args.fieldValidation,
    static: args.static,
    manifestBase: args.manifestBase,
  });
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
  if (args.cases) {
    const objects = checked.objects.map((o) => o.object);
    const run = await runCasesFile(args.cases, objects, io.fs, celAtRelease({ evaluate }, release), release, { static: args.static === true });
    if (run.unreadable) {
      for (const p of run.problems.filter((x) => x.type === 'File')) io.stderr(`admission-workbench: ${p.file}: ${p.message}\n`);
      return undefined;
    }
    problems.push(...run.problems);
    cases = run.summary;
  }
  return { problems, cases };
}

const WORDS: Record<UpgradeChange<Problem>['change'], string> = { appears: 'appears in', gone: 'gone in', changed: 'changed in' };

function changeLine(c: UpgradeChange<Problem>, from: KubernetesVersion): string {
  const head = `${WORDS[c.change]} ${c.release}${c.worse ? ' (worse)' : ''}`;
  // problemLine starts with the position; the change goes right after it (a file name may hold colons)
  const where = `${c.problem.file}:${c.problem.line}:${c.problem.column}: `;
  const line = `${where}${head}: ${problemLine(c.problem).slice(where.length)}`;
  return c.before ? `${line}\n    at ${from}: ${c.before.severity}: ${c.before.message.replace(/\n/g, '\n    ')}` : line;
}

export async function runUpgrade(args: CheckArgs & { upgradeFrom: KubernetesVersion }, io: IO): Promise<number> {
  const from = args.upgradeFrom;
  const to = args.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  // both releases' engine generations: validation's compiles are synchronous
  // a release whose engine build is missing would compile nothing: its compile errors would all look "gone"
  for (const release of [from, to]) {
    const failure = await loadCelFor(release);
    if (failure) {
      io.stderr(`admission-workbench: --upgrade-from compares nothing without the ${release} engine: ${failure}\n`);
      return 2;
    }
  }
  const read = await readInputs(args.paths, io.fs);
  if (read.problems.length) {
    for (const p of read.problems) io.stderr(`admission-workbench: ${p.file}: ${p.message}\n`);
    io.stderr('admission-workbench: --upgrade-from compares nothing while input is unreadable.\n');
    return 2;
  }
  const before = await problemsAt(args, read.files, from, io);
  const after = before && (await problemsAt(args, read.files, to, io));
  if (!before || !after) return 2;
  const files = read.files.map((f) => f.name);
  const order = [...args.paths, ...files];
  const sorted = (ps: Problem[]) => sortProblems(ps, order);
  const changes = upgradeChanges(sorted(before.problems), sorted(after.problems), from, to);
  const count = (k: UpgradeChange<Problem>['change']) => changes.filter((c) => c.change === k).length;
  const worse = changes.filter((c) => c.worse).length;
  const exitCode = worse ? 1 : 0;
  const report: UpgradeReport = {
    from,
    to,
    files,
    changes,
    summary: { appears: count('appears'), gone: count('gone'), changed: count('changed'), worse, cases: { from: before.cases, to: after.cases }, exitCode },
  };
  if (args.format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else {
    const shown = args.quiet ? changes.filter((c) => c.worse) : changes;
    const lines = shown.map((c) => changeLine(c, from));
    if (!args.quiet) {
      const cases = after.cases.total
        ? `, cases: ${before.cases.passed}/${before.cases.total} passed at ${from}, ${after.cases.passed}/${after.cases.total} at ${to}`
        : '';
      lines.push(
        `upgrade ${from} → ${to}: ${report.summary.appears} appear, ${report.summary.gone} gone, ${report.summary.changed} changed, ${worse} worse${cases}`,
      );
    }
    if (lines.length) io.stdout(`${lines.join('\n')}\n`);
  }
  return exitCode;
}

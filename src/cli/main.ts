/**
 * `admission-workbench check …`: read the inputs, check them with the core and the real CEL
 * engine, run saved cases, print the report, return the exit code (0 nothing at or above
 * --fail-on, 1 something is, 2 usage error or unreadable input). Never throws.
 */
import { createSyncCompiler, evaluate, loadCelFor } from '../cel';
import { celAtRelease } from '../check/cases';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { DEFAULT_MANIFEST_BASE } from '../k8s/static-manifests';
import { ADMISSION_CONFIGURATION_FILE, manifestDirectoryFiles } from '../share/manifest-dir';
import { CHECK_USAGE, parseArgs, USAGE, versionText, type CheckArgs } from './args';
import { runCasesFile } from './cases';
import { checkTexts } from './check';
import { formatReport, type Report } from './format';
import { CHECK_INPUTS, readInputs, writeFiles, type FileSystem } from './inputs';
import { fails, sortProblems, type Problem } from './problem';
import { runImpact } from './impact';
import { runConvert } from './convert';
import { runExport } from './export';
import { runUpgrade } from './upgrade';
import { belowMinimum, coverageReport, toLcov, type CoverageReport, type PolicyLocation } from './coverage';
import type { OpenShard } from '../impact';
import type { Spool } from './impact-report';
import type { WorkerPool } from './impact-workers';

export interface CliIO {
  fs: FileSystem;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (progress is shown there). */
  isTTY?(): boolean;
  /** `impact` over worker threads (the built CLI on Node): `workers` of them, default the machine's cores. */
  impactPool?(workers?: number): WorkerPool;
  /** `impact`'s replay shards (the built CLI: worker threads), `n` of them. */
  impactShards?(n: number): OpenShard[];
  /** The machine's cores (impact: native engine processes; default 1). */
  cores?(): number;
  /** Where `impact`'s JSON report keeps its events until its summary is written (default: memory). */
  spool?(): Spool;
}

async function check(args: CheckArgs, io: CliIO): Promise<number> {
  if (args.upgradeFrom) return runUpgrade({ ...args, upgradeFrom: args.upgradeFrom }, io);
  // the target's engine generation too: validation's compiles are synchronous
  const failure = await loadCelFor(args.kubernetesVersion);
  if (failure) {
    io.stderr(`admission-workbench: ${failure}\n`);
    return 2;
  }
  const cel = createSyncCompiler();
  // The one target release: validation, the CEL environment, lints and every case run.
  const release = args.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const read = await readInputs(args.paths, io.fs, CHECK_INPUTS);
  const checked = await checkTexts(read.files, {
    cel,
    kubernetesVersion: release,
    platform: args.platform,
    fieldValidation: args.fieldValidation,
    static: args.static,
    manifestBase: args.manifestBase,
  });
  if (checked.manifestHeadline) io.stderr(`admission-workbench: ${checked.manifestHeadline}.\n`);
  let unwritten = false;
  if (args.exportManifests) {
    const out = args.exportManifests;
    const files = Object.entries(
      manifestDirectoryFiles(
        checked.objects.map((o) => ({ object: o.object })),
        () => true,
        args.layout,
        args.manifestBase,
      ),
    );
    // a set read only in part is not the set: nothing is written (the problems below say what was not read)
    if (read.problems.length) io.stderr(`admission-workbench: nothing written to ${out}: ${read.problems.length} input(s) could not be read.\n`);
    else if (checked.manifestHeadline) io.stderr(`admission-workbench: nothing written to ${out}: the set does not load.\n`);
    else if (
      !writeFiles(
        io.fs,
        files.map(([name, text]) => [io.fs.join(out, name), text] as const),
        io.stderr,
        'admission-workbench',
      )
    )
      unwritten = true;
    else
      io.stderr(
        `admission-workbench: wrote ${files.length} file(s) to ${out} (${ADMISSION_CONFIGURATION_FILE} names the directories under ${args.manifestBase ?? DEFAULT_MANIFEST_BASE}).\n`,
      );
  }
  const fileProblems: Problem[] = read.problems.map((p) => ({
    file: p.file,
    line: 1,
    column: 1,
    document: 0,
    kind: '',
    name: '',
    field: '',
    type: 'File',
    severity: 'error',
    message: p.message,
  }));
  const problems = [...fileProblems, ...checked.problems];
  let cases = { total: 0, passed: 0, failed: 0 };
  let unreadable = fileProblems.length;
  let coverage: CoverageReport | undefined;
  if (args.cases) {
    const run = await runCasesFile(
      args.cases,
      checked.objects.map((o) => o.object),
      io.fs,
      celAtRelease({ evaluate }, release),
      release,
      { coverage: args.coverage, static: args.static === true, staticOrder: args.staticOrder, featureGates: args.featureGates },
    );
    problems.push(...run.problems);
    cases = run.summary;
    if (run.unreadable) unreadable++;
    if (run.coverage) {
      coverage = coverageReport(run.coverage.map((c) => c.coverage));
      // LCOV is keyed by the lines of the checked file each policy came from
      const texts = new Map(read.files.map((f) => [f.name, f.text]));
      const located = new Map<unknown, PolicyLocation>();
      for (const c of run.coverage) {
        const o = checked.objects.find((x) => x.object === c.policy);
        if (o) located.set(c.coverage, { file: o.file, text: texts.get(o.file) ?? '', document: o.document });
      }
      const written = writeReports(args, coverage, (p) => located.get(p), io);
      if (!written) return 2;
    }
  }
  // Unreadable input counts as an error, as it is listed (and exits 2).
  const count = (s: Problem['severity']) => problems.filter((p) => p.severity === s).length;
  const failing = problems.some((p) => fails(p, args.failOn));
  const tooLow = !!coverage && args.minCoverage !== undefined && belowMinimum(coverage, args.minCoverage);
  const exitCode = unreadable || unwritten ? 2 : failing || tooLow ? 1 : 0;
  const files = read.files.map((f) => f.name);
  const report: Report = {
    files,
    problems: sortProblems(problems, [...args.paths, ...files]),
    summary: {
      files: files.length,
      documents: checked.documents,
      checked: checked.objects.length,
      skipped: checked.skipped,
      errors: count('error'),
      warnings: count('warning'),
      findings: count('finding'),
      cases,
      unreadable,
      exitCode,
    },
    ...(coverage ? { coverage } : {}),
    ...(args.minCoverage !== undefined ? { minCoverage: args.minCoverage } : {}),
  };
  io.stdout(formatReport(report, args.format, args.failOn, args.quiet));
  return exitCode;
}

/** --coverage-out and --lcov; false (after saying why) when a file cannot be written. */
function writeReports(args: CheckArgs, coverage: CoverageReport, locate: Parameters<typeof toLcov>[1], io: CliIO): boolean {
  const files: [string, string][] = [];
  if (args.coverageOut) files.push([args.coverageOut, `${JSON.stringify(coverage, null, 2)}\n`]);
  if (args.lcov) files.push([args.lcov, toLcov(coverage, locate)]);
  return writeFiles(io.fs, files, io.stderr, 'admission-workbench');
}

/** The commands with their own options (`check` is parsed by args.ts). */
const SUBCOMMANDS: Readonly<Record<string, (argv: readonly string[], io: CliIO) => Promise<number>>> = {
  impact: runImpact,
  convert: runConvert,
  export: runExport,
};

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const command = SUBCOMMANDS[argv[0] ?? ''];
  if (command) {
    try {
      return await command(argv.slice(1), io);
    } catch (e) {
      io.stderr(`admission-workbench: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      return 2;
    }
  }
  const args = parseArgs(argv);
  // `check`'s own help and usage errors show its options; the top level shows the commands too.
  const usage = argv[0] === 'check' ? CHECK_USAGE : USAGE;
  if (args.command === 'help') {
    io.stdout(usage);
    return 0;
  }
  if (args.command === 'version') {
    io.stdout(versionText());
    return 0;
  }
  if (args.command === 'error') {
    io.stderr(`admission-workbench: ${args.message}\n\n${usage}`);
    return 2;
  }
  try {
    return await check(args, io);
  } catch (e) {
    io.stderr(`admission-workbench: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 2;
  }
}

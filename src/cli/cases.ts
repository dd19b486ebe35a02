/**
 * `--cases FILE`: saved policy cases (and CEL cases) from a workspace file
 * (src/share/workspace-file.ts) or a kaptest test manifest (kaptest.ts), run against the
 * checked objects with the real engine. Every failing case is a problem at the case's
 * position in FILE; a case whose policy is missing is one too.
 */
import { runCases, type CaseResult, type CaseTarget, type CasesReport, type PolicyTestCase } from '../policy/cases';
import { expressionSample, policyCoverage, policyExpressions, type CoverageRun, type PolicyCoverage } from '../policy/coverage';
import { kindOf, nameOf, obj, str } from '../base/json';
import {
  celAtRelease,
  findPolicy,
  isPolicy,
  runCelCases,
  runPolicyCases,
  scenarioCoverageRuns,
  scenarioProblems,
  type CelCaseRun,
  type CelRunner,
} from '../check/cases';
import { readWorkspaceFile, type WorkspaceFile } from '../share/workspace-file';
import { unzipFiles } from '../share/zip';
import { parseDocuments, type ParsedDocument } from '../yaml';
import { positionIn } from './check';
import { readInputs, type FileSystem, type InputFile } from './inputs';
import { isKaptestManifest, kaptestManifestRefusal, readKaptestManifest } from './kaptest';
import type { Problem } from './problem';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion, type WorkspaceGate } from '../base/releases';
import type { StaticOrder } from '../k8s/static-manifests';

export interface CasesSummary {
  total: number;
  passed: number;
  failed: number;
}

export interface CasesRun {
  problems: Problem[];
  summary: CasesSummary;
  /** Unreadable input (exit 2). */
  unreadable: boolean;
  /** With `coverage`: per policy with cases (or CEL cases of its expressions), in the order met. */
  coverage?: { policy: unknown; coverage: PolicyCoverage }[];
}

export interface CasesFileOptions {
  /** Run traced and compute the coverage of each policy's cases (src/policy/coverage.ts). */
  coverage?: boolean;
  /** The checked objects are a static manifest set (check --static): scenarios run them first. */
  static?: boolean;
  /** --static-order, over the workspace file's. */
  staticOrder?: StaticOrder;
  /** --feature-gates, over the workspace file's. */
  featureGates?: readonly WorkspaceGate[];
}

/** What a policy's coverage is computed from, collected while its cases run. */
interface CoverageInput {
  results: CaseResult[];
  cases: PolicyTestCase[];
  extra: CoverageRun[];
}

interface Ctx {
  file: string;
  doc: ParsedDocument;
  problems: Problem[];
  summary: CasesSummary;
  /** With --coverage: per policy object. */
  coverage?: Map<unknown, CoverageInput>;
}

function coverageOf(ctx: Ctx, policy: unknown): CoverageInput | undefined {
  if (!ctx.coverage) return undefined;
  return ctx.coverage.get(policy) ?? ctx.coverage.set(policy, { results: [], cases: [], extra: [] }).get(policy)!;
}

function addCases(ctx: Ctx, policy: unknown, report: CasesReport, cases: readonly PolicyTestCase[]): void {
  const c = coverageOf(ctx, policy);
  if (!c) return;
  c.results.push(...report.results);
  c.cases.push(...cases);
}

/** A CEL case of a policy expression counts as a case of that policy. */
function addCelRuns(ctx: Ctx, object: unknown, path: string, names: readonly string[], runs: readonly CelCaseRun[]): void {
  if (!isPolicy(object) || !policyExpressions(object).some((e) => e.field === path)) return;
  const c = coverageOf(ctx, object);
  runs.forEach((r, i) =>
    c?.extra.push({
      name: names[i] ?? `CEL case ${i + 1}`,
      samples: [expressionSample(path, r)],
    }),
  );
}

function coverageResults(ctx: Ctx): CasesRun['coverage'] {
  if (!ctx.coverage) return undefined;
  return [...ctx.coverage].map(([policy, c]) => ({ policy, coverage: policyCoverage(policy, c.results, c.cases, c.extra) }));
}

function problemAt(ctx: Ctx, path: string, message: string, extra: Partial<Problem> = {}): Problem {
  return {
    file: ctx.file,
    ...positionIn(ctx.doc, path),
    document: ctx.doc.documentIndex,
    kind: '',
    name: '',
    field: path,
    type: 'Case',
    severity: 'error',
    message,
    ...extra,
  };
}

/** The results of a policy's cases (src/check/cases.ts) as problems at their paths in the file. */
function policyCaseProblems(ctx: Ctx, policy: unknown, report: CasesReport, cases: readonly PolicyTestCase[], paths: readonly string[]): void {
  for (const [i, c] of cases.entries()) {
    const r = report.results[i]!;
    ctx.summary.total++;
    if (r.pass) ctx.summary.passed++;
    else {
      ctx.summary.failed++;
      ctx.problems.push(
        problemAt(ctx, paths[i]!, `policy case ${JSON.stringify(c.name)} failed: ${r.failures.join('; ')}`, {
          kind: kindOf(policy),
          name: nameOf(policy),
          rule: c.name,
        }),
      );
    }
  }
}

async function runWorkspace(
  ctx: Ctx,
  ws: WorkspaceFile,
  checked: readonly unknown[],
  cel: CelRunner,
  kubernetesVersion?: KubernetesVersion,
  options: CasesFileOptions = {},
): Promise<void> {
  const staticChecked = options.static === true;
  // One release for every case: the one asked for, else the workspace's own.
  const release = kubernetesVersion ?? ws.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const wsObjects = ws.documents.map((d) => parseDocuments(d.text).documents[0]?.object);
  // The checked files win over the workspace's own copies (CI tests the files as they are now).
  const key = (o: unknown) => `${kindOf(o)}/${str(obj(obj(o).metadata).namespace)}/${nameOf(o)}`;
  const seen = new Set(checked.map(key));
  const own = wsObjects.flatMap((o, i) =>
    o !== undefined && !seen.has(key(o)) ? [{ o, static: ws.staticManifests === true || ws.documents[i]!.static === true }] : [],
  );
  const objects = [...checked, ...own.map((x) => x.o)];
  // static manifests (check --static, or the workspace file's marks) run before API objects in scenarios
  const statics = [...(staticChecked ? checked.map((_, i) => i) : []), ...own.flatMap((x, i) => (x.static ? [checked.length + i] : []))];
  for (const [g, group] of (ws.policyCases ?? []).entries()) {
    const name = group.policy ?? nameOf(wsObjects[group.document ?? -1]);
    const policy = findPolicy(objects, name);
    const path = `policyCases[${g}]`;
    if (!policy) {
      ctx.problems.push(
        problemAt(ctx, path, `policy ${JSON.stringify(name)} not found in the checked files or the workspace: its ${group.cases.length} case(s) were not run`),
      );
      ctx.summary.total += group.cases.length;
      ctx.summary.failed += group.cases.length;
      continue;
    }
    const report = await runPolicyCases(policy, objects, group.cases, cel, release, { trace: !!ctx.coverage });
    addCases(ctx, policy, report, group.cases);
    policyCaseProblems(
      ctx,
      policy,
      report,
      group.cases,
      group.cases.map((_, i) => `${path}.cases[${i}]`),
    );
  }
  for (const [g, group] of (ws.celCases ?? []).entries()) {
    const source = wsObjects[group.document];
    const current = checked.find((o) => key(o) === key(source)) ?? source;
    const traced: CelCaseRun[] | undefined = ctx.coverage ? [] : undefined;
    const failures = await runCelCases(current, group.path, group.cases, celAtRelease(cel, release), traced, release);
    if (traced)
      addCelRuns(
        ctx,
        current,
        group.path,
        group.cases.map((c) => c.name),
        traced,
      );
    group.cases.forEach((c, i) => {
      ctx.summary.total++;
      const failure = failures[i];
      if (failure === undefined) ctx.summary.passed++;
      else {
        ctx.summary.failed++;
        ctx.problems.push(
          problemAt(ctx, `celCases[${g}].cases[${i}]`, `CEL case ${JSON.stringify(c.name)} of ${group.path} failed: ${failure}`, {
            kind: kindOf(current),
            name: nameOf(current),
            rule: c.name,
          }),
        );
      }
    });
  }
  // the chain settings: the command line's, else the workspace file's
  const staticOrder = options.staticOrder ?? ws.staticOrder;
  const featureGates = options.featureGates ?? ws.featureGates;
  await runScenarios(ctx, ws, objects, release, statics, { ...(staticOrder ? { staticOrder } : {}), ...(featureGates?.length ? { featureGates } : {}) });
}

async function runScenarios(
  ctx: Ctx,
  ws: WorkspaceFile,
  objects: readonly unknown[],
  release: KubernetesVersion,
  statics: readonly number[],
  // where static mutating webhooks run, the gates turned on
  settings: { staticOrder?: StaticOrder; featureGates?: readonly WorkspaceGate[] },
): Promise<void> {
  for (const [i, s] of (ws.scenarios ?? []).entries()) {
    const { failures, breaks, steps } = await scenarioProblems(objects, s, {
      kubernetesVersion: release,
      staticDocuments: statics,
      ...settings,
      trace: !!ctx.coverage,
    });
    if (steps) for (const [policy, run] of scenarioCoverageRuns(s.name, objects, steps)) coverageOf(ctx, policy)?.extra.push(run);
    ctx.summary.total++;
    if (!failures.length) ctx.summary.passed++;
    else {
      ctx.summary.failed++;
      ctx.problems.push({
        ...problemAt(ctx, `scenarios[${i}]`, `scenario ${JSON.stringify(s.name)} failed: ${failures.join('; ')}`, { rule: s.name }),
        type: 'Scenario',
      });
    }
    for (const b of breaks) {
      const where = b.validator.path ? ` (${b.validator.path})` : '';
      ctx.problems.push({
        ...problemAt(ctx, `scenarios[${i}]`, `scenario ${JSON.stringify(s.name)}: ${b.message}${where}`, {
          rule: 'M06',
          severity: 'finding',
          level: 'warning',
        }),
        type: 'Lint',
      });
    }
  }
}

/** Runs the cases of a `--cases` file against the checked objects. */
export async function runCasesFile(
  path: string,
  checked: readonly unknown[],
  fs: FileSystem,
  cel: CelRunner,
  kubernetesVersion?: KubernetesVersion,
  options: CasesFileOptions = {},
): Promise<CasesRun> {
  const summary: CasesSummary = { total: 0, passed: 0, failed: 0 };
  const fail = (message: string, unreadable: boolean, line = 1, column = 1): CasesRun => ({
    problems: [
      {
        file: path,
        line,
        column,
        document: 0,
        kind: '',
        name: '',
        field: '',
        type: unreadable ? 'File' : 'Case',
        severity: 'error',
        message: `--cases: ${message}`,
      },
    ],
    summary,
    unreadable,
  });
  if (path.toLowerCase().endsWith('.zip')) return runKaptestArchive(path, checked, fs, cel, kubernetesVersion, options, fail);
  const read = await readInputs([path], fs);
  const file: InputFile | undefined = read.files[0];
  if (!file) return fail(read.problems[0]?.message ?? 'cannot read', true);
  const parsed = parseDocuments(file.text);
  const doc = parsed.documents[0];
  const e = parsed.errors[0];
  if (e) return fail(e.message, false, e.line, e.column);
  if (!doc) return fail('the file is empty', false);
  const ctx: Ctx = { file: path, doc, problems: [], summary, ...(options.coverage ? { coverage: new Map() } : {}) };
  const value = doc.object;
  if (isKaptestManifest(value)) {
    const refused = kaptestManifestRefusal(obj(value), path);
    if (refused) return { problems: [problemAt(ctx, refused.path, `--cases: ${refused.message}`)], summary, unreadable: false };
    const m = readKaptestManifest(value, []);
    const dir = fs.dirname(path);
    const referenced = await readInputs(
      [...m.policyFiles, ...m.resourceFiles].map((f) => fs.join(dir, f)),
      fs,
    );
    for (const p of referenced.problems) ctx.problems.push({ ...problemAt(ctx, '', `--cases: ${p.file}: ${p.message}`), type: 'File' });
    const objects = referenced.files.flatMap((f) => parseDocuments(f.text).documents.map((d) => d.object));
    const withResources = readKaptestManifest(value, objects);
    for (const p of withResources.problems) ctx.problems.push(problemAt(ctx, p.path, p.message));
    for (const [s, suite] of withResources.suites.entries()) {
      const policy = findPolicy([...objects, ...checked], suite.policy);
      if (!policy) {
        ctx.problems.push(
          problemAt(
            ctx,
            `${suite.mutating ? 'mapTestSuites' : 'vapTestSuites'}[${s}]`,
            `policy ${JSON.stringify(suite.policy)} not found in the manifest's policies`,
          ),
        );
        continue;
      }
      // kaptest's own binding, not the workspace's
      const target: CaseTarget = { policy, bindings: [suite.binding], paramDocuments: [] };
      const report = await runCases(target, suite.cases, cel, { trace: !!ctx.coverage, kubernetesVersion });
      addCases(ctx, policy, report, suite.cases);
      policyCaseProblems(ctx, policy, report, suite.cases, suite.paths);
    }
    return { problems: ctx.problems, summary, unreadable: referenced.problems.length > 0, coverage: coverageResults(ctx) };
  }
  const r = readWorkspaceFile(value);
  if (!r.ok) return fail(`neither a kaptest manifest nor a workspace file: ${r.error}`, false);
  for (const w of r.warnings) ctx.problems.push({ ...problemAt(ctx, '', `--cases: ${w}`), severity: 'warning' });
  await runWorkspace(ctx, r.workspace, checked, cel, kubernetesVersion, options);
  return { problems: ctx.problems, summary, unreadable: false, coverage: coverageResults(ctx) };
}

/** The files of an archive, seen as files under the archive's path (`a.zip/kaptest.yaml`); the rest from `fs`. */
function archiveFileSystem(fs: FileSystem, archive: string, files: Readonly<Record<string, string>>): FileSystem {
  const enc = new TextEncoder();
  const entry = (p: string): string | undefined => {
    const prefix = fs.join(archive, 'x').slice(0, -1);
    return p.startsWith(prefix) ? files[p.slice(prefix.length)] : undefined;
  };
  return {
    ...fs,
    stat: (p) => {
      const text = entry(p);
      return text === undefined ? fs.stat(p) : { isDirectory: () => false, isFile: () => true, size: enc.encode(text).length };
    },
    readFile: (p) => {
      const text = entry(p);
      return text === undefined ? fs.readFile(p) : enc.encode(text);
    },
  };
}

/** `--cases kaptest-….zip`: the archive the policy test panel exports, read without unpacking it. */
async function runKaptestArchive(
  path: string,
  checked: readonly unknown[],
  fs: FileSystem,
  cel: CelRunner,
  kubernetesVersion: KubernetesVersion | undefined,
  options: CasesFileOptions,
  fail: (message: string, unreadable: boolean) => CasesRun,
): Promise<CasesRun> {
  let bytes: Uint8Array;
  try {
    bytes = fs.readFile(path);
  } catch (e) {
    return fail(`cannot read: ${e instanceof Error ? e.message : String(e)}`, true);
  }
  const files = unzipFiles(bytes);
  if ('error' in files) return fail(files.error, true);
  const manifest = Object.keys(files).find((name) => isKaptestManifest(parseDocuments(files[name]!).documents[0]?.object));
  if (!manifest) return fail('the archive holds no kaptest manifest', false);
  return runCasesFile(fs.join(path, manifest), checked, archiveFileSystem(fs, path, files), cel, kubernetesVersion, options);
}

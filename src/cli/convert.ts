/**
 * `admission-workbench convert`: Gatekeeper templates and constraints and Kyverno policies
 * converted into native admission (src/migrate), rule by rule: the status of every rule (exact,
 * different: why, not convertible: why), the objects produced, written as files for a GitOps
 * repository (--out, one file per object) and a markdown summary for a pull request (--summary).
 * The source project's own tests among the inputs run on the converted policies (convert-tests.ts).
 * Exit 0 every rule converted (a stated difference included, unless --fail-on different), 1 some
 * rule is not convertible, an imported test fails or some source document is read by no converter,
 * 2 usage error or bad input (unreadable file, broken YAML, a source document its own project would
 * refuse, no source document at all: every rule is still reported, nothing is written). Never throws.
 */
import { isKubernetesVersion, KUBERNETES_VERSIONS, DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import { kindOf, nameOf, namespaceOf, type Obj } from '../base/json';
import { convertPolicies, isSourcePolicy, type Conversion, type ConvertOptions } from '../migrate';
import { isSourceDocument } from '../migrate/documents';
import { sourceProblems } from '../migrate/source-problems';
import { conversionFiles, conversionMarkdown, conversionText, type RuleTests, type Unread } from '../migrate/report';
import { parseDocuments } from '../yaml';
import { evaluate, loadCelFor } from '../cel';
import { findSourceTests, runSourceTests } from './convert-tests';
import { exactRuleDiffers, replayConverted, trafficText } from './convert-replay';
import { readInputs, writeFiles, type FileSystem, type InputFile } from './inputs';

interface ConvertIO {
  fs: FileSystem;
  stdout(text: string): void;
  stderr(text: string): void;
}

export const CONVERT_USAGE = `Usage: admission-workbench convert [options] <path|->...

Converts Gatekeeper ConstraintTemplates with their constraints and Kyverno policies
(ValidatingPolicy, MutatingPolicy and their namespaced forms, ClusterPolicy/Policy) into
ValidatingAdmissionPolicy / MutatingAdmissionPolicy and their bindings. Prints every source
rule's status: exact (only where a differential test against the project's own engine agrees),
different (converted, the difference stated) or not convertible (why), and the objects
produced. Other kinds in the input are read (a constraint needs its template) and not converted.

Options:
  --out DIR                    write the produced objects into DIR, one file per object
                               (<kind>-<name>.yaml), and MIGRATION.md (the summary)
  --keep-source                with --out: the source documents too, under DIR/source/
                               (otherwise the repository drops them: the objects are under DIR/native/)
  --summary FILE               write the markdown summary (for a pull request) to FILE
  --gatekeeper as-gatekeeper|standalone   as Gatekeeper's own VAP generation does it (default:
                               paramKind is the constraint), or needing no Gatekeeper in the cluster
  --kubernetes-version 1.3x    target release (${KUBERNETES_VERSIONS[0]}–${KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]}; default ${DEFAULT_KUBERNETES_VERSION})
  --fail-on unsupported|different   exit 1 when a rule is not convertible (default), or also when one is
                               converted with a difference
  --replay AUDIT_LOG           the cluster's real traffic: the produced objects in place of the
                               cluster's chain (the source's webhooks gone), every event where they
                               decide otherwise than the cluster answered (Kyverno's, Gatekeeper's
                               denials in the log) listed, and each rule's agreeing and differing events
  --snapshot FILE              with --replay: the cluster's objects (kubectl get -o json|yaml), for
                               the Namespaces and the old objects the log does not hold (repeatable)
  --format text|json           the report (default text)
  -h, --help                   this help

Tests: a Kyverno kyverno-test.yaml among the inputs (or in .kyverno-test/ beside a policy file)
and a gator suite.yaml run on the converted policies, their files read relative to them (a
kyverno-test's results on the policies of the files its policies: names); each rule reports its
cases passed and failed, every failing case named with why. Two source documents of one kind and
name (two folders) are converted apart: the later one's objects are named with -2, said on stderr.

Exit status: 0 every rule converted, 1 a rule is not convertible (or different, with --fail-on
different), an imported test fails, a rule called exact decides some replayed event otherwise
than the source did, or a source document is read by no converter, 2 usage error or bad input (unreadable,
broken YAML, a source document its own project would refuse, or no Gatekeeper or Kyverno document):
the rules that could be read are still reported, and nothing is written.
`;

export interface ConvertArgs {
  paths: string[];
  out?: string;
  keepSource: boolean;
  summary?: string;
  gatekeeper: ConvertOptions['gatekeeper'];
  kubernetesVersion: KubernetesVersion;
  failOn: 'unsupported' | 'different';
  format: 'text' | 'json';
  replay?: string;
  snapshots: string[];
}

export function parseConvertArgs(argv: readonly string[]): ConvertArgs | { help: true } | { error: string } {
  const args: ConvertArgs = {
    paths: [],
    keepSource: false,
    gatekeeper: 'as-gatekeeper',
    kubernetesVersion: DEFAULT_KUBERNETES_VERSION,
    failOn: 'unsupported',
    format: 'text',
    snapshots: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [name, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    const need = (v: string | undefined): v is string => v !== undefined && v !== '';
    switch (name) {
      case '-h':
      case '--help':
        return { help: true };
      case '--keep-source':
        args.keepSource = true;
        break;
      case '--out':
      case '--summary':
      case '--replay':
      case '--snapshot': {
        const v = value();
        if (!need(v)) return { error: `${name} needs a value` };
        if (name === '--out') args.out = v;
        else if (name === '--summary') args.summary = v;
        else if (name === '--replay') args.replay = v;
        else args.snapshots.push(v);
        break;
      }
      case '--gatekeeper': {
        const v = value();
        if (v !== 'as-gatekeeper' && v !== 'standalone') return { error: '--gatekeeper must be as-gatekeeper or standalone' };
        args.gatekeeper = v;
        break;
      }
      case '--kubernetes-version': {
        const v = value();
        if (!v || !isKubernetesVersion(v)) return { error: `--kubernetes-version must be one of ${KUBERNETES_VERSIONS.join(', ')}` };
        args.kubernetesVersion = v;
        break;
      }
      case '--fail-on': {
        const v = value();
        if (v !== 'unsupported' && v !== 'different') return { error: '--fail-on must be unsupported or different' };
        args.failOn = v;
        break;
      }
      case '--format': {
        const v = value();
        if (v !== 'text' && v !== 'json') return { error: '--format must be text or json' };
        args.format = v;
        break;
      }
      default:
        if (a.startsWith('-') && a !== '-') return { error: `unknown option ${a}` };
        args.paths.push(a);
    }
  }
  if (!args.paths.length) return { error: 'no input: name the files or directories to convert (- reads standard input)' };
  if (args.keepSource && !args.out) return { error: '--keep-source needs --out' };
  if (args.snapshots.length && !args.replay) return { error: '--snapshot needs --replay' };
  return args;
}

interface Source {
  object: Obj;
  file: string;
}

/** The bad-input lines: what cannot be read, YAML that does not parse, source documents with structural errors. */
async function readSources(
  paths: readonly string[],
  io: ConvertIO,
): Promise<{ files: InputFile[]; objects: Source[]; problems: string[]; warnings: string[] }> {
  const read = await readInputs(paths, io.fs);
  const problems = read.problems.map((p) => `${p.file}: ${p.message}`);
  const warnings: string[] = [];
  const objects: Source[] = [];
  for (const f of read.files) {
    const parsed = parseDocuments(f.text);
    for (const e of parsed.errors) problems.push(`${f.name}:${e.line}:${e.column}: ${e.message}`);
    for (const d of parsed.documents) if (d.object && typeof d.object === 'object') objects.push({ object: d.object as Obj, file: f.name });
  }
  const all = objects.map((o) => o.object);
  for (const { object, file } of objects) {
    for (const e of sourceProblems(object, all)) {
      const line = `${file}: ${kindOf(object)}/${nameOf(object) || '(no name)'}: ${e.field ? `${e.field}: ` : ''}${e.message}`;
      (e.severity === 'warning' ? warnings : problems).push(line);
    }
  }
  return { files: read.files, objects, problems, warnings };
}

export async function runConvert(argv: readonly string[], io: ConvertIO): Promise<number> {
  const args = parseConvertArgs(argv);
  if ('help' in args) {
    io.stdout(CONVERT_USAGE);
    return 0;
  }
  if ('error' in args) {
    io.stderr(`admission-workbench convert: ${args.error}\n\n${CONVERT_USAGE}`);
    return 2;
  }
  const { files, objects, problems, warnings } = await readSources(args.paths, io);
  for (const w of warnings) io.stderr(`admission-workbench convert: warning: ${w}\n`);
  for (const p of problems) io.stderr(`admission-workbench convert: ${p}\n`);
  const sources = objects.filter((o) => isSourceDocument(o.object));
  if (!sources.length) {
    io.stderr('admission-workbench convert: no Gatekeeper or Kyverno document in the input: nothing to convert\n');
    return 2;
  }
  const conversion: Conversion = convertPolicies(
    objects.map((o) => o.object),
    { kubernetesVersion: args.kubernetesVersion, gatekeeper: args.gatekeeper },
  );
  // two source documents of one kind and name (two folders of a library): converted apart, said on every run
  for (const r of conversion.rules)
    if (r.duplicate && r.source.occurrence !== 1)
      io.stderr(`admission-workbench convert: warning: ${r.source.kind}/${r.source.name} rule ${r.source.rule}: ${r.duplicate}\n`);
  const unread: Unread[] = sources
    .filter((s) => !isSourcePolicy(s.object))
    .map((s) => ({ kind: kindOf(s.object), name: nameOf(s.object), ...(namespaceOf(s.object) ? { namespace: namespaceOf(s.object) } : {}), origin: s.file }));
  const run = await sourceTests(
    files,
    objects.map((o) => o.object),
    conversion,
    args,
    io,
  );
  if (!run) return 2;
  for (const p of run.problems) io.stderr(`admission-workbench convert: test not run: ${p}\n`);
  const rules = conversion.rules.map((r, i) => (run.tests[i] ? { ...r, tests: run.tests[i] } : r));
  const traffic = args.replay
    ? await replayConverted(
        conversion,
        args.replay,
        args.snapshots,
        args.kubernetesVersion,
        io,
        sources.map((o) => o.object),
      )
    : undefined;
  if (args.replay && !traffic) return 2;
  if (args.format === 'json') io.stdout(`${JSON.stringify({ rules, unread, objects: conversion.objects, ...(traffic ? { traffic } : {}) }, null, 2)}\n`);
  else io.stdout(conversionText(conversion, unread, run.tests) + (traffic ? trafficText(traffic, args.replay!) : ''));
  // With bad input every rule is still reported, but nothing is written: a set converted without
  // the documents that did not read (a template that did not parse) is not one to commit.
  if (problems.length) {
    io.stderr(`admission-workbench convert: ${problems.length} input problem(s): nothing written.\n`);
    return 2;
  }
  const written = write(args, conversion, unread, sources, io, run.tests);
  if (!written) return 2;
  const fails =
    unread.length > 0 ||
    // a case the source tool decides otherwise is a difference the user must see: it fails the run too
    run.tests.some((t) => t && (t.failed.length > 0 || (t.differs?.length ?? 0) > 0)) ||
    (traffic !== undefined && exactRuleDiffers(traffic)) ||
    conversion.rules.some((r) => r.status === 'unsupported' || (args.failOn === 'different' && r.status === 'different'));
  return fails ? 1 : 0;
}

/** The imported tests, run when there are any (the CEL engine is started only then); undefined (after saying why) when it does not start. */
async function sourceTests(files: readonly InputFile[], objects: readonly Obj[], conversion: Conversion, args: ConvertArgs, io: ConvertIO) {
  const none = { tests: [], problems: [] };
  const found = findSourceTests(files, io.fs);
  if (!found.kyverno.length && !found.gator.length) return none;
  const failure = await loadCelFor(args.kubernetesVersion);
  if (failure) {
    io.stderr(`admission-workbench convert: cannot run the imported tests: ${failure}\n`);
    return undefined;
  }
  return runSourceTests(found, files, objects, conversion, io.fs, { evaluate }, args.kubernetesVersion);
}

/** --out and --summary; false (after saying why) when a file cannot be written. */
function write(
  args: ConvertArgs,
  conversion: Conversion,
  unread: readonly Unread[],
  sources: readonly Source[],
  io: ConvertIO,
  tests: readonly (RuleTests | undefined)[],
): boolean {
  const files: [string, string][] = [];
  if (args.out) {
    const out = conversionFiles(conversion, { unread, ...(args.keepSource ? { sources: sources.map((s) => ({ object: s.object })) } : {}) });
    for (const [name, text] of Object.entries(out)) files.push([io.fs.join(args.out, name), text]);
  }
  if (args.summary) files.push([args.summary, conversionMarkdown(conversion, unread, tests)]);
  if (!writeFiles(io.fs, files, io.stderr, 'admission-workbench convert')) return false;
  if (args.out) io.stderr(`admission-workbench convert: wrote ${files.length - (args.summary ? 1 : 0)} file(s) to ${args.out}\n`);
  return true;
}

/**
 * `admission-workbench export --to pkl|rust|jsonnet`: the objects of YAML/JSON files written
 * as code for the repository that keeps them (src/share/code), each evaluating back to exactly
 * that object. Exit 0 written, 2 usage error, unreadable input, or a field the language cannot
 * express as written (listed with its path; nothing is written then). Never throws.
 */
import { DEFAULT_KUBERNETES_VERSION, isKubernetesVersion, KUBERNETES_VERSIONS, type KubernetesVersion } from '../base/releases';
import { schemaAsset } from '../cel';
import { CODE_LANGUAGES, type CodeDoc, type CodeLanguage, codeDocsOf, exportAsCode } from '../share/code';
import { type FileSystem, readInputs, writeFiles } from './inputs';

interface ExportIO {
  fs: FileSystem;
  stdout(text: string): void;
  stderr(text: string): void;
}

export const EXPORT_USAGE = `Usage: admission-workbench export --to pkl|rust|jsonnet [options] <path|->...

Writes the objects of the files as code that evaluates back to exactly them:
  pkl      one module per object amending pkl-k8s's template of its kind, and manifests.pkl
           (pkl eval -f yaml manifests.pkl renders them all as a List)
  rust     manifests.rs: a function per object returning its k8s-openapi value, and
           manifests_json() (k8s-openapi 0.29 with the target release's feature)
  jsonnet  manifests.jsonnet: a local per object, evaluating to the list of them
Comments on fields are carried over. A field the language cannot express as written is listed
with its path and nothing is written.

Options:
  --to pkl|rust|jsonnet        the language (required)
  --out DIR                    write the files into DIR (default: print them to standard output)
  --self-contained             pkl: plain Pkl objects, no pkl-k8s package
  --kubernetes-version 1.3x    the release whose types the code follows (${KUBERNETES_VERSIONS[0]}–${KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]}; default ${DEFAULT_KUBERNETES_VERSION})
  -h, --help                   this help

Exit status: 0 written, 2 usage error, unreadable input, or a field that cannot be expressed.
`;

interface ExportArgs {
  to: CodeLanguage;
  paths: string[];
  out?: string;
  selfContained: boolean;
  kubernetesVersion: KubernetesVersion;
}

export function parseExportArgs(argv: readonly string[]): ExportArgs | { help: true } | { error: string } {
  const args: Partial<ExportArgs> & { paths: string[] } = { paths: [], selfContained: false, kubernetesVersion: DEFAULT_KUBERNETES_VERSION };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [name, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string => inline ?? argv[++i] ?? '';
    if (name === '-h' || name === '--help') return { help: true };
    else if (name === '--self-contained') args.selfContained = true;
    else if (name === '--to') {
      const v = value();
      if (!(CODE_LANGUAGES as readonly string[]).includes(v)) return { error: `--to must be one of ${CODE_LANGUAGES.join(', ')}` };
      args.to = v as CodeLanguage;
    } else if (name === '--out') {
      args.out = value();
      if (!args.out) return { error: '--out needs a directory' };
    } else if (name === '--kubernetes-version') {
      const v = value();
      if (!isKubernetesVersion(v)) return { error: `--kubernetes-version must be one of ${KUBERNETES_VERSIONS.join(', ')}` };
      args.kubernetesVersion = v;
    } else if (a.startsWith('-') && a !== '-') return { error: `unknown option ${a}` };
    else args.paths.push(a);
  }
  if (!args.to) return { error: `--to is required (${CODE_LANGUAGES.join(', ')})` };
  if (!args.paths.length) return { error: 'no input: name the files or directories to export (- reads standard input)' };
  if (args.selfContained && args.to !== 'pkl') return { error: '--self-contained is for --to pkl' };
  return args as ExportArgs;
}

export async function runExport(argv: readonly string[], io: ExportIO): Promise<number> {
  const args = parseExportArgs(argv);
  if ('help' in args) {
    io.stdout(EXPORT_USAGE);
    return 0;
  }
  if ('error' in args) {
    io.stderr(`admission-workbench export: ${args.error}\n\n${EXPORT_USAGE}`);
    return 2;
  }
  const read = await readInputs(args.paths, io.fs);
  const problems = read.problems.map((p) => `${p.file}: ${p.message}`);
  const docs: CodeDoc[] = [];
  for (const f of read.files) {
    const { docs: fileDocs, errors } = codeDocsOf(f.text);
    problems.push(...errors.map((e) => `${f.name}: ${e}`));
    docs.push(...fileDocs);
  }
  if (!problems.length && !docs.length) problems.push('no object in the input: nothing to export');
  const result = problems.length
    ? undefined
    : exportAsCode(docs, args.to, {
        kubernetesVersion: args.kubernetesVersion,
        schemas: await schemaAsset(args.kubernetesVersion),
        selfContained: args.selfContained,
      });
  for (const p of result?.problems ?? []) problems.push(`${p.object}: ${p.path}: ${p.message}`);
  if (problems.length || !result) {
    for (const p of problems) io.stderr(`admission-workbench export: ${p}\n`);
    io.stderr(`admission-workbench export: ${problems.length} problem(s): nothing written.\n`);
    return 2;
  }
  if (!args.out) {
    for (const f of result.files) io.stdout(result.files.length > 1 ? `// ---- ${f.name}\n${f.text}\n` : f.text);
    return 0;
  }
  const out = args.out;
  if (
    !writeFiles(
      io.fs,
      result.files.map((f) => [io.fs.join(out, f.name), f.text] as const),
      io.stderr,
      'admission-workbench export',
    )
  )
    return 2;
  io.stderr(`admission-workbench export: wrote ${result.files.map((f) => f.name).join(', ')} to ${args.out}.\n`);
  return 0;
}

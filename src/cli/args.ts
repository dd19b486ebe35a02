/** Command-line arguments of `admission-workbench`: parsed into options or a usage error. */
import {
  DEFAULT_KUBERNETES_VERSION,
  isKubernetesVersion,
  isWorkspaceGate,
  KUBERNETES_VERSIONS,
  WORKSPACE_GATES,
  type KubernetesVersion,
  type WorkspaceGate,
} from '../base/releases';
import { isPlatformId, PLATFORM_IDS, platformOf, type PlatformId } from '../base/platforms';
import { WORKBENCH_VERSION } from '../base/version';
import { FORMATS, type Format } from './format';
import type { FailOn } from './problem';
import { DEFAULT_MANIFEST_BASE, isStaticOrder, STATIC_ORDERS, type StaticOrder } from '../k8s/static-manifests';
import { FIELD_VALIDATIONS, isFieldValidation, type FieldValidation } from '../k8s/field-validation';
import type { ManifestDirLayout } from '../share/manifest-dir';
import { upgradeUsageError } from '../check/upgrade';

/** The commands, for the top-level help and the errors that name them. */
export const COMMANDS = `Usage: admission-workbench <command> [options]

Commands:
  check     check admission configuration as the kube-apiserver would (below)
  impact    replay a cluster's audit log and existing objects through its admission chain
            and through the chain with the workspace's objects: what would change
            (admission-workbench impact --help)
  convert   convert Gatekeeper and Kyverno policies into native admission, rule by rule
            (admission-workbench convert --help)
  export    write the objects as Pkl, Rust (k8s-openapi) or Jsonnet that evaluates back to them
            (admission-workbench export --help)
`;

/** `check`'s own help (`check --help`, and after a usage error of `check`). */
export const CHECK_USAGE = `Usage: admission-workbench check [options] <path|->...

Checks Kubernetes admission configuration (Validating/MutatingWebhookConfiguration,
Validating/MutatingAdmissionPolicy and their bindings) as the kube-apiserver would:
errors and warnings as the apiserver would answer (validation, CEL compile errors from
the real cel-go engine, request size), our findings (best practices, caBundles), and
saved policy/CEL cases and scenarios. Paths are files or directories (searched recursively for
.yaml, .yml and .json; a directory without any is unreadable input); - reads standard input.
Other kinds are skipped.

Options:
  --cases FILE                 run saved cases: a workspace file (exported by the app)
                               or a kaptest test manifest
  --coverage                   with --cases: coverage of the cases per policy (validations
                               true/false, nodes, branches; findings) in the report
  --coverage-out FILE.json     write the coverage as JSON (implies --coverage)
  --lcov FILE                  write the coverage as LCOV, at the policy files' lines
  --min-coverage N             exit 1 below N % branch coverage over all policies
  --kubernetes-version 1.3x    target release (${KUBERNETES_VERSIONS[0]}–${KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]}; default ${DEFAULT_KUBERNETES_VERSION})
  --upgrade-from 1.3x          what changes from this release to the target release
                               (--kubernetes-version or --platform): validation, CEL compile
                               errors, findings and every --cases case and scenario run at
                               both; each difference listed as appearing, gone or changed at
                               the target; exit 1 when something gets worse (a new error, or a
                               case's verdict changes); every --format (github: what
                               got worse an error annotation, the rest a notice)
  --platform ID                target platform instead: its Kubernetes release
                               (${PLATFORM_IDS[0]}–${PLATFORM_IDS[PLATFORM_IDS.length - 1]}; docs/versions.md)
  --field-validation Strict|Warn|Ignore   the writes' field validation directive (default
                               Strict, as kubectl sends): an unknown field is an error
                               ("strict decoding error"), a warning, or nothing
  --format text|json|github|junit   report format (default text)
  --fail-on error|warning|finding   exit 1 at or above this (default error): error and
                               warning are the apiserver's, finding (ours) includes all
  --static-order StaticFirst|StaticLast|ByName   with --cases: where static mutating webhooks
                               run among the API ones in scenarios (1.38+; default the
                               workspace file's, else StaticFirst)
  --feature-gates NAME=true,…  with --cases: gates turned on in scenarios (${WORKSPACE_GATES.join(', ')};
                               default the workspace file's)
  --static                     the admission objects are a static manifest set (Kubernetes
                               1.37+ staticManifestsDir): checked as the apiserver's manifest
                               loaders check them, every problem at once
  --export-manifests DIR       with --static: write the set as a manifest directory (one
                               directory per admission plugin) and admission-configuration.yaml
                               into DIR, when it would load
  --layout per-object|per-directory   files of --export-manifests (default per-object)
  --manifest-base PATH         the absolute directory the AdmissionConfiguration names
                               (default ${DEFAULT_MANIFEST_BASE})
  --quiet                      print only what fails, no summary
  -h, --help                   this help
  --version                    the version and the Kubernetes releases it targets

Exit status: 0 nothing at or above --fail-on, 1 something is, 2 usage error or unreadable input.
`;

/** The top-level help (`--help`, and after no or an unknown command): the commands, then `check`'s options. */
export const USAGE = `${COMMANDS}\n${CHECK_USAGE}`;

export interface CheckArgs {
  command: 'check';
  paths: string[];
  cases?: string;
  /** Coverage of the cases (--coverage, or implied by the three below). */
  coverage: boolean;
  coverageOut?: string;
  lcov?: string;
  minCoverage?: number;
  kubernetesVersion?: KubernetesVersion;
  /** --platform: kubernetesVersion is then its release. */
  platform?: PlatformId;
  /** The writes' field validation directive (default Strict, as kubectl). */
  fieldValidation?: FieldValidation;
  format: Format;
  failOn: FailOn;
  quiet: boolean;
  /** The admission objects are a static manifest set. */
  static?: boolean;
  exportManifests?: string;
  layout?: ManifestDirLayout;
  manifestBase?: string;
  /** --upgrade-from: compare this release with the target (src/check/upgrade.ts). */
  upgradeFrom?: KubernetesVersion;
  /** --static-order: the chain's order of static mutating webhooks for the cases (over the workspace file's). */
  staticOrder?: StaticOrder;
  /** --feature-gates: the gates turned on for the cases (over the workspace file's). */
  featureGates?: WorkspaceGate[];
}

/** `--static-order`'s value, or why it is refused (check and impact). */
export const parseStaticOrder = (v: string | undefined): StaticOrder | { error: string } =>
  isStaticOrder(v) ? v : { error: `--static-order must be one of ${STATIC_ORDERS.join(', ')}` };

/**
 * `--feature-gates Name=true,Other=false` (kube-apiserver's syntax), or why it is refused: the
 * gates a workspace can turn on (WORKSPACE_GATES), each true or false; the ones turned on.
 */
export function parseFeatureGates(v: string | undefined): WorkspaceGate[] | { error: string } {
  const on: WorkspaceGate[] = [];
  for (const item of (v ?? '').split(',')) {
    const [name, value, ...rest] = item.trim().split('=');
    if (!isWorkspaceGate(name))
      return { error: `--feature-gates: ${JSON.stringify(name ?? '')} is not a gate the Workbench models (${WORKSPACE_GATES.join(', ')})` };
    if ((value !== 'true' && value !== 'false') || rest.length) return { error: `--feature-gates: ${name} takes =true or =false, as in ${name}=true` };
    if (value === 'true' && !on.includes(name)) on.push(name);
  }
  return on;
}

export type ParsedArgs = CheckArgs | { command: 'help' } | { command: 'version' } | { command: 'error'; message: string };

export const versionText = (): string =>
  `admission-workbench ${WORKBENCH_VERSION} (Kubernetes ${KUBERNETES_VERSIONS[0]}–${KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]}, default ${DEFAULT_KUBERNETES_VERSION})\n`;

const FAIL_ON: readonly FailOn[] = ['error', 'warning', 'finding'];

export function parseArgs(argv: readonly string[]): ParsedArgs {
  // No arguments is a usage error (exit 2), not a request for help.
  if (argv.length === 0) return { command: 'error', message: 'no command given (the commands are check, impact, convert and export)' };
  if (argv[0] === '-h' || argv[0] === '--help' || argv[0] === 'help') return { command: 'help' };
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version') return { command: 'version' };
  if (argv[0] !== 'check')
    return { command: 'error', message: `unknown command ${JSON.stringify(argv[0])} (the commands are check, impact, convert and export)` };
  const out: CheckArgs = { command: 'check', paths: [], format: 'text', failOn: 'error', quiet: false, coverage: false };
  let onlyPaths = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (onlyPaths || arg === '-' || !arg.startsWith('-')) {
      out.paths.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyPaths = true;
      continue;
    }
    if (arg === '-h' || arg === '--help') return { command: 'help' };
    if (arg === '--version' || arg === '-V') return { command: 'version' };
    if (arg === '--static') {
      out.static = true;
      continue;
    }
    if (arg === '--quiet' || arg === '-q') {
      out.quiet = true;
      continue;
    }
    if (arg === '--coverage') {
      out.coverage = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const takeValue = (): string | undefined => (eq > 0 ? arg.slice(eq + 1) : argv[++i]);
    switch (name) {
      case '--cases': {
        const v = takeValue();
        if (!v) return { command: 'error', message: '--cases needs a file' };
        out.cases = v;
        break;
      }
      case '--coverage-out':
      case '--lcov': {
        const v = takeValue();
        if (!v) return { command: 'error', message: `${name} needs a file` };
        if (name === '--lcov') out.lcov = v;
        else out.coverageOut = v;
        out.coverage = true;
        break;
      }
      case '--min-coverage': {
        const v = takeValue() ?? '';
        const n = Number(v.replace(/%$/, ''));
        if (!/^\d+(\.\d+)?%?$/.test(v) || n > 100) return { command: 'error', message: '--min-coverage must be a percentage from 0 to 100' };
        out.minCoverage = n;
        out.coverage = true;
        break;
      }
      case '--kubernetes-version': {
        const v = takeValue()?.replace(/^v/, '');
        if (!isKubernetesVersion(v)) return { command: 'error', message: `--kubernetes-version must be one of ${KUBERNETES_VERSIONS.join(', ')}` };
        if (out.platform && platformOf(out.platform)?.kubernetesVersion !== v)
          return {
            command: 'error',
            message: `--kubernetes-version ${v} contradicts --platform ${out.platform} (Kubernetes ${platformOf(out.platform)?.kubernetesVersion})`,
          };
        out.kubernetesVersion = v;
        break;
      }
      case '--platform': {
        const v = takeValue();
        if (!isPlatformId(v)) return { command: 'error', message: `--platform must be one of ${PLATFORM_IDS.join(', ')}` };
        const release = platformOf(v)!.kubernetesVersion;
        if (out.kubernetesVersion && out.kubernetesVersion !== release)
          return { command: 'error', message: `--platform ${v} (Kubernetes ${release}) contradicts --kubernetes-version ${out.kubernetesVersion}` };
        out.platform = v;
        out.kubernetesVersion = release;
        break;
      }
      case '--field-validation': {
        const v = takeValue();
        if (!isFieldValidation(v)) return { command: 'error', message: `--field-validation must be one of ${FIELD_VALIDATIONS.join(', ')}` };
        out.fieldValidation = v;
        break;
      }
      case '--format': {
        const v = takeValue();
        if (!(FORMATS as readonly string[]).includes(v ?? '')) return { command: 'error', message: `--format must be one of ${FORMATS.join(', ')}` };
        out.format = v as Format;
        break;
      }
      case '--fail-on': {
        const v = takeValue();
        if (!(FAIL_ON as readonly string[]).includes(v ?? '')) return { command: 'error', message: `--fail-on must be one of ${FAIL_ON.join(', ')}` };
        out.failOn = v as FailOn;
        break;
      }
      case '--export-manifests': {
        const v = takeValue();
        if (!v) return { command: 'error', message: '--export-manifests needs a directory' };
        out.exportManifests = v;
        break;
      }
      case '--layout': {
        const v = takeValue();
        if (v !== 'per-object' && v !== 'per-directory') return { command: 'error', message: '--layout must be per-object or per-directory' };
        out.layout = v;
        break;
      }
      case '--upgrade-from': {
        const v = takeValue() ?? '';
        const release = v.replace(/^v/, '');
        if (!isKubernetesVersion(release)) return { command: 'error', message: upgradeUsageError(v, DEFAULT_KUBERNETES_VERSION)! };
        out.upgradeFrom = release;
        break;
      }
      case '--static-order': {
        const v = parseStaticOrder(takeValue());
        if (typeof v === 'object') return { command: 'error', message: v.error };
        out.staticOrder = v;
        break;
      }
      case '--feature-gates': {
        const v = parseFeatureGates(takeValue());
        if (!Array.isArray(v)) return { command: 'error', message: v.error };
        out.featureGates = v;
        break;
      }
      case '--manifest-base': {
        const v = takeValue();
        if (!v?.startsWith('/')) return { command: 'error', message: '--manifest-base must be an absolute path (staticManifestsDir must be)' };
        out.manifestBase = v;
        break;
      }
      default:
        return { command: 'error', message: `unknown option ${name}` };
    }
  }
  if (!out.paths.length) return { command: 'error', message: 'nothing to check: give files or directories, or - for standard input' };
  if ((out.exportManifests || out.layout || out.manifestBase) && !out.static)
    return { command: 'error', message: '--export-manifests, --layout and --manifest-base need --static' };
  if (out.upgradeFrom) {
    const wrong = upgradeUsageError(out.upgradeFrom, out.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION);
    if (wrong) return { command: 'error', message: wrong };
    if (out.coverage || out.exportManifests)
      return { command: 'error', message: '--upgrade-from does not go with --coverage and its options, nor --export-manifests' };
  }
  if ((out.staticOrder || out.featureGates) && !out.cases)
    return { command: 'error', message: '--static-order and --feature-gates need --cases FILE (they set the chain its scenarios run)' };
  if (out.coverage && !out.cases) return { command: 'error', message: '--coverage, --coverage-out, --lcov and --min-coverage need --cases FILE' };
  return out;
}

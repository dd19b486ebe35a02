/** Types of go-oracle.mjs (the Go oracles' build cache, shared by the tests and build scripts). */
export interface OracleBuild {
  /** The folder under tools/ (its go.mod is the module). */
  dir: string;
  /** A name for the binary in the cache. */
  name: string;
  /** Build tags (`-tags`). */
  tags?: string[];
  /** Another go.mod (`-modfile`); its .sum sits beside it. */
  modfile?: string;
  /** `go test -c` instead of `go build` (the oracle is a Go test). */
  testBinary?: boolean;
  /** `GOTOOLCHAIN` for this build only (a release whose modules need a newer Go than the machine's). */
  toolchain?: string;
}

export interface BuiltOracle {
  path: string;
  /** true when this call built it (a cache miss). */
  built: boolean;
  /** Seconds the build took (0 on a hit or when another process built it). */
  seconds: number;
}

export const repoRoot: string;
/** Where tests keep the oracles' answers (the checkout's node_modules/.cache). */
export const oracleCacheDir: string;
/** Where the oracle binaries are cached (the user's cache directory). */
export const oracleBinDir: string;
export const ORACLE_BUILDS: {
  readonly 'validation-oracle-1.38': OracleBuild;
  readonly 'validation-oracle-1.37': OracleBuild;
  readonly 'validation-oracle-1.36': OracleBuild;
  readonly 'validation-oracle-1.30': OracleBuild;
  readonly 'admission-oracle': OracleBuild;
  readonly 'admission-oracle-1.37': OracleBuild;
  readonly 'admission-oracle-1.38': OracleBuild;
  readonly 'typecheck-oracle-1.37': OracleBuild;
  readonly 'typecheck-oracle-1.36': OracleBuild;
  readonly 'typecheck-oracle-1.30': OracleBuild;
  readonly 'manifest-oracle-1.37': OracleBuild;
  readonly 'manifest-oracle-1.38': OracleBuild;
  readonly 'cel-oracle-1.38': OracleBuild;
  readonly 'cel-oracle-1.37': OracleBuild;
  readonly 'cel-oracle-1.36': OracleBuild;
  readonly 'cel-oracle-1.33': OracleBuild;
  readonly 'cel-oracle-1.32': OracleBuild;
  readonly 'cel-oracle-1.31': OracleBuild;
  readonly 'cel-oracle-1.30': OracleBuild;
  readonly 'gatekeeper-oracle': OracleBuild;
  readonly 'kyverno-oracle': OracleBuild;
};
/** The timeout of a test that may build its oracle (a cold build on a fresh machine takes long). */
export const ORACLE_TEST_TIMEOUT: number;
export function buildOracle(b: OracleBuild): BuiltOracle;
export function buildOracleAsync(b: OracleBuild): Promise<BuiltOracle>;
export function runOracle(path: string, input: string, args?: string[], env?: Record<string, string>): Promise<string>;

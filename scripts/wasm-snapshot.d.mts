// Types of scripts/wasm-snapshot.mjs (a plain Node script the build runs) for its tests.
export const VALUES_SECTION: string;
export function namePrefix(importPath: string): string;
export function isInitialiser(name: string, prefixes: ReadonlySet<string>): boolean;
export function snapshotEngine(bytes: Uint8Array, wasmExec: string, options: { packages: readonly string[]; keepNames?: boolean }): Promise<Uint8Array>;

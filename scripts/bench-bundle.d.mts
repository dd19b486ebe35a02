// Types of scripts/bench-bundle.mjs (a plain Node module the benchmarks import).
/** The module `entry` (a source file) bundled as Vite ships it, imported; type it as `typeof import(entry)`. */
export function bundled<T>(entry: URL | string): Promise<T>;

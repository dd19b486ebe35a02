/** The engine's files beside the page (browser): cel/cel.wasm and cel/wasm_exec.js, and where the engine is kept. */

declare const __CEL_WASM_VERSION__: string;

/** The built engine's version (a hash of cel.wasm, vite.config.ts); empty in the dev server and in Node. */
export const CEL_WASM_VERSION: string = typeof __CEL_WASM_VERSION__ === 'string' ? __CEL_WASM_VERSION__ : '';

/**
 * The URL of one of the engine's files, resolved against the page's base URL (the app is hosted
 * under arbitrary sub-paths) and asked with the build's version as its query: a new build is a
 * new URL, so a server may let browsers keep these files without asking again (README, Hosting).
 */
export function celAssetUrl(file: EngineFile | 'wasm_exec.js', baseUrl: string): string {
  const url = new URL(`cel/${file}`, baseUrl);
  if (CEL_WASM_VERSION) url.search = `v=${CEL_WASM_VERSION}`;
  return url.href;
}

/** An engine generation's file: cel.wasm (the default engine) or cel-<release>.wasm (scripts/engine-builds.mjs). */
export type EngineFile = 'cel.wasm' | `cel-1.${number}.wasm`;

/** The file of an engine generation (`default`: the default target's generation, which keeps the name cel.wasm). */
export const engineFile = (build: string, isDefault: boolean): EngineFile => (isDefault ? 'cel.wasm' : (`cel-${build}.wasm` as EngineFile));

/** The Cache Storage where the CEL worker keeps the engine's decoded bytes, under celAssetUrl('cel.wasm') (worker.ts). */
export const ENGINE_CACHE = 'admission-workbench-cel';

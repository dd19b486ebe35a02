// How long a browser may keep each file of the built site (dist/) without asking the server
// again: the policy README.md's Hosting section asks of a portal, sent by scripts/serve.mjs and
// by `npm start` (vite preview, vite.config.ts). No dependencies.

/** A year, and never revalidated: the content can never change under this URL. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Kept, but revalidated on each use (with the ETag / Last-Modified the server sends). */
export const REVALIDATE = 'no-cache';

/**
 * The Cache-Control header for a path of the site, relative to its base (`assets/index-….js`,
 * `cel/cel.wasm`), and the request's query. `assets/` file names carry a hash of their content;
 * the engine's two files are asked with the build's version as their query (`?v=…`,
 * src/cel/assets.ts). Everything else (index.html, the type checker's schemas) is revalidated,
 * so that a new build is seen at once.
 */
export function cacheControl(path, search = '') {
  if (path.startsWith('assets/')) return IMMUTABLE;
  if ((path === 'cel/cel.wasm' || path === 'cel/wasm_exec.js') && /(^|[?&])v=[0-9a-f]+/.test(search)) return IMMUTABLE;
  return REVALIDATE;
}

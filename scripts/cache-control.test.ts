/** The Cache-Control policy that scripts/serve.mjs and npm start (vite.config.ts) send, and README's Hosting asks of a portal. */
import { describe, expect, it } from 'vitest';
import { cacheControl, IMMUTABLE, REVALIDATE } from './cache-control.mjs';

describe('cacheControl', () => {
  it('keeps for a year what its URL says cannot change: hashed assets, the engine asked under its version', () => {
    expect(cacheControl('assets/index-QwFVEhlL.js')).toBe(IMMUTABLE);
    expect(cacheControl('cel/cel.wasm', '?v=529bec76292fee0d')).toBe(IMMUTABLE);
    expect(cacheControl('cel/wasm_exec.js', '?x=1&v=529bec76292fee0d')).toBe(IMMUTABLE);
    expect(IMMUTABLE).toBe('public, max-age=31536000, immutable');
  });
  it('revalidates the rest: the page, the engine without its version, the schemas, a query that is not a version', () => {
    for (const [path, search] of [
      ['index.html', ''],
      ['cel/cel.wasm', ''],
      ['cel/cel.wasm', '?v='],
      ['cel/cel.wasm', '?nov=abc'],
      ['cel/cel.wasm.br', '?v=529bec76292fee0d'],
      ['cel/schemas-1.37.json', '?v=529bec76292fee0d'],
    ]) {
      expect(cacheControl(path, search), `${path}${search}`).toBe(REVALIDATE);
    }
    expect(REVALIDATE).toBe('no-cache');
  });
});

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The built engine's version: the CEL worker keeps cel.wasm's decoded bytes in the Cache
 * Storage under it (src/cel/worker.ts). None in the dev server, where the engine can be rebuilt
 * under a running app.
 */
function celWasmVersion(): string {
  try {
    return createHash('sha256')
      .update(readFileSync(new URL('./public/cel/cel.wasm', import.meta.url)))
      .digest('hex')
      .slice(0, 16);
  } catch {
    return ''; // no engine built: nothing to keep
  }
}

/**
 * V8's explicit compile hint on the entry chunk (our components, 72 KB): Chromium then compiles
 * all of its functions on the thread that streams the script in, instead of each on its first
 * call on the main thread during the first render. Only there: on React's and the core's chunks
 * it delayed the first form (docs/performance.md). V8 reads the comment only before the first
 * token of the script, so it is written into the file after Vite has put its preload map at the
 * top. The build writes no source maps, which the added line would shift.
 */
function compileHintOnEntry(): Plugin {
  return {
    name: 'compile-hint-on-entry',
    apply: 'build',
    writeBundle({ dir }, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.isEntry || chunk.name !== 'index') continue;
        const file = join(dir!, chunk.fileName);
        writeFileSync(file, `//# allFunctionsCalledOnLoad\n${readFileSync(file, 'utf8')}`);
      }
    },
  };
}

export default defineConfig(({ command }) => ({
  base: './', // the built app works from any sub-path of a static host
  define: { __CEL_WASM_VERSION__: JSON.stringify(command === 'build' ? celWasmVersion() : '') },
  plugins: [react(), compileHintOnEntry()],
  resolve: {
    alias: [
      // monaco-editor >= 0.56 maps "./*" to "./esm/vs/*.js", so monaco-worker-manager's
      // 'monaco-editor/esm/vs/editor/editor.worker.js' would resolve to esm/vs/esm/vs/...
      { find: /^monaco-editor\/esm\/vs\/(.*?)(\.js)?$/, replacement: 'monaco-editor/$1' },
    ],
  },
  optimizeDeps: { include: ['monaco-yaml/yaml.worker.js'] },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 4000,
    // React in a chunk of its own. Left to itself, the bundler makes two first-load chunks, one
    // of them react-dom with our components (282 KB) and the other our core (237 KB); with React
    // apart there are three of 219, 229 and 72 KB, which Chromium parses on background threads
    // at the same time, so the app starts evaluating sooner (docs/performance.md).
    rollupOptions: { output: { codeSplitting: { groups: [{ name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ }] } } },
  },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
}));

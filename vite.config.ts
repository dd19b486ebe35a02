import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { cacheControl } from './scripts/cache-control.mjs';

/**
 * The built engine's version: the page asks for cel/cel.wasm and cel/wasm_exec.js with it as
 * their query (src/cel/assets.ts), and the CEL worker keeps cel.wasm's decoded bytes in the Cache
 * Storage under that URL (src/cel/worker.ts). None in the dev server, where the engine can be
 * rebuilt under a running app.
 */
function celWasmVersion(): string {
  try {
    const h = createHash('sha256').update(readFileSync(new URL('./public/cel/cel.wasm', import.meta.url)));
    // the other engine generations (cel-1.38.wasm: scripts/engine-builds.mjs) are in the same version
    const dir = fileURLToPath(new URL('./public/cel/', import.meta.url));
    for (const f of readdirSync(dir)
      .filter((n) => /^cel-1\.\d+\.wasm$/.test(n))
      .sort())
      h.update(f).update(readFileSync(join(dir, f)));
    return h.digest('hex').slice(0, 16);
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

/**
 * The CEL engine's starter (src/cel/start.ts: on a later visit it creates the CEL worker, which
 * compiles the engine from the Cache Storage while the first form renders) as a script of its own
 * in the page's head, `async` so that it runs as soon as it is in, without waiting for the
 * stylesheets or the app's other scripts. Vite would bundle every module script of index.html into
 * the one entry chunk, which runs only once all of the app's first-load chunks are in, so the
 * starter is a chunk of its own, written into the page here (after the Content-Security-Policy,
 * which covers only what follows it). The dev server serves it as a module of its own.
 */
function celStarter(): Plugin {
  const id = fileURLToPath(new URL('./src/cel/start.ts', import.meta.url));
  let build = false;
  return {
    name: 'cel-starter',
    configResolved(config) {
      build = config.command === 'build';
    },
    buildStart() {
      if (build) this.emitFile({ type: 'chunk', id, name: 'cel-start' });
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const chunk = ctx.bundle && Object.values(ctx.bundle).find((c) => c.type === 'chunk' && c.facadeModuleId === id);
        if (build && !chunk) throw new Error('the CEL starter (src/cel/start.ts) is not in the bundle');
        // Before the first script after the Content-Security-Policy: the app's (the dev server puts its own before the policy).
        const at = html.indexOf('<script', html.indexOf('http-equiv="Content-Security-Policy"'));
        if (at < 0 || !html.includes('http-equiv="Content-Security-Policy"'))
          throw new Error('index.html has no script after its Content-Security-Policy to put the CEL starter before');
        const src = chunk ? `./${chunk.fileName}` : '/src/cel/start.ts';
        return `${html.slice(0, at)}<script type="module" async fetchpriority="high" crossorigin src="${src}"></script>\n    ${html.slice(at)}`;
      },
    },
  };
}

/** `npm start` (vite preview) sends the Cache-Control a portal should (scripts/cache-control.mjs, README's Hosting). */
function previewCacheHeaders(): Plugin {
  return {
    name: 'preview-cache-headers',
    configurePreviewServer(server) {
      const base = server.config.base === './' ? '/' : server.config.base;
      server.middlewares.use((req, res, next) => {
        // the request's path as sent (`//` or a bad %-escape must not take the server down: vite answers them)
        const url = new URL(`http://x${req.url ?? '/'}`);
        let path: string;
        try {
          path = decodeURIComponent(url.pathname).slice(base.length);
        } catch {
          return next();
        }
        res.setHeader('Cache-Control', cacheControl(path || 'index.html', url.search));
        next();
      });
    },
  };
}

export default defineConfig(({ command }) => ({
  base: './', // the built app works from any sub-path of a static host
  define: { __CEL_WASM_VERSION__: JSON.stringify(command === 'build' ? celWasmVersion() : '') },
  plugins: [react(), compileHintOnEntry(), celStarter(), previewCacheHeaders()],
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
    // `core`: small modules of the first load that lazy chunks share too (the checks, the views),
    // each of which the bundler split into a chunk of its own (31 first-load files instead of 24),
    // in one chunk with what they import (includeDependenciesRecursively, the default): 14 files.
    // Only first-load modules belong here (the Bundle row of `npm run bench` grows if one that
    // only a lazy chunk needs is added), and none that reaches src/cel/assets.ts (the store does):
    // the engine's starter (src/cel/start.ts) would then import that chunk instead of running as
    // soon as it is in.
    rollupOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            {
              name: 'core',
              test: /src[\\/](base[\\/](json|releases|path)|k8s[\\/](resources|ca-bundle|cel-scope|static-manifests|typed[\\/](data|kinds)|registry[\\/]server-fields)|cel[\\/](ops|reserved)|ui[\\/](form-context|display|download)|policy[\\/](expressions|match-conditions)|share[\\/](manifest-dir|zip))\.tsx?$/,
            },
          ],
        },
      },
    },
  },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
}));

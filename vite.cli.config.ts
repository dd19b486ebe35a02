/**
 * The CLI bundle: src/cli/bin.ts → dist-cli/admission-workbench.mjs, one ES module for Node
 * (npm packages stay imports from node_modules). Built by `npm run build:cli` (and `prepare`,
 * so `npm install` leaves a runnable `npx admission-workbench`); bin/admission-workbench.mjs
 * rebuilds it when src/ is newer.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  logLevel: 'warn',
  publicDir: false, // the CEL engine is read from public/cel (CEL_WASM), not copied
  build: {
    ssr: 'src/cli/bin.ts',
    outDir: 'dist-cli',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: false,
    rollupOptions: { output: { entryFileNames: 'admission-workbench.mjs', codeSplitting: false } },
  },
});

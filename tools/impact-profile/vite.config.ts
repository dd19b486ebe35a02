/** Bundles profile.ts for Node (an SSR build) under node_modules/.cache, where src/cel/native.ts finds the native engine. */
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    ssr: 'tools/impact-profile/profile.ts',
    outDir: 'node_modules/.cache/impact-profile',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: true,
    rollupOptions: { output: { format: 'es', entryFileNames: 'profile.mjs' } },
  },
  ssr: { noExternal: true },
});

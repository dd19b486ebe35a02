import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: './', // the built app works from any sub-path of a static host
  plugins: [react()],
  resolve: {
    alias: [
      // monaco-editor >= 0.56 maps "./*" to "./esm/vs/*.js", so monaco-worker-manager's
      // 'monaco-editor/esm/vs/editor/editor.worker.js' would resolve to esm/vs/esm/vs/...
      { find: /^monaco-editor\/esm\/vs\/(.*?)(\.js)?$/, replacement: 'monaco-editor/$1' },
    ],
  },
  optimizeDeps: { include: ['monaco-yaml/yaml.worker.js'] },
  build: { target: 'es2022', chunkSizeWarningLimit: 4000 },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
});

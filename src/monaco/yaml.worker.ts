// The monaco-yaml worker, wrapped so Vite bundles it (see the monaco-yaml README, "Using Vite").
import 'monaco-yaml/yaml.worker.js';

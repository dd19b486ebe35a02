/**
 * The CLI bundle: src/cli/bin.ts → dist-cli/admission-workbench.mjs, one ES module for Node with
 * the npm packages it uses (js-yaml, @peculiar/x509 and theirs) inside, so that the packed CLI
 * (`npm run package`, `files` in package.json) installs with no dependency to fetch; their
 * licences go beside it in dist-cli/THIRD-PARTY-LICENSES.txt. Built by `npm run build:cli` (and
 * `prepare`, so `npm install` leaves a runnable `npx admission-workbench`);
 * bin/admission-workbench.mjs rebuilds it when src/ is newer.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/** The package directory a bundled module comes from (the last node_modules/<name> or node_modules/@scope/<name> of its path). */
function packageDir(id: string): string | undefined {
  const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(id.replace(/^\0/, ''));
  return m?.[1];
}

/** dist-cli/THIRD-PARTY-LICENSES.txt: name, version, licence and licence text of every npm package in the bundle. */
function thirdPartyLicenses(): Plugin {
  return {
    name: 'third-party-licenses',
    apply: 'build',
    generateBundle(_options, bundle) {
      const dirs = new Set<string>();
      for (const chunk of Object.values(bundle)) if (chunk.type === 'chunk') for (const id of chunk.moduleIds) dirs.add(packageDir(id) ?? '');
      dirs.delete('');
      const entries = [...dirs]
        .map((dir) => {
          const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
          const file = readdirSync(dir).find((f) => /^(licen[sc]e|copying)(\.|$)/i.test(f));
          const text =
            file && existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').trim() : `(no licence file; package.json says ${pkg.license})`;
          return { id: `${pkg.name}@${pkg.version}`, text: `${pkg.name} ${pkg.version} (${pkg.license ?? 'no licence field'})\n\n${text}\n` };
        })
        .sort((a, b) => a.id.localeCompare(b.id));
      const unique = [...new Map(entries.map((e) => [e.id, e.text])).values()];
      this.emitFile({
        type: 'asset',
        fileName: 'THIRD-PARTY-LICENSES.txt',
        source: `admission-workbench.mjs includes these npm packages:\n\n${unique.join(`\n${'-'.repeat(72)}\n\n`)}`,
      });
    },
  };
}

export default defineConfig({
  logLevel: 'warn',
  publicDir: false, // the CEL engine is read from public/cel (CEL_WASM), not copied
  plugins: [thirdPartyLicenses()],
  ssr: { noExternal: true }, // npm packages inside the bundle (Node's built-in modules stay imports)
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

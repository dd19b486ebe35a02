/**
 * The Workbench's own version: package.json's, the one place it is written (the release
 * tarballs are named after it). The CLI's `--version` prints it; the app's header shows it.
 * Only this field of package.json is bundled (Vite's JSON named exports).
 */
export { version as WORKBENCH_VERSION } from '../../package.json';

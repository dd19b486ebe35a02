/**
 * The bottom layer of the core: what every other part reads and that knows nothing of them.
 * The one path language (path.ts, path-format.ts), JSON value helpers (json.ts), RFC 6902
 * JSON Patch (jsonpatch.ts), the Kubernetes releases the Workbench targets (releases.ts), the
 * Workbench's own version (version.ts) and maps keyed by tuples of texts (tuple-map.ts).
 * Imports nothing of src/.
 */
export * from './path';
export * from './path-format';
export * from './json';
export * from './jsonpatch';
export * from './releases';
export * from './version';
export * from './tuple-map';

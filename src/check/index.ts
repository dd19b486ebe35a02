/**
 * The one check pipeline (docs/architecture.md "Problems"): the store (src/store/problems.ts)
 * and the CLI (src/cli/check.ts) both check objects here, at one target release.
 */
export { checkObject, fieldProblems, objectLints, caLints, isChecked, releaseOf, type CheckOptions, type ObjectChecks } from './object';
export { createChecker, type Checker } from './checker';
export { checkWorkspace, inspectBundles } from './workspace';
export { workspaceReadsKey } from './reads';
export { sizeProblems, objectBytes, MAX_REQUEST_BODY_BYTES, ETCD_DEFAULT_MAX_REQUEST_BYTES } from './size';
export { SEVERITIES, severityOf, countsText, type Severity } from './severity';

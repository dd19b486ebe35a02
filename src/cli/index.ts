/**
 * The command-line checker (`admission-workbench check`): a thin layer over the core —
 * src/yaml, src/k8s (validate, lints), src/cel (the real engine), src/policy (cases),
 * src/share (workspace files). No React, Monaco or zustand. See README.md.
 */
export { runCli, type CliIO } from './main';
export { parseArgs, USAGE, type CheckArgs } from './args';
export { checkTexts, positionIn, type CheckResult } from './check';
export { readInputs, MAX_FILES, MAX_FILE_BYTES, type FileSystem, type InputFile } from './inputs';
export { formatReport, FORMATS, type Format, type Report, type Summary } from './format';
export { fails, type FailOn, type Problem, type Severity } from './problem';
export { readKaptestManifest, isKaptestManifest } from './kaptest';

/** Quick fixes: pure edits offered with lint findings and validation errors. */
export type { Fix, FixInput, FixParam, FixResult } from './types';
export { paramValue } from './types';
export { fixesForError } from './errors';
export { suggestDnsName } from './edits';

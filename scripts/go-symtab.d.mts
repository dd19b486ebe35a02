// Types of scripts/go-symtab.mjs (a plain Node script the build runs) for its tests.
export interface GoFunction {
  name: string;
  pcsp: number;
  pcfile: number;
  pcln: number;
  startLine: number;
}
export function readFunctions(memory: Buffer): GoFunction[];
export function trimSymtab(memory: Buffer): void;

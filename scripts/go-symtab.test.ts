/** The served engine's Go symbol table after the snapshot trimmed it (scripts/go-symtab.mjs). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { readFunctions } from './go-symtab.mjs';

const wasmPath = process.env.CEL_WASM ? resolve(process.env.CEL_WASM) : resolve(__dirname, '..', 'public', 'cel', 'cel.wasm');

/** The engine's memory as its data segments set it: instantiated with inert imports, nothing runs. */
async function engineMemory(): Promise<Buffer> {
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  const imports: Record<string, Record<string, () => void>> = {};
  for (const i of WebAssembly.Module.imports(module)) (imports[i.module] ??= {})[i.name] = () => undefined;
  const instance = await WebAssembly.instantiate(module, imports);
  return Buffer.from((instance.exports.mem as WebAssembly.Memory).buffer);
}

test('the file and line tables and the names are gone; frame sizes stay, and the names the runtime compares', async () => {
  const functions = readFunctions(await engineMemory());
  expect(functions.length).toBeGreaterThan(10_000);
  expect(functions.filter((f) => f.pcfile || f.pcln || f.startLine)).toEqual([]);
  const named = functions.map((f) => f.name).filter(Boolean);
  expect(named.filter((n) => !/^(runtime\.|reflect\.|internal\/runtime\/)/.test(n))).toEqual([]);
  // runtime/stkframe.go finds reflect.methodValueCall's argument map by name, for the garbage
  // collector (and reflect.makeFuncStub's, which the engine does not link)
  expect(named).toEqual(expect.arrayContaining(['reflect.methodValueCall', 'runtime.gopanic']));
  // every stack walk reads a function's frame size (pcsp)
  expect(functions.filter((f) => f.pcsp).length).toBeGreaterThan(functions.length * 0.99);
});

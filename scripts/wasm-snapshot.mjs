// Pre-initialises the CEL engine at build time. Starting the Go program runs every package
// initialiser of the engine's dependencies (cel-go's standard library, protobuf descriptors,
// apiserver feature gates, …): about half a second in a browser, the same work on every
// page load. This script runs that start once, in Node, and writes a new cel.wasm whose
// memory and globals are the program's state after it: the data segments are the memory
// as main() left it (waiting in `select {}`), the globals' initial values are the ones
// Go's runtime had then. Loading it skips `run` entirely (src/cel/raw.ts, resumeGo): the
// exports can be called at once. The one change to the code: the package initialisers, which
// have run and cannot run again, get an `unreachable` body (found by name: the engine is linked
// with its name section, which is dropped here unless kept for profiles). In the memory, Go's
// symbol table loses what only tracebacks read: line tables and function names (go-symtab.mjs).
//
// What lives outside the memory and globals is the JS side of wasm_exec.js: the table of
// JS values Go holds references to (`_values`, by id). Those are recorded by where they
// were found (a global's name, or a property of one, e.g. `fs.constants`) in a custom
// section, `admission-workbench.js-values`, and looked up again when the engine resumes.
// The program starts in a context with a browser's globals (no Node `process` or `require`:
// wasm_exec.js installs its own fs, process and path stubs, as in a worker), so what the
// package initialisers read from the host is what they read in a browser.
import vm from 'node:vm';
import { trimSymtab } from './go-symtab.mjs';
import { readU32 } from './leb128.mjs';

export const VALUES_SECTION = 'admission-workbench.js-values';

// --- WebAssembly binary reading and writing (only what this needs) ---------------------

/** A name (a length, then UTF-8 bytes) at pos, which moves past it. */
function readName(bytes, pos) {
  const length = readU32(bytes, pos);
  pos.at += length;
  return Buffer.from(bytes.subarray(pos.at - length, pos.at)).toString();
}

function u32(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

function s64(v) {
  let n = BigInt(v);
  const out = [];
  for (;;) {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    const done = (n === 0n && !(b & 0x40)) || (n === -1n && b & 0x40);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

function sections(bytes) {
  const out = [];
  const pos = { at: 8 };
  while (pos.at < bytes.length) {
    const id = bytes[pos.at++];
    const size = readU32(bytes, pos);
    out.push({ id, body: bytes.subarray(pos.at, pos.at + size) });
    pos.at += size;
  }
  return out;
}

function section(id, body) {
  return Buffer.concat([Buffer.from([id, ...u32(body.length)]), Buffer.from(body)]);
}

function customSection(name, payload) {
  const n = Buffer.from(name);
  return section(0, Buffer.concat([Buffer.from(u32(n.length)), n, Buffer.from(payload)]));
}

function assemble(parts) {
  return Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), ...parts]);
}

const SECTION = { custom: 0, import: 2, global: 6, export: 7, memory: 5, code: 10, data: 11, dataCount: 12 };
const VALTYPE = new Map([
  [0x7f, 'i32'],
  [0x7e, 'i64'],
]);

/** The global section's types (Go's wasm globals are i32 and i64, initialised by a constant). */
function globalTypes(body) {
  const pos = { at: 0 };
  const count = readU32(body, pos);
  const types = [];
  for (let i = 0; i < count; i++) {
    const type = VALTYPE.get(body[pos.at]);
    if (!type) throw new Error(`wasm-snapshot: global ${i} has an unexpected type 0x${body[pos.at].toString(16)}`);
    pos.at += 2; // type, mutability
    const op = body[pos.at++]; // the constant expression: i32.const or i64.const, a LEB128, end
    if (op !== 0x41 && op !== 0x42) throw new Error(`wasm-snapshot: global ${i} is not initialised by a constant`);
    while (body[pos.at++] & 0x80);
    if (body[pos.at++] !== 0x0b) throw new Error(`wasm-snapshot: global ${i} has an unexpected initialiser`);
    types.push(type);
  }
  return types;
}

/** The module with each global also exported, as `__global<i>`, to read them after the start. */
function withGlobalsExported(bytes) {
  const parts = sections(bytes);
  const count = globalTypes(parts.find((s) => s.id === SECTION.global).body).length;
  return assemble(
    parts.map((s) => {
      if (s.id !== SECTION.export) return section(s.id, s.body);
      const pos = { at: 0 };
      const n = readU32(s.body, pos);
      const extra = [];
      for (let i = 0; i < count; i++) {
        const name = Buffer.from(`__global${i}`);
        extra.push(...u32(name.length), ...name, 3, ...u32(i));
      }
      return section(s.id, Buffer.concat([Buffer.from(u32(n + count)), s.body.subarray(pos.at), Buffer.from(extra)]));
    }),
  );
}

/** Active data segments for the non-zero parts of memory (zero runs of 64+ bytes are skipped). */
function dataSegments(memory) {
  const segments = [];
  let i = 0;
  while (i < memory.length) {
    while (i < memory.length && memory[i] === 0) i++;
    if (i >= memory.length) break;
    const start = i;
    let zeros = 0;
    while (i < memory.length && zeros < 64) {
      zeros = memory[i] === 0 ? zeros + 1 : 0;
      i++;
    }
    segments.push([start, i - zeros]);
  }
  const body = [Buffer.from(u32(segments.length))];
  for (const [start, end] of segments) {
    body.push(Buffer.from([0, 0x41, ...s64(start), 0x0b, ...u32(end - start)]), memory.subarray(start, end));
  }
  return { count: segments.length, body: Buffer.concat(body) };
}

const customName = (body) => readName(body, { at: 0 });

/** Function names by function index, from the name section (a build linked without -s). */
function functionNames(parts) {
  const names = new Map();
  const name = parts.find((s) => s.id === SECTION.custom && customName(s.body) === 'name');
  if (!name) return names;
  const pos = { at: 0 };
  readName(name.body, pos); // the section's own name
  while (pos.at < name.body.length) {
    const sub = name.body[pos.at++];
    const size = readU32(name.body, pos);
    const end = pos.at + size;
    if (sub === 1) {
      const count = readU32(name.body, pos);
      for (let i = 0; i < count; i++) {
        const index = readU32(name.body, pos);
        names.set(index, readName(name.body, pos));
      }
    }
    pos.at = end;
  }
  return names;
}

function importedFunctions(parts) {
  const imports = parts.find((s) => s.id === SECTION.import);
  if (!imports) return 0;
  const { body } = imports;
  const pos = { at: 0 };
  const count = readU32(body, pos);
  let functions = 0;
  for (let i = 0; i < count; i++) {
    readName(body, pos); // module
    readName(body, pos); // name
    const kind = body[pos.at++];
    if (kind !== 0) throw new Error("wasm-snapshot: only function imports are expected (Go's wasm_exec imports)");
    readU32(body, pos);
    functions++;
  }
  return functions;
}

// Package initialisers: the compiler's `pkg.init`, `pkg.init.N` (func init) and `pkg.map.init.N`
// (map literals), called only by the runtime's doInit, which has run them all before the
// snapshot. Closures defined in them (`pkg.init.func1`) can be called later and are kept, and
// so are methods named init (`pkg.T.init`): a name counts only when what precedes the suffix
// is exactly the symbol prefix of a package the engine links.
const INITIALISER = /\.(map\.)?init(\.\d+)?$/;

/**
 * A package's prefix in the name section: its linker symbol prefix (cmd/internal/objabi
 * PathToPrefix: dots in the last element and unusual bytes %-escaped) with every character
 * other than [A-Za-z0-9_.] written as `_` (cmd/link/internal/wasm's nameRegexp).
 */
export function namePrefix(importPath) {
  const slash = importPath.lastIndexOf('/');
  let prefix = '';
  for (let i = 0; i < importPath.length; i++) {
    const c = importPath.charCodeAt(i);
    const encode = c <= 0x20 || (c === 0x2e && i > slash) || c === 0x25 || c === 0x22 || c >= 0x7f;
    prefix += encode ? `%${c.toString(16).padStart(2, '0')}` : importPath[i];
  }
  return prefix.replace(/[^\w.]/g, '_');
}

export function isInitialiser(name, prefixes) {
  const m = INITIALISER.exec(name);
  return m !== null && prefixes.has(name.slice(0, m.index));
}

/**
 * The code section with each package initialiser's body replaced by `unreachable`: in a
 * snapshot they have run and will never run again (a call would trap, loudly).
 */
function withoutInitialisers(code, names, firstDefined, prefixes) {
  const pos = { at: 0 };
  const count = readU32(code, pos);
  const out = [Buffer.from(u32(count))];
  let removed = 0;
  for (let i = 0; i < count; i++) {
    const size = readU32(code, pos);
    const body = code.subarray(pos.at, pos.at + size);
    pos.at += size;
    if (isInitialiser(names.get(firstDefined + i) ?? '', prefixes)) {
      out.push(Buffer.from([3, 0, 0x00, 0x0b])); // no locals; unreachable; end
      removed += size;
    } else {
      out.push(Buffer.from(u32(size)), body);
    }
  }
  return { body: Buffer.concat(out), removed };
}

// --- The start -----------------------------------------------------------------------------

/** A context with the globals a browser worker gives wasm_exec.js and the Go program. */
function browserLikeContext() {
  const { TextEncoder, TextDecoder, crypto, performance, console, setTimeout, clearTimeout, fetch } = globalThis;
  return vm.createContext({ TextEncoder, TextDecoder, crypto, performance, console, setTimeout, clearTimeout, fetch });
}

/** Where a JS value the Go program holds was found: a global's name or `name.property`. */
function locate(value, global) {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return { value };
  const names = Object.getOwnPropertyNames(global).filter((name) => name !== 'globalThis');
  const read = (object, name) => {
    try {
      return object[name];
    } catch {
      return undefined; // an accessor that throws: not it
    }
  };
  const direct = names.find((name) => read(global, name) === value);
  if (direct) return { path: direct };
  for (const name of names) {
    const v = read(global, name);
    if (!v || (typeof v !== 'object' && typeof v !== 'function')) continue;
    const prop = Object.getOwnPropertyNames(v).find((p) => read(v, p) === value);
    if (prop) return { path: `${name}.${prop}` };
  }
  return { path: null };
}

/**
 * Runs the engine's start and returns the pre-initialised module's bytes.
 * bytes: the built cel.wasm, linked with its name section (without -s); wasmExec: the source
 * of the wasm_exec.js shipped with it; packages: the import paths it links (`go list -deps`,
 * the main package as `main`); keepNames: keep the name section, and Go's own line tables and
 * function names (for profiles and tracebacks).
 */
export async function snapshotEngine(bytes, wasmExec, { packages, keepNames = false }) {
  const context = browserLikeContext();
  vm.runInContext(wasmExec, context, { filename: 'wasm_exec.js' });
  const go = vm.runInContext('new Go()', context);
  const wasm = vm.runInContext('WebAssembly', context); // Go.run checks instanceof its own realm's Instance
  const module = await wasm.compile(withGlobalsExported(bytes));
  const instance = await wasm.instantiate(module, go.importObject);
  const ready = new Promise((resolve) => (context.__admissionWorkbenchCelReady = resolve));
  const exited = go.run(instance).then(() => {
    throw new Error('wasm-snapshot: the engine exited during its start');
  });
  await Promise.race([ready, exited]);
  delete context.__admissionWorkbenchCelReady;
  if (go._pendingEvent || go._scheduledTimeouts.size) {
    throw new Error('wasm-snapshot: the engine has pending events or timers after its start');
  }

  const parts = sections(bytes);
  const types = globalTypes(parts.find((s) => s.id === SECTION.global).body);
  const globals = types.map((type, i) => {
    const v = instance.exports[`__global${i}`].value;
    return type === 'i64' ? [0x42, ...s64(v), 0x0b] : [0x41, ...s64(v), 0x0b];
  });
  const globalBody = Buffer.concat([Buffer.from(u32(types.length)), ...types.map((t, i) => Buffer.from([t === 'i64' ? 0x7e : 0x7f, 1, ...globals[i]]))]);
  const memory = Buffer.from(instance.exports.mem.buffer);
  // Go's own file/line tables and function names, read for tracebacks only (scripts/go-symtab.mjs).
  if (!keepNames) trimSymtab(memory);
  const pages = memory.length / 65536;
  const memoryBody = Buffer.from([1, 0, ...u32(pages)]); // one memory, no maximum
  const data = dataSegments(memory);
  // Ids 0–6 are wasm_exec.js's fixed values (NaN, 0, null, true, false, globalThis, the Go
  // object); the rest are recorded by where they were found.
  const global = vm.runInContext('globalThis', context);
  const values = go._values.slice(7).map((v) => (v === undefined ? { path: null } : locate(v, global)));
  const missing = values.filter((v, i) => v.path === null && go._values[i + 7] !== undefined);
  const state = { values, refCounts: go._goRefCounts.slice(7), idPool: go._idPool };
  if (missing.length > 1) {
    // One may be the ready callback main() called (deleted above); anything else is new.
    throw new Error(`wasm-snapshot: ${missing.length} JS values the engine holds were not found among the globals`);
  }

  const names = functionNames(parts);
  if (names.size === 0) throw new Error('wasm-snapshot: the engine has no name section (link it without -s)');
  const prefixes = new Set(packages.map(namePrefix));
  const code = withoutInitialisers(parts.find((s) => s.id === SECTION.code).body, names, importedFunctions(parts), prefixes);
  if (code.removed === 0) throw new Error('wasm-snapshot: no package initialiser found by name');

  const out = [];
  for (const s of parts) {
    if (s.id === SECTION.custom && customName(s.body) === 'name' && !keepNames) continue;
    if (s.id === SECTION.code) out.push(section(s.id, code.body));
    else if (s.id === SECTION.memory) out.push(section(s.id, memoryBody));
    else if (s.id === SECTION.global) out.push(section(s.id, globalBody));
    else if (s.id === SECTION.dataCount) out.push(section(s.id, Buffer.from(u32(data.count))));
    else if (s.id === SECTION.data) out.push(section(s.id, data.body));
    else out.push(section(s.id, s.body));
  }
  out.push(customSection(VALUES_SECTION, Buffer.from(JSON.stringify(state))));
  return assemble(out);
}

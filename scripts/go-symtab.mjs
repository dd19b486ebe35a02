// Go's symbol table in the memory of a pre-initialised engine (scripts/wasm-snapshot.mjs), and
// the parts of it that only diagnostics read.
//
// The table (runtime/symtab.go, the layout since Go 1.20: a pcHeader, then function names, the
// compilation units' file indexes, file names, the pc-value tables and the functab with each
// function's _func; the funcdata live in go:func.*) serves two kinds of reader. The runtime
// itself needs, for every stack walk (the garbage collector's, a goroutine's stack growth,
// runtime.Callers), each function's entry, frame size (pcsp), stack maps and inline trees
// (pcdata, funcdata). The file and line of a PC (pcfile, pcln, the file tables, each function's
// and inlined call's start line) and the function names are read only for tracebacks,
// runtime.Caller and runtime.FuncForPC: messages, never a result. In a snapshot they are about
// a tenth of the compressed engine, so they are dropped: every _func's pcfile and pcln become 0
// ("no table": runtime.funcline1 then answers "?", 0), the table bytes no other table shares
// are zeroed, and so are the names, except those of the runtime's and reflect's own functions:
// the runtime compares a few of them by string (stkframe.go finds the argument maps of
// reflect.makeFuncStub and reflect.methodValueCall by name, for the collector). The unsafe-point
// tables (PCDATA_UnsafePoint) go too: only asynchronous preemption reads them, and Go has none on
// wasm (runtime/os_wasm.go: preemptMSupported = false).

import { readU32 } from './leb128.mjs';

const MAGIC = 0xfffffff1; // abi.Go120PCLnTabMagic
const PTR = 8; // Go's pointer size on wasm
// _func (runtime/runtime2.go): entryOff, nameOff, args, deferreturn, pcsp, pcfile, pcln, npcdata,
// cuOffset, startLine (4 bytes each), funcID, flag, pad, nfuncdata; then npcdata pcdata offsets
// and nfuncdata funcdata offsets.
const FUNC = { nameOff: 4, pcsp: 16, pcfile: 20, pcln: 24, npcdata: 28, cuOffset: 32, startLine: 36, nfuncdata: 43, size: 44 };
// runtime.inlinedCall: funcID, pad, nameOff, parentPc, startLine.
const INLINED_CALL = { nameOff: 4, startLine: 12, size: 16 };
const PCDATA_UnsafePoint = 0;
const PCDATA_InlTreeIndex = 2;
const FUNCDATA_InlTree = 3;
// runtime.moduledata: pcHeader, funcnametab (a slice: 3 words), …; gofunc is its 41st word up to
// Go 1.26 and its 44th from Go 1.27 (typedesclen, itaboffset and itabsize came before it; the
// 1.38 engine is built with Go 1.27), each followed by epclntab, which tells them apart.
const MODULEDATA = { funcnametab: 8, gofunc: [320, 344] };
const LAST_GOFUNC = Math.max(...MODULEDATA.gofunc);

/** The names the runtime may compare by string: its own functions' and reflect's. */
const KEPT_NAME = /^(runtime\.|reflect\.|internal\/runtime\/)/;

/** The one 8-aligned place with the pcHeader's magic and wasm's sizes. */
function findHeader(memory) {
  const found = [];
  for (let at = 0; at + 72 <= memory.length; at += 8) {
    if (memory.readUInt32LE(at) === MAGIC && memory[at + 4] === 0 && memory[at + 5] === 0 && memory[at + 7] === PTR) found.push(at);
  }
  if (found.length !== 1) throw new Error(`go-symtab: ${found.length} Go symbol table headers in memory, expected 1`);
  return found[0];
}

const word = (memory, at) => Number(memory.readBigUInt64LE(at));

/** runtime.firstmoduledata: the one place that points at the header and then at the function names. */
function findModuledata(memory, header, funcnames) {
  for (let at = 0; at + LAST_GOFUNC + 16 <= memory.length; at += 8) {
    if (word(memory, at) === header && word(memory, at + MODULEDATA.funcnametab) === funcnames) return at;
  }
  throw new Error('go-symtab: runtime.firstmoduledata not found');
}

/**
 * Walks a pc-value table at `start` (runtime.step: zigzag value deltas from -1, each followed by
 * a pc delta; a zero value delta after the first ends it). Returns where it ends and its largest value.
 */
function walkTable(memory, start) {
  const pos = { at: start };
  let value = -1;
  let max = -1;
  for (let first = true; ; first = false) {
    const delta = readU32(memory, pos);
    if (delta === 0 && !first) return { end: pos.at, max };
    value += delta % 2 ? -(delta + 1) / 2 : delta / 2;
    max = Math.max(max, value);
    readU32(memory, pos);
  }
}

/** The symbol table's regions, go:func.*'s address and every function's _func address. */
function readSymtab(memory) {
  const header = findHeader(memory);
  const region = (offset) => header + word(memory, header + offset);
  const t = { header, funcnames: region(32), cutab: region(40), filetab: region(48), pctab: region(56), pclntab: region(64) };
  if (!(t.funcnames < t.cutab && t.cutab <= t.filetab && t.filetab <= t.pctab && t.pctab < t.pclntab && t.pclntab < memory.length)) {
    throw new Error('go-symtab: the symbol table header does not describe the expected layout');
  }
  const md = findModuledata(memory, header, t.funcnames);
  // the layout whose word after gofunc is epclntab: the end of the function table, in memory
  const at = MODULEDATA.gofunc.filter((o) => {
    const end = word(memory, md + o + 8);
    return end > t.pclntab && end <= memory.length;
  });
  if (at.length !== 1) throw new Error(`go-symtab: runtime.moduledata has ${at.length} places for gofunc, expected 1 (a new Go layout?)`);
  const gofunc = word(memory, md + at[0]);
  const nfunc = word(memory, header + 8);
  const funcs = [];
  let last = -1;
  for (let i = 0; i < nfunc; i++) {
    const entry = memory.readUInt32LE(t.pclntab + i * 8);
    if (entry < last) throw new Error('go-symtab: the function table is not sorted by entry');
    last = entry;
    funcs.push(t.pclntab + memory.readUInt32LE(t.pclntab + i * 8 + 4));
  }
  return { ...t, gofunc, funcs };
}

/**
 * Drops the file and line tables, the start lines, the function names (but the runtime's and
 * reflect's) and the unsafe-point tables from the memory, in place.
 */
export function trimSymtab(memory) {
  const t = readSymtab(memory);
  const field = (f, name) => memory.readUInt32LE(f + FUNC[name]);
  const pcdata = (f, i) => (i < field(f, 'npcdata') ? memory.readUInt32LE(f + FUNC.size + i * 4) : 0);
  const funcdata = (f, i) => (i < memory[f + FUNC.nfuncdata] ? memory.readUInt32LE(f + FUNC.size + field(f, 'npcdata') * 4 + i * 4) : 0xffffffff);
  const nameAt = (offset) => {
    const at = t.funcnames + offset;
    return memory.toString('latin1', at, memory.indexOf(0, at));
  };
  const keptNames = new Set();
  /** A name offset field: kept for the runtime's names, else 0 ("" to runtime.funcName). */
  const dropName = (at) => {
    const offset = memory.readInt32LE(at);
    if (KEPT_NAME.test(nameAt(offset))) keptNames.add(offset);
    else memory.writeInt32LE(0, at);
  };

  // The pc-value tables dropped, by where each function points at them, and the ones the
  // runtime still reads; a table can be shared (the linker stores equal tables once), so only
  // bytes outside all of the kept ones are zeroed.
  const dropped = (f) => [f + FUNC.pcfile, f + FUNC.pcln, ...(field(f, 'npcdata') > PCDATA_UnsafePoint ? [f + FUNC.size + PCDATA_UnsafePoint * 4] : [])];
  const kept = new Uint8Array(t.pclntab - t.pctab);
  for (const f of t.funcs) {
    const pcdataKept = Array.from({ length: field(f, 'npcdata') }, (_, i) => (i === PCDATA_UnsafePoint ? 0 : pcdata(f, i)));
    for (const offset of [field(f, 'pcsp'), ...pcdataKept]) {
      if (offset) kept.fill(1, offset, walkTable(memory, t.pctab + offset).end - t.pctab);
    }
  }
  for (const f of t.funcs) {
    for (const at of dropped(f)) {
      const offset = memory.readUInt32LE(at);
      if (!offset) continue;
      const end = walkTable(memory, t.pctab + offset).end - t.pctab;
      for (let i = offset; i < end; i++) if (!kept[i]) memory[t.pctab + i] = 0;
      memory.writeUInt32LE(0, at); // "no table"
    }
    memory.writeUInt32LE(0, f + FUNC.cuOffset);
    memory.writeInt32LE(0, f + FUNC.startLine);
    dropName(f + FUNC.nameOff);
    // The inlined calls' names and start lines; their entries are indexed by the function's
    // PCDATA_InlTreeIndex values.
    const tree = funcdata(f, FUNCDATA_InlTree);
    const index = pcdata(f, PCDATA_InlTreeIndex);
    if (tree === 0xffffffff || !index) continue;
    for (let i = 0, n = walkTable(memory, t.pctab + index).max; i <= n; i++) {
      const call = t.gofunc + tree + i * INLINED_CALL.size;
      dropName(call + INLINED_CALL.nameOff);
      memory.writeInt32LE(0, call + INLINED_CALL.startLine);
    }
  }
  // The file tables are read only through pcfile; the names only through name offsets.
  memory.fill(0, t.cutab, t.pctab);
  const names = [...keptNames].map((offset) => [t.funcnames + offset, Buffer.from(nameAt(offset), 'latin1')]);
  memory.fill(0, t.funcnames, t.cutab);
  for (const [at, bytes] of names) bytes.copy(memory, at);
}

/** Each function's name and its table offsets, as the runtime reads them (for tests and reports). */
export function readFunctions(memory) {
  const t = readSymtab(memory);
  return t.funcs.map((f) => {
    const at = t.funcnames + memory.readInt32LE(f + FUNC.nameOff);
    return {
      name: memory.readInt32LE(f + FUNC.nameOff) ? memory.toString('latin1', at, memory.indexOf(0, at)) : '',
      pcsp: memory.readUInt32LE(f + FUNC.pcsp),
      pcfile: memory.readUInt32LE(f + FUNC.pcfile),
      pcln: memory.readUInt32LE(f + FUNC.pcln),
      startLine: memory.readInt32LE(f + FUNC.startLine),
    };
  });
}

// Unsigned LEB128, as both WebAssembly (sizes, counts, indexes) and Go's pc-value tables
// (runtime.readvarint) write their 32-bit numbers.

/** The number at pos.at, which moves past it. */
export function readU32(bytes, pos) {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[pos.at++];
    result |= (b & 0x7f) << shift;
    if (!(b & 0x80)) return result >>> 0;
    shift += 7;
  }
}

/**
 * The engine's call over its exports (raw.ts): Go's uint32 addresses come through WebAssembly's i32
 * as signed numbers, and the engine's memory grows past 2 GiB over long runs (a differential's
 * thousands of policies), where they read negative. A real memory that large; the exports stand for
 * Go's functions, which would need 2 GiB of heap to answer there.
 */
import { expect, it } from 'vitest';
import { rawFromExports } from './raw';

it('writes the arguments and reads the answer at addresses past 2 GiB', () => {
  // 2 GiB and a page: only the pages written are committed
  const mem = new WebAssembly.Memory({ initial: 32769 });
  const request = 2 ** 31 + 8;
  const response = request + 4096;
  const i32 = (address: number) => address | 0; // an exported uint32 as JavaScript receives it
  let sent = '';
  const call = rawFromExports({
    mem,
    celBuffer: () => i32(request),
    celCall: () => {
      const length = new DataView(mem.buffer, request).getUint32(0, true);
      sent = new TextDecoder().decode(new Uint8Array(mem.buffer, request + 4, length));
      const answer = new TextEncoder().encode(`answer to ${sent}`);
      new Uint8Array(mem.buffer, response).set(answer);
      return answer.length;
    },
    celResponse: () => i32(response),
  });
  expect(call(0, ['object.x'])).toBe('answer to object.x');
  expect(sent).toBe('object.x');
});

/** Shared helpers for the CLI tests: an io that records stdout and stderr, with the real file system. */
import type { CliIO } from './main';
import { nodeFileSystem } from './node-io';

/** The real file system, `stdin` as standard input, and what the command printed. */
export function recordingIO(stdin = ''): CliIO & { out: string; err: string } {
  const r = {
    out: '',
    err: '',
    fs: { ...nodeFileSystem, readStdin: async () => new TextEncoder().encode(stdin) },
    stdout: (t: string) => void (r.out += t),
    stderr: (t: string) => void (r.err += t),
  };
  return r;
}

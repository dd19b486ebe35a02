// The user's cache of build outputs that a fresh clone on the same machine can reuse, beside Go's
// own build cache: `$XDG_CACHE_HOME/admission-workbench/<kind>`, else `~/.cache/admission-workbench/<kind>`.
// Each entry is `<stem>-<hash>`, the hash of everything that goes into it, so a hit is the bytes a
// build would make: on a cold disk a build reads about a gigabyte of GOCACHE for each output.
// Other entries of a stem go when unused (their mtime, touched on each hit) for a week: other
// checkouts of the machine, on other branches, may still want them.
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const UNUSED_MS = 7 * 24 * 3600 * 1000;

/** The folder of one kind of cached output (`oracles`, `engines`). */
export function userCacheDir(kind) {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'admission-workbench', kind);
}

/** `path` marked as used now (a hit). */
export function touchEntry(path) {
  const now = new Date();
  utimesSync(path, now, now);
}

/** Removes the entries `<stem>-<hex>` of `dir` other than `keep` that were not used for a week. */
export function evictUnused(dir, stem, keep) {
  const same = new RegExp(`^${stem.replace(/[.]/g, '\\.')}-[0-9a-f]{16}$`);
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (same.test(f) && p !== keep && Date.now() - statSync(p).mtimeMs > UNUSED_MS) rmSync(p, { force: true });
  }
}

/** The cached `<stem>-<key>` of `kind` (marked used), or undefined. */
export function fromCache(kind, stem, key) {
  const p = join(userCacheDir(kind), `${stem}-${key.slice(0, 16)}`);
  if (!existsSync(p)) return undefined;
  touchEntry(p);
  return p;
}

/** Copies `file` into the cache as `<stem>-<key>` (through a temporary name: a reader never sees half a file). */
export function keepInCache(kind, stem, key, file) {
  const dir = userCacheDir(kind);
  mkdirSync(dir, { recursive: true });
  const p = join(dir, `${stem}-${key.slice(0, 16)}`);
  const tmp = `${p}.${process.pid}.tmp`;
  copyFileSync(file, tmp);
  renameSync(tmp, p);
  evictUnused(dir, stem, p);
}

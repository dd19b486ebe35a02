export function userCacheDir(kind: string): string;
export function touchEntry(path: string): void;
export function evictUnused(dir: string, stem: string, keep: string): void;
export function fromCache(kind: string, stem: string, key: string): string | undefined;
export function keepInCache(kind: string, stem: string, key: string, file: string): void;

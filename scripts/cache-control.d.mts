// Types of scripts/cache-control.mjs (imported by vite.config.ts).
export const IMMUTABLE: string;
export const REVALIDATE: string;
/** The Cache-Control header for a path of the built site relative to its base, and the request's query. */
export function cacheControl(path: string, search?: string): string;

// Types of scripts/generate-schemas.mjs (npm run schemas:generate) for its tests.
export function schemaBuilds(): Record<string, { modfile: string; kubernetes: string; modules: Record<string, string> }>;
export function dataDifferences(a: string, b: string): string[];
export function deriveSchemas(release: string, modfile: string, work: string): unknown;
export function checkWarnings(release: string, modfile: string, update: boolean): boolean;

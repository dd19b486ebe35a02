// Types of scripts/typed-data.mjs (the checked-in type data's layout) for its tests.
export const TYPED_DATA_DIR: string;
export function typedDataFile(release: string): string;
export function formatTypedData(asset: unknown): string;
export function deriveTypedData(bin: string, work: string, release: string): string;
export function typedDifferences(a: string, b: string): string[];

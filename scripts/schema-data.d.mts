// Types of scripts/schema-data.mjs (the checked-in schema data's layout) for its tests.
export interface SchemaData {
  release: string;
  generatedBy?: string;
  modules: Record<string, string>;
  gvks: Record<string, string>;
  definitions: Record<string, unknown>;
}
export const SCHEMA_DATA_DIR: string;
export function schemaDataReleases(): string[];
export function schemaDataFile(release: string): string;
export function formatSchemaData(asset: SchemaData): string;
export function assetFromData(text: string): string;

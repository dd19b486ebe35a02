export const CODE_TOOLS_DIR: string;
export const PKL_VERSION: string;
export const JSONNET_MODULE: string;
export const K8S_OPENAPI: string;
type Tool<K extends string> = ({ [k in K]: string } & { missing?: undefined }) | { missing: string };
export function ensureCodeTools(feature?: string): { pkl: Tool<'bin'>; jsonnet: Tool<'bin'>; cargo: Tool<'dir'> };

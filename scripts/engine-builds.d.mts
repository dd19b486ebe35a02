export interface EngineBuild {
  name: string;
  isDefault: boolean;
  modfile: string;
  sumfile: string;
  wasm: string;
  native: string;
  tags: string[];
  toolchain: string | undefined;
  rewriteCelGo: boolean;
}
export const engineSrcDir: string;
export function engineBuilds(dir?: string): EngineBuild[];
export function engineBuild(name?: string): EngineBuild;
export function prepareEngineTree(build: EngineBuild, work: string, options?: { keepTests?: boolean }): void;
export function engineGoEnv(build: EngineBuild, env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;

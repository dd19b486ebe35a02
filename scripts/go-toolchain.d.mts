export function toolchainOf(modText: string): string | undefined;
export function goEnvFor(modPath: string, env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;

// The Go toolchain a module file asks for: its `toolchain` line (e.g. `toolchain go1.27.3` in a
// go.1.38.mod, whose modules need Go 1.27) becomes GOTOOLCHAIN for the go command that builds
// with it, so a machine whose own Go is older (and set to GOTOOLCHAIN=local, as Debian's is)
// fetches that release from the Go proxy instead of refusing. No line: the environment as it is.
import { readFileSync } from 'node:fs';

/** The `toolchain` directive of a go.mod text, or undefined. */
export const toolchainOf = (modText) => /^toolchain\s+(go\d+\.\d+(?:\.\d+)?)\s*$/m.exec(modText)?.[1];

/** `env` with GOTOOLCHAIN set to the toolchain `modPath` names (unchanged when it names none). */
export function goEnvFor(modPath, env = process.env) {
  const toolchain = toolchainOf(readFileSync(modPath, 'utf8'));
  return toolchain ? { ...env, GOTOOLCHAIN: toolchain } : env;
}

/**
 * Setting V8 flags from the server at run time, for its start-up tunings
 * (young-generation.ts, start-up-tiering.ts). A tuning, never a requirement:
 * a flag is set only on the V8 versions known to have it (an unknown flag
 * would make V8 write an error), never when the operator set a related flag
 * on node's command line or in NODE_OPTIONS, and a refusal is ignored.
 */
import v8 from "node:v8";

/** V8 major versions whose flag lists have the flags the tunings set: Node 20 (11.3), 22 (12.4), 24 (13.6). */
const KNOWN_V8_MAJORS = new Set([11, 12, 13]);

/** A flag's name as V8 reads it: `_` and `-` alike, `--no-x` is `--x`, the value apart. */
function flagName(arg: string): string {
  return (arg.replaceAll("_", "-").split("=")[0] ?? "").replace(/^--no-/u, "--");
}

/**
 * Whether Torii may set flags among `names` (each `--name`): this V8 is known,
 * and neither node's command line nor NODE_OPTIONS names one of them.
 */
export function mayTuneV8(names: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (!KNOWN_V8_MAJORS.has(Number(process.versions.v8.split(".")[0]))) return false;
  const operatorArgs = [...process.execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/u)];
  return !operatorArgs.some((arg) => names.includes(flagName(arg)));
}

/** Sets `flags` (V8's command-line syntax) now; a refusal is ignored, since a tuning must never stop the server. */
export function setV8Flags(flags: string): void {
  try {
    v8.setFlagsFromString(flags);
  } catch {
    // Left as it was.
  }
}

/**
 * Keeps V8's young generation small while the server starts, and gives it back
 * its default growth when the first tool call loads the call side.
 *
 * Why: start-up objects (the parsed configuration, the SDK's and zod's module
 * state, the tool list) survive the scavenges they meet, and every surviving
 * scavenge doubles the semi-spaces, so an idle server would keep 8 MiB of young
 * generation of which it uses under 2 (measured: about 4 MiB of idle RSS). A
 * growth factor of 1 keeps them at their start size without costing start-up
 * time; for the whole life it would cost some 2 ms of CPU per call (more
 * scavenges), so the call side runs with V8's default, as it always has.
 *
 * A tuning, never a requirement: it is applied only on the V8 versions known to
 * have the flag (an unknown flag would make V8 write an error), and never when
 * the operator set it on node's command line (NODE_OPTIONS cannot carry it).
 */
import v8 from "node:v8";

const FLAG = "--semi-space-growth-factor";
/** V8's default for the flag on every version below (`node --v8-options`). */
const DEFAULT_FACTOR = 2;
/** V8 major versions whose flag list has the flag with that default: Node 20 (11.3), 22 (12.4), 24 (13.6). */
const KNOWN_V8_MAJORS = new Set([11, 12, 13]);

function tunable(): boolean {
  const major = Number(process.versions.v8.split(".")[0]);
  if (!KNOWN_V8_MAJORS.has(major)) return false;
  // V8 reads `_` and `-` alike in flag names.
  return !process.execArgv.some((arg) => arg.replaceAll("_", "-").startsWith(FLAG));
}

function setGrowthFactor(factor: number): void {
  if (!tunable()) return;
  try {
    v8.setFlagsFromString(`${FLAG}=${factor}`);
  } catch {
    // A memory tuning must never stop the server.
  }
}

/** Stops the young generation from growing: call before start-up allocates. */
export function holdYoungGenerationSmall(): void {
  setGrowthFactor(1);
}

/** Gives the young generation V8's default growth back: call before the first tool call's work. */
export function releaseYoungGeneration(): void {
  setGrowthFactor(DEFAULT_FACTOR);
}

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
 * have the flag, and never when the operator set it on node's command line (v8-flags.ts).
 */
import { mayTuneV8, setV8Flags } from "./v8-flags.js";

const FLAG = "--semi-space-growth-factor";
/** V8's default for the flag on every version v8-flags.ts knows (`node --v8-options`). */
const DEFAULT_FACTOR = 2;

function setGrowthFactor(factor: number): void {
  if (mayTuneV8([FLAG])) setV8Flags(`${FLAG}=${factor}`);
}

/** Stops the young generation from growing: call before start-up allocates. */
export function holdYoungGenerationSmall(): void {
  setGrowthFactor(1);
}

/** Gives the young generation V8's default growth back: call before the first tool call's work. */
export function releaseYoungGeneration(): void {
  setGrowthFactor(DEFAULT_FACTOR);
}

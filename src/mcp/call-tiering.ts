/**
 * Raises the work a function must do before V8's optimising compiler
 * (TurboFan) takes it, for the server's calls.
 *
 * Why: most of a call's JavaScript is glue each call runs once (the pipeline's
 * steps, the audit append, the PATH search, the SDK's message handling). With
 * V8's default (three interrupt-budget ticks) each such function crosses the
 * threshold after a few hundred calls, so a server kept compiling a trickle of
 * them, one every few calls, on its background threads, for thousands of calls:
 * measured with callgrind over calls 41-140 of a plain call, the compiler
 * threads executed 2.0 M instructions per call against 2.9 M on the main thread.
 * Ten times the ticks moves that glue's compilation past the first few thousand
 * calls (a long session still gets it, once), while the loops that do
 * user-sized work (a policy of 10,000 rules, the redaction of megabytes of
 * output) spend a tick's budget within one call and are optimised as before.
 *
 * Set only on V8 11 (Node 20), whose flag list has `--ticks-before-optimization`
 * (later V8s count invocations instead; their defaults are left alone), and
 * never when the operator set the flag on node's command line or in NODE_OPTIONS.
 */
import { mayTuneV8, setV8Flags } from "./v8-flags.js";

const FLAG = "--ticks-before-optimization";
/** V8's default is 3. */
export const CALL_TICKS_BEFORE_OPTIMIZATION = 30;
/** The V8 major version whose tiering reads the flag as above. */
const TICKING_V8_MAJOR = 11;

/** Raises the threshold: call before the first tool call's work. */
export function raiseOptimisationThreshold(v8Version: string = process.versions.v8): void {
  if (Number(v8Version.split(".")[0]) !== TICKING_V8_MAJOR) return;
  if (mayTuneV8([FLAG])) setV8Flags(`${FLAG}=${CALL_TICKS_BEFORE_OPTIMIZATION}`);
}

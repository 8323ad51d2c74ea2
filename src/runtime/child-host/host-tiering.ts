/**
 * The child host runs with V8's optimising compiler (TurboFan) off for its
 * whole life; its interpreter and baseline compiler (Sparkplug) stay.
 *
 * Why: the host's JavaScript is glue around each launch (an IPC message in,
 * the launcher's set-up, a few stream and exit callbacks, two messages out);
 * the bytes of a call's output are handled by Buffer and TextDecoder, native
 * code either way. Each of those functions runs once per call, so over a
 * session of a few hundred calls most of them become hot only slowly and
 * TurboFan keeps compiling them on a background thread: in a profile of 400
 * calls after a warm-up, 5.7% of the host's CPU was that compiler, for code
 * that is not where the host's time goes (its own `fork` is). Compiled code
 * and the compiler's memory also add to the pages every `fork` copies.
 *
 * The host is started with no Node options and an empty environment
 * (host-process.ts), so no operator flag reaches it to be overridden; a V8
 * without the flag refuses it and the host runs as before.
 */
import v8 from "node:v8";

/**
 * The V8 flags the host is started with (the only arguments before its file:
 * host-process.ts). `--single-threaded`: V8 posts no background tasks, so the
 * collector's work for the host's small heap runs on its one thread and V8's
 * worker threads stay asleep. Each launch's `fork` write-protects every page
 * the host has written; the faults that follow also flush the TLB of every CPU
 * the host's threads ran on, and fewer running threads mean fewer of those.
 * Measured: 0.3-0.5 ms less host CPU per call under load (docs/architecture.md,
 * "Seventh pass"); the host's JavaScript is unchanged.
 */
export const HOST_V8_FLAGS: readonly string[] = ["--single-threaded"];

/** Turns TurboFan off for this process: call before the host's first launch. */
export function keepHostUnoptimised(): void {
  try {
    v8.setFlagsFromString("--no-turbofan");
  } catch {
    // A tuning, never a requirement: left as it was.
  }
}

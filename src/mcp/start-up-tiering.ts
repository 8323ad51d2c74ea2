/**
 * Keeps V8's optimising compiler (TurboFan) off while the server starts, and
 * turns it back on when the first tool call loads the call side.
 *
 * Why: start-up code runs once. With the bundled providers installed, a few of
 * its loops (the option and file-write tables, the grammar compile, path
 * normalisation in the trust walks) ran often enough to be optimised on a
 * background thread: CPU spent on code that never ran again, and about 5 MiB
 * of idle RSS (measured: the compiler's own code paged in and its memory kept).
 * Without it the loops run in V8's interpreter and baseline code. Calls run as
 * before: the compiler is back before the first call's work.
 *
 * Left alone when the operator set the compiler's flags (or --jitless) on
 * node's command line or in NODE_OPTIONS (v8-flags.ts).
 */
import { mayTuneV8, setV8Flags } from "./v8-flags.js";

/** The flags that decide whether TurboFan runs; any of them set by the operator wins. */
const COMPILER_FLAGS = ["--turbofan", "--opt", "--max-opt", "--jitless"];

/** Turns TurboFan off: call before the start-up's work. */
export function holdOptimisingCompiler(): void {
  if (mayTuneV8(COMPILER_FLAGS)) setV8Flags("--no-turbofan");
}

/** Turns TurboFan back on: call before the first tool call's work. */
export function releaseOptimisingCompiler(): void {
  if (mayTuneV8(COMPILER_FLAGS)) setV8Flags("--turbofan");
}

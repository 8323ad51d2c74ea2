/**
 * The place of an AWS child for the identity tests that do not judge where it
 * runs: this process's working directory, and Torii's own code directory as the
 * real server names it (stsInputsOf takes the place from its caller).
 */
import type { ProcessPlace } from "../../src/pipeline/identity/aws-call-plan.js";
import { toriiCodeDirectory } from "../../src/runtime/own-code.js";

/** A child running in this process's working directory. */
export function herePlace(): ProcessPlace {
  return { cwd: process.cwd(), selfDir: toriiCodeDirectory(), platform: process.platform };
}

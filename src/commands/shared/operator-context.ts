/**
 * What every operator command needs first: the configuration root, and a way to
 * report a problem on stderr with a non-zero exit code instead of a stack trace.
 */
import os from "node:os";
import { ConfigError } from "../../config/errors.js";
import { resolveConfigRoot } from "../../config/paths.js";
import { unseenEscapesByLine } from "../../runtime/display-text.js";

/** Exit code of a command that could not run: bad input or a configuration error. */
export const EXIT_USAGE = 3;

/** A problem the operator can fix; printed without a stack trace. */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
  }
}

/** The configuration root for this process (`TORII_CONFIG_DIR` or the platform default). */
export function configRoot(): string {
  return resolveConfigRoot(process.env, process.platform, os.homedir());
}

/**
 * `message` with every character that does not show on screen (C1 controls such as a CSI, bidi overrides, zero-width
 * marks) written as `\u{…}`, line by line so its line breaks stay: an error may quote a file an agent wrote (a
 * cloned project's `.mcp.json` with a repeated key), and what a terminal would act on must not reach it raw.
 */
export function visibleMessage(message: string): string {
  return unseenEscapesByLine(message);
}

/** Prints an operator-facing error and returns the exit code to use. */
export function reportFailure(error: unknown): number {
  if (error instanceof OperatorError) {
    process.stderr.write(`torii: ${visibleMessage(error.message)}\n`);
    return error.exitCode;
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`torii: configuration error\n${visibleMessage(error.message)}\n`);
    return EXIT_USAGE;
  }
  process.stderr.write(`torii: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 70;
}

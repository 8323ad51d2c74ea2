/**
 * The lease and grant stores' failures, as operator errors: a state file that
 * is invalid (exit 3, with its path and kind and how to recover), a lock held
 * by another process, or a file-system error (exit 1). Never a stack trace.
 */
import { LockCompromisedError, LockTimeoutError, StaleRevisionError, StateError, StateWrittenError } from "../../state/errors.js";
import { EXIT_USAGE, OperatorError } from "./operator-context.js";

/** Exit code of a state command that found an invalid state file or could not finish. */
export const EXIT_STATE_PROBLEM = 1;

/** A state file's problem as the JSON output carries it. */
export interface StateProblem {
  readonly file: string;
  readonly kind: StateError["kind"];
  readonly message: string;
}

export function stateProblem(error: StateError): StateProblem {
  return { file: error.file, kind: error.kind, message: error.detail };
}

/** One line naming the invalid file, its kind and what the store said. */
export function stateProblemText(error: StateError): string {
  return `${error.file} is unusable (${error.kind}): ${error.detail}`;
}

/**
 * Runs a change to a state file; a failure becomes an OperatorError that says
 * what could not be done (`what`) and, for an invalid file, how to recover
 * (`recovery`, e.g. the `clear` command that moves the file aside).
 */
export async function changeState<T>(what: string, recovery: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    throw asOperatorError(error, what, recovery);
  }
}

function asOperatorError(error: unknown, what: string, recovery: string): unknown {
  // The new state was renamed into place before something failed: it is in force; the file is fine.
  if (error instanceof StateWrittenError) {
    return new OperatorError(`${what}: ${error.file}: ${error.detail}; check the state before retrying`, EXIT_STATE_PROBLEM);
  }
  if (error instanceof StateError) {
    return new OperatorError(`cannot ${what}: ${stateProblemText(error)}; nothing was changed${recovery === "" ? "" : `; ${recovery}`}`, EXIT_USAGE);
  }
  if (error instanceof LockTimeoutError || error instanceof LockCompromisedError || error instanceof StaleRevisionError) {
    return new OperatorError(`cannot ${what}: ${error.message}; nothing was changed, try again`, EXIT_STATE_PROBLEM);
  }
  if (error instanceof Error && "code" in error && typeof error.code === "string") {
    return new OperatorError(`cannot ${what}: ${error.message}`, EXIT_STATE_PROBLEM);
  }
  return error;
}

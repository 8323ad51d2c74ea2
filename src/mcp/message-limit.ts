/**
 * One tool result must fit in one MCP message a client can read. The SDK's
 * stdio client drops the whole connection (not just the call) when a single
 * message grows past its read buffer (10 MiB, `STDIO_DEFAULT_MAX_BUFFER_SIZE`),
 * and a result carries the program's output twice (as `structuredContent` and
 * as JSON text in `content`), each time JSON-escaped: a control byte becomes
 * `\u0001`, six bytes, then seven once that text is itself escaped. So
 * `max_output_bytes` alone (up to 1 GiB) does not bound the message: an 800 KiB
 * output of control bytes already passes 10 MiB.
 *
 * An execution whose result would pass MESSAGE_BUDGET_BYTES has its stdout and
 * stderr cut (from the end, never inside a surrogate pair) until it fits, and
 * is reported `truncated` with a note saying why. The budget leaves room below
 * 10 MiB for the JSON-RPC envelope and for another message already buffered.
 */
import type { CallExecution, CallOutcome } from "../pipeline/call-types.js";

/** The most a call's result may take once serialised, in UTF-8 bytes. */
export const MESSAGE_BUDGET_BYTES = 8 * 1024 * 1024;

/** The most UTF-8 bytes one UTF-16 unit of output can take in a result (a control character: 6 in structuredContent, 7 in content). */
const WORST_BYTES_PER_UNIT = 13;
/** A bound on everything in a result besides the output: decision, reason, grant suggestions, summary. */
const FRAME_ALLOWANCE_BYTES = 256 * 1024;

/** What fitting did to an outcome. */
export interface FittedOutcome {
  readonly outcome: CallOutcome;
  /** Whether the output was cut to fit one message. */
  readonly cut: boolean;
}

/**
 * `outcome` with its output cut so that `serialisedBytes(outcome)` stays within
 * `budget`. Outputs small enough to fit whatever they hold are returned as they
 * are without serialising anything (the default 256 KiB cap always is).
 */
export function fitOutcomeToMessage(outcome: CallOutcome, serialisedBytes: (outcome: CallOutcome) => number, budget = MESSAGE_BUDGET_BYTES): FittedOutcome {
  const execution = outcome.execution;
  if (execution === undefined) return { outcome, cut: false };
  const units = execution.stdout.length + execution.stderr.length;
  if (units * WORST_BYTES_PER_UNIT + FRAME_ALLOWANCE_BYTES <= budget) return { outcome, cut: false };
  let size = serialisedBytes(outcome);
  if (size <= budget) return { outcome, cut: false };
  // Each round scales the output by the share of the budget it may take; the
  // escaping density of what is kept can differ from what was cut, so repeat.
  let current = execution;
  for (let round = 0; size > budget && round < 32; round += 1) {
    const keepShare = Math.max(0, Math.min(0.95, (budget / size) * 0.95));
    current = cutExecution(current, keepShare);
    size = serialisedBytes({ ...outcome, execution: current });
  }
  if (size > budget) current = cutExecution(current, 0);
  return { outcome: { ...outcome, execution: current }, cut: true };
}

/** `execution` keeping the first `share` of each stream, marked truncated. */
function cutExecution(execution: CallExecution, share: number): CallExecution {
  return {
    ...execution,
    stdout: headOf(execution.stdout, Math.floor(execution.stdout.length * share)),
    stderr: headOf(execution.stderr, Math.floor(execution.stderr.length * share)),
    truncated: true,
  };
}

/** The first `units` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
function headOf(text: string, units: number): string {
  if (units >= text.length) return text;
  const last = text.charCodeAt(units - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? units - 1 : units;
  return text.slice(0, Math.max(0, end));
}

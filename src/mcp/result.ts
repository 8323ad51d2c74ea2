/**
 * Tool results: every result carries the same structure in `structuredContent`
 * and, as text, in `content` (clients differ in which they read). A denial or
 * an operational error is a result with `isError`, never a crash, and its text
 * starts with a sentence saying why.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallOutcome } from "../pipeline/call-types.js";
import { fitOutcomeToMessage, MESSAGE_BUDGET_BYTES } from "./message-limit.js";

export function structuredResult(summary: string, structured: Record<string, unknown>, isError: boolean): CallToolResult {
  return {
    content: [{ type: "text", text: `${summary}\n\n${JSON.stringify(structured, null, 2)}` }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

function summarise(outcome: CallOutcome, cutToFit: boolean): string {
  const { decision } = outcome;
  if (decision.result === "deny") {
    const grant = decision.grants === undefined ? "" : ` The operator could allow it with: ${decision.grants.exact.command}`;
    return `Denied (${decision.source}): ${decision.reason}.${grant}`;
  }
  if (outcome.error !== undefined) return `Allowed (${decision.source}), but it could not run: ${outcome.error}`;
  const execution = outcome.execution;
  if (execution === undefined) return `Allowed (${decision.source}).`;
  const notes = [
    execution.timed_out ? "timed out and was killed" : "",
    execution.canceled ? "was canceled" : "",
    cutToFit
      ? `output was cut to fit one MCP message (${MESSAGE_BUDGET_BYTES / 1024 / 1024} MiB)`
      : execution.truncated
        ? "output was truncated at the cap"
        : "",
  ].filter((note) => note !== "");
  const status = execution.exit_code === null ? `ended by ${execution.signal ?? "a signal"}` : `exited with code ${execution.exit_code}`;
  return `Ran (${decision.source}): ${status}${notes.length > 0 ? `; ${notes.join("; ")}` : ""}.`;
}

/** The result of a provider call. A non-zero exit code is a normal result; a denial or a failure to run is an error result. */
export function callResult(outcome: CallOutcome): CallToolResult {
  const isError = outcome.decision.result === "deny" || outcome.error !== undefined;
  const build = (fitted: CallOutcome, cut: boolean): CallToolResult =>
    structuredResult(summarise(fitted, cut), fitted as unknown as Record<string, unknown>, isError);
  const fitted = fitOutcomeToMessage(outcome, (candidate) => Buffer.byteLength(JSON.stringify(build(candidate, true))));
  return build(fitted.outcome, fitted.cut);
}

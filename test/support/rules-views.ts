/**
 * One server, several rule sets. A server reads its rules on every call
 * (src/pipeline/policy-cache.ts: an edit takes effect without a restart), so a
 * test file that asks the same provider questions under two rules files needs
 * one server, not one per rules file: each view writes its rules before each
 * of its calls. Calls through views must not overlap (tests await each call).
 */
import { writeFileSync } from "node:fs";
import type { McpSession } from "./mcp-session.js";

/** What a test calls through: the session's `call`. */
export type CallView = Pick<McpSession, "call">;

/** A view of `session` whose every call runs under `rules`, written to `rulesFile` first. */
export function underRules(session: McpSession, rulesFile: string, rules: string): CallView {
  return {
    call(name, args, options) {
      writeFileSync(rulesFile, rules);
      return session.call(name, args, options);
    },
  };
}

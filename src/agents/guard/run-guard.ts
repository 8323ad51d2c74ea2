/**
 * One run of the shell guard: a client's hook input in, the client's reply
 * out. Every failure blocks (fail closed) with a reason the agent can act on:
 * input that is not JSON, a shell tool without a command, a command line the
 * guard cannot read.
 */
import { findGuardedUse, type GuardFinding } from "./command-analysis.js";
import { withOperatorCli, type GuardedClis } from "./guarded-clis.js";
import { allowReply, blockReply, detectClient, questionOf, type GuardClient, type HookReply } from "./hook-protocols.js";

/** Decides on `inputText` (the hook's stdin) for `client` (detected from the input when undefined). */
export function runGuard(client: GuardClient | undefined, inputText: string, guarded: GuardedClis): HookReply {
  let input: unknown;
  try {
    input = JSON.parse(inputText);
  } catch {
    return blockReply(client, "Torii guard: the hook input is not JSON, so the command is blocked.");
  }
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return blockReply(client, "Torii guard: the hook input is not a JSON object, so the command is blocked.");
  const record = input as Record<string, unknown>;
  const speaker = client ?? detectClient(record);
  if (speaker === undefined)
    return blockReply(undefined, "Torii guard: the hook input is from no client the guard knows (install it with --client), so the command is blocked.");
  const question = questionOf(speaker, record);
  if (question.kind === "none") return allowReply(speaker);
  if (question.kind === "invalid") return blockReply(speaker, `Torii guard: ${question.why}, so the command is blocked.`);
  const finding = findGuardedUse(question.command, withOperatorCli(guarded.clis));
  if (finding === undefined) return allowReply(speaker);
  return blockReply(speaker, explain(finding, guarded));
}

/** The refusal as the agent reads it: what was found, and the MCP tool to use instead. */
export function explain(finding: GuardFinding, guarded: GuardedClis): string {
  const note = guarded.problem === undefined ? "" : ` (${guarded.problem}.)`;
  if (finding.kind === "guarded-cli" && finding.cli.operatorOnly === true) {
    return (
      `Torii guard: this command runs ${finding.program}, Torii's operator CLI. Approvals, grants, leases and rules are the human operator's to change, ` +
      `never the agent's: ask the operator, and use the torii server's MCP tools (torii_policy shows what is allowed). Do not retry through another spelling, wrapper or script.${note}`
    );
  }
  if (finding.kind === "guarded-cli") {
    return (
      `Torii guard: this command runs ${finding.program} directly, and ${finding.cli.command} is brokered by Torii. ` +
      `Call the MCP tool "${finding.cli.tool}" of the torii server instead, with the arguments as a JSON array (without the program name); ` +
      `torii_policy shows what the operator allows. Do not retry through another spelling, wrapper or script.${note}`
    );
  }
  const tools = [...new Set([...guarded.clis.values()].map((cli) => `${cli.command} → "${cli.tool}"`))].join(", ");
  return (
    `Torii guard: this command is blocked because the guard cannot tell what it runs (${finding.reason}). ` +
    `Rewrite it with a literal program name and plain quoting. The CLIs Torii brokers must be called through its MCP tools: ${tools}.${note}`
  );
}

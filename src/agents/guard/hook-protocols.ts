/**
 * The pre-tool hook protocols of the clients that have one: where each puts the
 * shell command in the JSON it writes to the hook's stdin, and how each reads a
 * refusal. Checked against each client's hook documentation (docs/guard.md):
 *
 * - Claude Code `PreToolUse` and Codex `PreToolUse` (tool `Bash`), Gemini CLI
 *   `BeforeTool` (tool `run_shell_command`): `tool_input.command`; a refusal is
 *   exit code 2 with the reason on stderr, which all three send to the model;
 * - Cursor `beforeShellExecution`: `command`; a refusal is
 *   `{"permission":"deny",…}` on stdout;
 * - GitHub Copilot CLI `preToolUse` (tool `bash` or `powershell`): `toolArgs`
 *   (a JSON string) `.command`; a refusal is `{"permissionDecision":"deny",…}`.
 *
 * An allow never says "allow" (that would skip the client's own confirmation):
 * it is exit 0 with no decision.
 */
export const GUARD_CLIENTS = ["claude-code", "codex", "gemini-cli", "cursor", "copilot-cli"] as const;
export type GuardClient = (typeof GUARD_CLIENTS)[number];

/** What the hook process writes and exits with. */
export interface HookReply {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The shell command a hook input asks about; `none` for a tool that is not a shell; `invalid` with why. */
export type HookQuestion =
  { readonly kind: "shell"; readonly command: string } | { readonly kind: "none" } | { readonly kind: "invalid"; readonly why: string };

const SHELL_TOOLS: Readonly<Record<GuardClient, readonly string[]>> = {
  "claude-code": ["Bash"],
  codex: ["Bash", "shell", "exec_command", "local_shell"],
  "gemini-cli": ["run_shell_command"],
  cursor: [],
  "copilot-cli": ["bash", "powershell", "shell"],
};

/** Which client wrote `input`, from the fields only that client sends (when the hook was installed without --client). */
export function detectClient(input: Record<string, unknown>): GuardClient | undefined {
  if (input.hook_event_name === "BeforeTool") return "gemini-cli";
  if (input.hook_event_name === "beforeShellExecution") return "cursor";
  if (input.hook_event_name === "PreToolUse") return "claude-code";
  if ("toolName" in input) return "copilot-cli";
  return undefined;
}

/** Reads the question out of a client's hook input. */
export function questionOf(client: GuardClient, input: Record<string, unknown>): HookQuestion {
  if (client === "cursor") return commandField(input.command);
  const tool = client === "copilot-cli" ? input.toolName : input.tool_name;
  if (typeof tool !== "string") return { kind: "invalid", why: "the hook input names no tool" };
  if (!SHELL_TOOLS[client].includes(tool)) return { kind: "none" };
  if (client !== "copilot-cli") return commandField(objectOf(input.tool_input)?.command);
  const args = typeof input.toolArgs === "string" ? parseObject(input.toolArgs) : objectOf(input.toolArgs);
  return commandField(args?.command);
}

/** The reply that lets the command run (the client's own approval still applies). */
export function allowReply(client: GuardClient): HookReply {
  const stdout = client === "gemini-cli" || client === "cursor" ? "{}\n" : "";
  return { exitCode: 0, stdout, stderr: "" };
}

/** The reply that refuses the command, with `reason` for the agent (and the human watching). */
export function blockReply(client: GuardClient | undefined, reason: string): HookReply {
  if (client === "cursor") {
    return { exitCode: 0, stdout: `${JSON.stringify({ permission: "deny", user_message: reason, agent_message: reason })}\n`, stderr: `${reason}\n` };
  }
  if (client === "copilot-cli") {
    return { exitCode: 0, stdout: `${JSON.stringify({ permissionDecision: "deny", permissionDecisionReason: reason })}\n`, stderr: `${reason}\n` };
  }
  return { exitCode: 2, stdout: "", stderr: `${reason}\n` };
}

function commandField(value: unknown): HookQuestion {
  if (typeof value === "string") return { kind: "shell", command: value };
  if (Array.isArray(value) && value.every((part) => typeof part === "string")) {
    // An argv (Codex may send one): its first element is the program, as the guard reads it.
    return { kind: "shell", command: value.map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(" ") };
  }
  return { kind: "invalid", why: "the hook input has no shell command" };
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return objectOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}

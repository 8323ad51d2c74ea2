/**
 * `torii guard`: reads the hook input from stdin (at most 1 MiB), decides, and
 * answers in the client's protocol. Anything that goes wrong blocks: the hook
 * is a speed bump that fails closed, never one that fails open.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { loadGuardedClis } from "../../agents/guard/guarded-clis.js";
import { blockReply, GUARD_CLIENTS, type GuardClient } from "../../agents/guard/hook-protocols.js";
import { runGuard } from "../../agents/guard/run-guard.js";

const MAX_INPUT_BYTES = 1024 * 1024;

async function readStdin(): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Runs the guard; returns the exit code the client reads. */
export async function runGuardCommand(options: { client?: string; config?: string }): Promise<number> {
  const client = GUARD_CLIENTS.find((name): name is GuardClient => name === options.client);
  let reply;
  try {
    const input = await readStdin();
    const env = options.config === undefined ? process.env : { ...process.env, TORII_CONFIG_DIR: options.config };
    reply =
      input === undefined
        ? blockReply(client, "Torii guard: the hook input is larger than 1 MiB, so the command is blocked.")
        : runGuard(client, input, await loadGuardedClis(env, process.platform, os.homedir()));
  } catch (error) {
    reply = blockReply(client, `Torii guard: an unexpected error blocked the command: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.stdout.write(reply.stdout);
  process.stderr.write(reply.stderr);
  return reply.exitCode;
}

/**
 * `torii guard …` as cli.ts runs it, without commander (start-up time counts on
 * every shell command). The options are those guard-command.ts declares; a
 * word it does not know blocks, like every other failure.
 */
export async function runGuardFromArgv(argv: readonly string[]): Promise<number> {
  let options: { client?: string; config?: string };
  try {
    ({ values: options } = parseArgs({
      args: [...argv],
      options: { client: { type: "string" }, config: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`Torii guard: ${error instanceof Error ? error.message : String(error)}; the command is blocked.\n`);
    return 2;
  }
  if (options.client !== undefined && !GUARD_CLIENTS.some((name) => name === options.client)) {
    process.stderr.write(`Torii guard: unknown --client ${JSON.stringify(options.client)} (one of ${GUARD_CLIENTS.join(", ")}); the command is blocked.\n`);
    return 2;
  }
  return runGuardCommand(options);
}

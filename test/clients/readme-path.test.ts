/**
 * The README's path from a clone to an allowed `kubectl get pods`, end to end:
 * the "Install and register" block, read from README.md, is run as written in a
 * copy of this checkout (npm ci, npm run build) and a sandbox machine (own HOME,
 * the default configuration root under it, a kubeconfig whose context points at
 * a local Kubernetes API stub, the real kubectl). `setup` is answered in a
 * pseudo-terminal; then the real Claude Code must list Torii as connected, and
 * the SDK's real client, launched with exactly the command line Claude Code
 * registered, asks for what the README says to ask for and gets the stub's
 * pods. No model and no API key anywhere.
 */
import { readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CallOutcome } from "../../src/pipeline/call-types.js";
import { startKubeApiStub, type KubeApiStub } from "../support/kube-api-stub.js";
import { DOWN, ptyCommand } from "../support/pty-session.js";
import { clientBin, NPM_ENV, run } from "./support/real-clients.js";
import { copyOfCheckout, operatorSandbox, readmeInstallPath, type OperatorSandbox, type ReadmeCommand } from "./support/readme-path.js";

const { commands, ask } = readmeInstallPath();
const CONTEXT = "lab";
let api: KubeApiStub;
let clone: string | undefined;

beforeAll(async () => {
  api = await startKubeApiStub(["readme-pod-1", "readme-pod-2"]);
});

afterAll(async () => {
  await api.close();
  // The copy holds a whole node_modules: not left behind in the temporary folder.
  if (clone !== undefined) rmSync(clone, { recursive: true, force: true });
});

/** Answers the wizard as a newcomer would: kubectl with its readonly preset, a target of the one context, its lease, no rule changes, no client yet. */
async function answerSetup(argv: ReadmeCommand, clone: string, sandbox: OperatorSandbox): Promise<void> {
  const wizard = ptyCommand([process.execPath, ...argv.slice(1)], sandbox.env, clone);
  await wizard.expect("Install which providers?"); // kubectl is the only bundled CLI on this PATH
  await wizard.expect("⏎ submit");
  wizard.send(" \r");
  await wizard.expect("Rules to start kubectl with:");
  wizard.send("\r");
  await wizard.expect("installed kubectl with the readonly preset");
  await wizard.expect("Make targets of which contexts?");
  wizard.send(" \r");
  await wizard.expect("Activate a target now");
  wizard.send(`${DOWN}\r`);
  await wizard.expect("Review or change rules of:");
  wizard.send("\r");
  await wizard.expect("Register Torii with which clients?"); // none here: the README's next command registers Claude Code
  wizard.send("\r");
  await wizard.expect("torii doctor: no problem that would stop a call");
  expect(await wizard.exited, wizard.output()).toBe(0);
}

/** Runs one command of the block: npm with this machine's npm settings, Torii in the sandbox (setup in a pseudo-terminal). */
async function runReadmeCommand(argv: ReadmeCommand, clone: string, sandbox: OperatorSandbox): Promise<void> {
  const [program, ...args] = argv;
  if (program === "npm") {
    const result = await run("npm", args, { home: os.homedir(), cwd: clone, env: NPM_ENV });
    expect(result.status, `${argv.join(" ")}: ${result.stderr}`).toBe(0);
    return;
  }
  expect(program).toBe("node");
  if (args[1] === "setup") return answerSetup(argv, clone, sandbox);
  const result = await run(process.execPath, args, { home: sandbox.home, cwd: clone, env: sandbox.env });
  expect(result.status, `${argv.join(" ")}:\n${result.stdout}${result.stderr}`).toBe(0);
}

/** Claude Code's entry for Torii in ~/.claude.json: the command line it launches. */
function registeredServer(home: string): { command: string; args: string[]; env?: Record<string, string> } {
  const config = JSON.parse(readFileSync(path.join(home, ".claude.json"), "utf8")) as {
    mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
  };
  const entry = config.mcpServers.torii;
  if (entry === undefined) throw new Error("~/.claude.json has no torii entry");
  return entry;
}

describe("the README's install path (npm ci to an allowed kubectl get pods through Claude Code)", () => {
  test("is at most five commands: npm ci, npm run build, then Torii's own, setup among them", () => {
    expect(commands.length).toBeLessThanOrEqual(5);
    expect(commands.slice(0, 2)).toEqual([
      ["npm", "ci"],
      ["npm", "run", "build"],
    ]);
    for (const command of commands.slice(2)) expect(command.slice(0, 2)).toEqual(["node", "dist/cli.js"]);
    expect(commands.map((command) => command[2])).toEqual(expect.arrayContaining(["setup", "agent", "doctor"]));
    expect(ask[0]).toBe("kubectl");
  });

  test("works as written: Claude Code shows Torii connected, and its registered command line serves the stub's pods", async () => {
    const checkout = (clone = copyOfCheckout());
    const sandbox = operatorSandbox(api.url, CONTEXT);
    for (const command of commands) await runReadmeCommand(command, checkout, sandbox);

    const listed = await run(clientBin("claude"), ["mcp", "list"], { home: sandbox.home, env: sandbox.env });
    expect(listed.stdout).toMatch(new RegExp(`^torii: .*${checkout}/dist/cli\\.js mcp - ✔ Connected$`, "mu"));

    const server = registeredServer(sandbox.home);
    const client = new Client({ name: "readme-path", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...sandbox.env, ...server.env },
      cwd: sandbox.home,
      stderr: "pipe",
    });
    let serverLog = "";
    transport.stderr?.on("data", (chunk: Buffer) => (serverLog += chunk.toString("utf8")));
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: "kubectl", arguments: { args: ask.slice(1), target: CONTEXT } })) as CallToolResult;
      const outcome = result.structuredContent as unknown as CallOutcome;
      expect(outcome.decision, serverLog).toMatchObject({ result: "allow", source: "rules" });
      expect(outcome.execution?.exit_code).toBe(0);
      expect(outcome.execution?.stdout).toMatch(/readme-pod-1\s+/u);
      expect(outcome.execution?.stdout).toMatch(/readme-pod-2\s+/u);
    } finally {
      await client.close();
    }
    expect(api.requests.map((request) => request.path)).toContain("/api/v1/namespaces/default/pods");
  }, 600_000);
});

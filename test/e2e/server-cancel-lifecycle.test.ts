/**
 * The agent cancels its call (notifications/cancelled, through the SDK's AbortSignal) while the
 * identity provider's validate command runs: the built server kills the command, and that is no
 * verdict on the operator's stored session. Before, the server stored `invalid` as the session's last
 * check (`torii auth status`: expired) and audited `session-invalid`: an agent could mark the
 * operator's login expired whenever it liked.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

let root: string;
let session: McpSession;
let env: Record<string, string>;
let hold: string;
let started: string;

beforeAll(async () => {
  root = makeConfigTree({
    "providers/vault/provider.yaml": `version: "1"
name: vault
tool: vault
command: must-not-run
auth:
  strategy: environment
  fields:
    - {name: TOKEN_FIELD, label: Token, secret: true}
  validate: {command: check-token, args: []}
  cache_ttl_seconds: 0
`,
    "providers/vault/rules.yaml": 'version: "1"\naccept: [read]\n',
  });
  hold = path.join(root, "hold");
  started = path.join(root, "validate-started");
  // Accepts at once, unless `hold` exists: then it says it started and runs until it is killed.
  const bin = makeFakeBin({
    "check-token": `const fs = require("node:fs");
if (!fs.existsSync(${JSON.stringify(hold)})) process.exit(0);
fs.writeFileSync(${JSON.stringify(started)}, "");
setInterval(() => {}, 1000);`,
  });
  env = { TORII_CONFIG_DIR: root, PATH: `${bin.dir}:${process.env.PATH ?? ""}` };
  session = await startSession(root, { PATH: env.PATH ?? "" });
});

afterAll(async () => {
  await session.close();
});

const sessionState = async (): Promise<string | undefined> =>
  (JSON.parse((await runCli(["auth", "status", "vault", "--json"], env)).stdout) as { sessions: { state: string }[] }).sessions[0]?.state;

test("a call canceled while its validate runs leaves the stored session's state as it was, and audits no invalid session", async () => {
  const login = await runCli(["auth", "login", "vault", "--from-env", "TOKEN_FIELD"], { ...env, TOKEN_FIELD: "good-token-0123456789" });
  expect(login.status, login.stderr).toBe(0);
  expect(await sessionState()).toBe("valid");

  writeFileSync(hold, "");
  const controller = new AbortController();
  const call = session.call("vault", { args: ["read", "secret/x"] }, { signal: controller.signal });
  await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: 30_000 });
  controller.abort();
  await expect(call).rejects.toThrow();

  // The call's lifecycle record, whichever it is, once the server has ended the call.
  const lifecycleRecord = async () => {
    const records = readFileSync(path.join(root, "audit.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { event: string; detail?: string });
    const found = records.find((record) => record.event === "session-invalid" || record.event === "session-unchecked");
    expect(found).toBeDefined();
    return found;
  };
  const record = await vi.waitFor(lifecycleRecord, { timeout: 30_000 });
  expect(record).toMatchObject({ event: "session-unchecked", detail: "canceled" });
  expect(await sessionState()).toBe("valid");
});

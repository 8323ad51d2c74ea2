/**
 * The `environment` strategy end to end: the built server over stdio with the
 * SDK's client, and `torii auth` beside it on the same configuration root.
 *
 * login → an allowed call gets the stored values in its environment (the
 * child writes its environment to a file; what it prints is redacted) →
 * the call-time validate starts failing → denied `session-invalid` and status
 * `expired` → logout → denied `session-invalid` with the exact login command.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const TOKEN = "good-e2e-5a6b7c8d9e0f1a2b";

let root: string;
let session: McpSession;
let env: Record<string, string>;
let envDump: string;
let revoked: string;

const vault = (name: string, extra = ""): string => `version: "1"
name: ${name}
tool: ${name}
command: env-dump
auth:
  strategy: environment
  fields:
    - {name: TOKEN_FIELD, label: Token, secret: true}
  inject:
    environment: {VAULT_TOKEN: "\${TOKEN_FIELD}"}
  validate: {command: check-token, args: []}
  cache_ttl_seconds: 0
${extra}`;

beforeAll(async () => {
  root = makeConfigTree({
    "providers/vault/provider.yaml": vault("vault"),
    "providers/vault/rules.yaml": 'version: "1"\naccept: [read]\n',
  });
  envDump = path.join(root, "env-dump.json");
  revoked = path.join(root, "revoked");
  const bin = makeFakeBin({
    "env-dump": `require("node:fs").writeFileSync(${JSON.stringify(envDump)}, JSON.stringify(process.env));
process.stdout.write("token in use: " + process.env.VAULT_TOKEN + "\\n");`,
    "check-token": `const token = process.env.VAULT_TOKEN ?? "";
process.exit(token.startsWith("good-") && !require("node:fs").existsSync(${JSON.stringify(revoked)}) ? 0 : 3);`,
  });
  env = { TORII_CONFIG_DIR: root, PATH: `${bin.dir}:${process.env.PATH ?? ""}` };
  session = await startSession(root, { PATH: env.PATH ?? "" });
});

afterAll(async () => {
  await session.close();
});

async function read(): Promise<ReturnType<typeof outcomeOf>> {
  return outcomeOf(await session.call("vault", { args: ["read", "secret/x"] }));
}

describe("torii auth login → call → logout → session-invalid", () => {
  test("a call with no stored session is denied with the login command, and nothing runs", async () => {
    const outcome = await read();
    expect(outcome.decision).toMatchObject({ result: "deny", source: "session-invalid" });
    expect(outcome.decision.reason).toContain("`torii auth login vault`");
    expect(existsSync(envDump)).toBe(false);
  });

  test("after login the call runs with the stored value injected, and its output is redacted", async () => {
    const login = await runCli(["auth", "login", "vault", "--from-env", "TOKEN_FIELD"], { ...env, TOKEN_FIELD: TOKEN });
    expect(login.status, login.stderr).toBe(0);
    const outcome = await read();
    expect(outcome.decision).toMatchObject({ result: "allow", source: "rules" });
    expect(outcome.execution?.exit_code).toBe(0);
    expect((JSON.parse(readFileSync(envDump, "utf8")) as Record<string, string>).VAULT_TOKEN).toBe(TOKEN);
    expect(outcome.execution?.stdout).toBe("token in use: [redacted:VAULT_TOKEN]\n");
    expect(session.stderr()).not.toContain(TOKEN);
  });

  test("stored values that no longer validate deny the call, and status says expired", async () => {
    writeFileSync(revoked, "");
    rmSync(envDump);
    const outcome = await read();
    expect(outcome.decision).toMatchObject({ result: "deny", source: "session-invalid" });
    expect(outcome.decision.reason).toContain("no longer validate; the operator must run `torii auth login vault`");
    expect(existsSync(envDump)).toBe(false);
    const status = JSON.parse((await runCli(["auth", "status", "vault", "--json"], env)).stdout) as { sessions: { state: string }[] };
    expect(status.sessions[0]?.state).toBe("expired");
    rmSync(revoked);
    expect((await read()).decision.result).toBe("allow");
  });

  test("after logout the call is denied again with the exact login command", async () => {
    expect((await runCli(["auth", "logout", "vault"], env)).status).toBe(0);
    const outcome = await read();
    expect(outcome.decision).toMatchObject({ result: "deny", source: "session-invalid" });
    expect(outcome.decision.reason).toContain("no credentials are stored for vault (scope vault); the operator must run `torii auth login vault`");
    const audit = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    expect(audit).not.toContain(TOKEN);
  });
});

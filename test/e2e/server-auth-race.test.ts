/**
 * Invariant 7 across processes: two MCP clients each run their own server
 * against one configuration root, and their calls share an auth scope. The
 * validate command records when it starts and ends (and which server started
 * it); with the scope lock held across processes, no two runs overlap.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const PROVIDER = `version: "1"
name: vault
tool: vault
command: "true"
auth:
  strategy: environment
  fields:
    - {name: VAULT_TOKEN, label: Token, secret: true}
  validate: {command: slow-check, args: []}
  cache_ttl_seconds: 0
`;

let root: string;
let log: string;
let sessions: McpSession[] = [];

beforeAll(async () => {
  root = makeConfigTree({
    "providers/vault/provider.yaml": PROVIDER,
    "providers/vault/rules.yaml": 'version: "1"\naccept: [read]\n',
  });
  log = path.join(root, "validate-runs.log");
  // Each run holds the scope for ~150 ms; the start and end lines are appended (O_APPEND) and fsync-free.
  const bin = makeFakeBin({
    "slow-check": `const fs = require("node:fs");
const line = (what) => fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ what, server: process.ppid, pid: process.pid, at: performance.timeOrigin + performance.now() }) + "\\n");
line("start");
setTimeout(() => { line("end"); process.exit(0); }, 150);`,
  });
  const PATH = `${bin.dir}:${process.env.PATH ?? ""}`;
  const login = await runCli(["auth", "login", "vault", "--from-env", "VAULT_TOKEN"], { TORII_CONFIG_DIR: root, PATH, VAULT_TOKEN: "tok-race-0123456789" });
  expect(login.status, login.stderr).toBe(0);
  sessions = await Promise.all([startSession(root, { PATH }), startSession(root, { PATH })]);
});

afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()));
});

test("two servers refreshing one scope never run its validate command at the same time", async () => {
  const calls = sessions.flatMap((session) => [1, 2, 3].map(() => session.call("vault", { args: ["read"] })));
  const outcomes = (await Promise.all(calls)).map(outcomeOf);
  for (const outcome of outcomes) expect(outcome.decision.result).toBe("allow");
  const lines = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((text) => JSON.parse(text) as { what: "start" | "end"; server: number; pid: number; at: number });
  // The login's own validate ran first, from the test process; the six calls' runs follow.
  const runs = new Map<number, { server: number; start: number; end: number }>();
  for (const line of lines) {
    const run = runs.get(line.pid) ?? { server: line.server, start: Number.NaN, end: Number.NaN };
    run[line.what] = line.at;
    runs.set(line.pid, run);
  }
  const sorted = [...runs.values()].sort((a, b) => a.start - b.start);
  expect(sorted).toHaveLength(7);
  expect(new Set(sorted.slice(1).map((run) => run.server)).size, "both servers ran validate").toBe(2);
  for (let index = 1; index < sorted.length; index += 1) {
    const previous = sorted[index - 1];
    const current = sorted[index];
    expect(current?.start, `run ${index} started before run ${index - 1} ended`).toBeGreaterThanOrEqual(previous?.end ?? Number.POSITIVE_INFINITY);
  }
});

/**
 * Configuration others could have written is never trusted, through the real
 * server over stdio and the real operator CLI: a tree with a world-writable
 * `.env`, rules file or provider directory starts nothing that runs commands
 * (the server only explains the failure, see startup-failure.test.ts), and a file that
 * becomes untrusted while the server runs denies the calls that would read it,
 * with the path and the chmod that fixes it. The `.env` carries an LD_PRELOAD
 * and a canary variable: neither may reach a child.
 */
import { chmodSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadServerConfiguration, renderStartupFailure } from "../../src/pipeline/server-configuration.js";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli, runCliProcess } from "../support/run-cli.js";

const CANARY = "canary-7f3a-must-not-reach-the-child";
const PROVIDER = 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n';
const RULES = 'version: "1"\naccept: ["/.*/"]\n';
const ENV = `LD_PRELOAD=/nonexistent/${CANARY}.so\nTORII_CANARY=${CANARY}\n`;

let bin: FakeBin;
const files = (): Record<string, string> => ({
  "providers/rec/provider.yaml": PROVIDER,
  "providers/rec/rules.yaml": RULES,
  "providers/rec/.env": ENV,
});

beforeAll(() => {
  bin = makeFakeBin();
});

/** A tree whose `relative` path has `mode`, and that path. */
function untrustedTree(relative: string, mode: number): { root: string; subject: string } {
  const root = makeConfigTree(files());
  const subject = path.join(root, relative);
  chmodSync(subject, mode);
  return { root, subject };
}

/** What the operator must read about `subject`, on the server's stderr or from its start-up load. */
function expectTrustFailure(text: string, subject: string): void {
  expect(text).toContain("Torii could not load its configuration");
  expect(text).toContain(`${subject}: is writable by group or others`);
  expect(text).toContain(`fix: chmod go-w ${subject}`);
  expect(text).not.toContain(CANARY);
}

describe("start-up", () => {
  // The server's start-up load (src/pipeline/server-configuration.ts) in this process, with the text the server
  // writes to stderr; the process itself (exit code, stdout) is the next test's.
  test.each([
    ["a world-writable .env", "providers/rec/.env", 0o666],
    ["a world-writable rules.yaml", "providers/rec/rules.yaml", 0o666],
    ["a group-writable provider.yaml", "providers/rec/provider.yaml", 0o664],
    ["a world-writable provider directory", "providers/rec", 0o777],
    ["a world-writable configuration root", "", 0o777],
  ])("%s starts nothing and says which file and how to fix it", (_what, relative, mode) => {
    const { root, subject } = untrustedTree(relative, mode);
    const load = loadServerConfiguration({ env: { TORII_CONFIG_DIR: root }, platform: process.platform, homedir: "/nonexistent" });
    if (load.ok) throw new Error("an untrusted tree loaded");
    expectTrustFailure(renderStartupFailure(load.failure), subject);
  });

  test("the built server on such a tree exits 1 with that text on stderr and nothing on stdout", () => {
    const { root, subject } = untrustedTree("providers/rec/.env", 0o666);
    const run = runCliProcess([], { TORII_CONFIG_DIR: root, TORII_NO_GUI: "1" });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expectTrustFailure(run.stderr, subject);
  });
});

describe("a file that becomes untrusted while the server runs", () => {
  let root: string;
  let session: McpSession;

  beforeAll(async () => {
    root = makeConfigTree(files());
    session = await startSession(root, { PATH: `${bin.dir}:/usr/bin:/bin` });
  });

  afterAll(async () => {
    await session.close();
  });

  test("a world-writable .env denies the call with the fix, and its LD_PRELOAD never reaches the child", async () => {
    const envFile = path.join(root, "providers/rec/.env");
    chmodSync(envFile, 0o666);
    const result = await session.call("rec", { args: ["run"] });
    const outcome = outcomeOf(result);
    expect(result.isError).toBe(true);
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toContain(`${envFile}: is writable by group or others (mode 666); fix: chmod go-w ${envFile}`);
    expect(JSON.stringify(result)).not.toContain(CANARY);

    // The same file, made private again, is read: the test can see the canary when it does pass.
    chmodSync(envFile, 0o600);
    const fixed = outcomeOf(await session.call("rec", { args: ["run"] }));
    const seen = JSON.parse(fixed.execution?.stdout ?? "{}") as { env: Record<string, string> };
    // The child had exactly the canary: the redactor replaced it in the output returned here.
    expect(seen.env.TORII_CANARY).toBe("[redacted:TORII_CANARY]");
  });

  test("a world-writable rules.yaml denies the call as a policy error with the fix", async () => {
    const rules = path.join(root, "providers/rec/rules.yaml");
    chmodSync(rules, 0o646);
    try {
      const outcome = outcomeOf(await session.call("rec", { args: ["run"] }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "policy-error" });
      expect(outcome.decision.reason).toContain(`fix: chmod go-w ${rules}`);
      expect(outcome.execution).toBeUndefined();
    } finally {
      chmodSync(rules, 0o644);
    }
  });
});

describe("the operator CLI applies the same rule", () => {
  test("policy check and policy show refuse a world-writable rules.yaml with the fix (exit 3)", async () => {
    const root = makeConfigTree(files());
    const rules = path.join(root, "providers/rec/rules.yaml");
    chmodSync(rules, 0o666);
    for (const args of [
      ["policy", "check", "rec", "--", "run"],
      ["policy", "show", "rec"],
    ]) {
      const run = await runCli(args, { TORII_CONFIG_DIR: root });
      expect(run.status).toBe(3);
      expect(run.stderr).toContain(`fix: chmod go-w ${rules}`);
    }
  });

  test("grant add refuses a tree whose provider directory others can write", async () => {
    const root = makeConfigTree(files());
    chmodSync(path.join(root, "providers/rec"), 0o777);
    const run = await runCli(["grant", "add", "rec", "--exact", "--", "run"], { TORII_CONFIG_DIR: root });
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(`fix: chmod go-w ${path.join(root, "providers/rec")}`);
  });
});

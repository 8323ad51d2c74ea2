/**
 * A call no rule or grant decides waits for the operator, who answers from
 * another terminal with `torii approvals`: the built server over the SDK's
 * real client, the CLI in-process (and once as a real process). Approve once,
 * deny, a grant by prefix, replay refused, timeout, cancellation withdraws,
 * and `approval.mode: off` stays headless.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { approvalIds, approvalRecord, nextPending } from "../support/approvals.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli, runCliProcess } from "../support/run-cli.js";

let bin: FakeBin;
let root: string;
let session: McpSession;
const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root });
const INTERACTIVE = { TORII_NO_GUI: "", TORII_OPEN_BROWSER: "0" };

function treeWith(settings: string): string {
  return makeConfigTree({
    "settings.yaml": settings,
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
    "providers/rec/rules.yaml": 'version: "1"\ndeny: [push]\naccept: [status]\n',
  });
}

beforeAll(async () => {
  bin = makeFakeBin();
  root = treeWith('version: "1"\napproval:\n  timeout_seconds: 60\n');
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, ...INTERACTIVE });
});

afterAll(async () => {
  await session.close();
});

describe("torii approvals", () => {
  test("approve --once from another terminal lets the waiting call run; the audit names the channel and never the secret", async () => {
    const call = session.call("rec", { args: ["log", "--oneline"], description: "show history" });
    const pending = await nextPending(root);
    const listed = await cli("approvals", "list", "--json", "--links");
    expect(listed.status).toBe(0);
    const entry = (JSON.parse(listed.stdout) as { approvals: Record<string, unknown>[] }).approvals.find((item) => item.id === pending.id);
    expect(entry).toMatchObject({ tool: "rec", target: null, argv: ["log", "--oneline"], description: "show history" });
    expect(entry?.url).toMatch(/^http:\/\/127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}:[0-9]+\/a\/[0-9a-f]{16}\/[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(String(entry?.expires_at))).toBeGreaterThan(Date.now());

    const approved = await cli("approvals", "approve", pending.id, "--once");
    expect(approved.status).toBe(0);
    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "allow", source: "human-once" });
    expect(JSON.parse(outcome.execution?.stdout ?? "{}")).toMatchObject({ argv: ["log", "--oneline"] });

    const audit = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    expect(audit).toContain('"event":"override-once"');
    expect(audit).toContain(`cli by ${os.userInfo().username}`);
    const secret = String(entry?.url).split("/").pop() ?? "";
    expect(audit).not.toContain(secret);
    expect(audit).not.toContain(pending.id);

    const replay = await cli("approvals", "approve", pending.id, "--once");
    expect(replay.status).toBe(1);
    expect(replay.stderr).toMatch(/already answered/);
  });

  test.runIf(process.platform !== "win32")(
    "a server killed with SIGKILL leaves its approval orphaned: list marks it, approve refuses it (exit 1)",
    async () => {
      const doomedRoot = treeWith('version: "1"\napproval:\n  timeout_seconds: 60\n');
      const doomed = await startSession(doomedRoot, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, ...INTERACTIVE });
      const call = doomed.call("rec", { args: ["log"] }).catch((error: unknown) => error);
      const pending = await nextPending(doomedRoot);
      const pid = doomed.pid();
      if (pid === null) throw new Error("the server has no pid");
      const exited = new Promise<void>((resolve) => {
        doomed.client.onclose = () => {
          resolve();
        };
      });
      process.kill(pid, "SIGKILL");
      await exited;
      await call;
      const env = { TORII_CONFIG_DIR: doomedRoot };
      const listed = await runCli(["approvals", "list"], env);
      expect(listed.stdout).toContain(`ORPHANED: the server that asked (pid ${pid}) is no longer running`);
      const approved = await runCli(["approvals", "approve", pending.id, "--once"], env);
      expect(approved.status).toBe(1);
      expect(approved.stderr).toMatch(/no longer running, so no call waits for this answer/);
      expect(approvalRecord(doomedRoot, pending.id).status).toBe("pending");
    },
  );

  test("deny: the call is denied with source human-deny and the program never runs", async () => {
    const call = session.call("rec", { args: ["reset", "--hard"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "reset");
    expect((await cli("approvals", "deny", pending.id)).status).toBe(0);
    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "human-deny" });
    expect(outcome.execution).toBeUndefined();
  });

  test("approve --for M --prefix N writes a grant: the next call under the prefix is allowed by it without asking", async () => {
    const call = session.call("rec", { args: ["branch", "-a"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "branch");
    expect((await cli("approvals", "approve", pending.id, "--for", "5", "--prefix", "3")).status).toBe(3);
    expect((await cli("approvals", "approve", pending.id, "--for", "5", "--prefix", "1")).status).toBe(0);
    expect(outcomeOf(await call).decision).toMatchObject({ result: "allow", source: "human-grant" });
    expect(outcomeOf(await session.call("rec", { args: ["branch", "--list"] })).decision).toMatchObject({ result: "allow", source: "grant" });
    expect(readFileSync(path.join(root, "audit.jsonl"), "utf8")).toMatch(/"event":"override-timed".*grant:prefix:1:/);
  });

  test("the agent's cancellation withdraws the pending approval, which can then not be answered", async () => {
    const controller = new AbortController();
    const call = session.call("rec", { args: ["stash"] }, { signal: controller.signal });
    const pending = await nextPending(root, (record) => record.argv[0] === "stash");
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => approvalRecord(root, pending.id).status, { timeout: 30_000 }).toBe("withdrawn");
    const late = await cli("approvals", "approve", pending.id);
    expect(late.status).toBe(1);
    expect((JSON.parse((await cli("approvals", "list", "--json")).stdout) as { approvals: { id: string }[] }).approvals).toEqual([]);
    await expect
      .poll(() => readFileSync(path.join(root, "audit.jsonl"), "utf8"), { timeout: 30_000 })
      .toMatch(/"event":"approval-withdrawn","source":"approval-withdrawn"[^\n]*"argv_head":\["stash"\]/u);
  });

  test("a real `torii approvals` process answers, and its list is plain JSON on stdout", async () => {
    const call = session.call("rec", { args: ["fetch"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "fetch");
    const listed = runCliProcess(["approvals", "list", "--json"], { TORII_CONFIG_DIR: root });
    expect((JSON.parse(listed.stdout) as { approvals: { id: string }[] }).approvals.map((item) => item.id)).toContain(pending.id);
    expect(runCliProcess(["approvals", "approve", pending.id], { TORII_CONFIG_DIR: root }).status).toBe(0);
    expect(outcomeOf(await call).decision).toMatchObject({ result: "allow", source: "human-once" });
  });
});

describe("without an answer", () => {
  test("unanswered within approval.timeout_seconds: denied with approval-timeout, and the approval is expired", async () => {
    const shortRoot = treeWith('version: "1"\napproval:\n  timeout_seconds: 1\n');
    const short = await startSession(shortRoot, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, ...INTERACTIVE });
    try {
      const call = short.call("rec", { args: ["gc"] });
      expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "approval-timeout" });
      // Found after the call, not while pending: a loaded machine can let its 1 s pass unobserved.
      const ids = approvalIds(shortRoot);
      expect(ids).toHaveLength(1);
      const id = ids[0]!;
      expect(approvalRecord(shortRoot, id)).toMatchObject({ status: "expired", tool: "rec", argv: ["gc"] });
      expect((await runCli(["approvals", "approve", id], { TORII_CONFIG_DIR: shortRoot })).status).toBe(1);
      expect(readFileSync(path.join(shortRoot, "audit.jsonl"), "utf8")).toContain('"event":"approval-timeout"');
    } finally {
      await short.close();
    }
  });

  test("approval.mode: off keeps the server headless: denied at once, nothing pending", async () => {
    const offRoot = treeWith('version: "1"\napproval:\n  mode: "off"\n');
    const off = await startSession(offRoot, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, ...INTERACTIVE });
    try {
      expect(outcomeOf(await off.call("rec", { args: ["gc"] })).decision).toMatchObject({ result: "deny", source: "headless" });
      expect(JSON.parse((await runCli(["approvals", "list", "--json"], { TORII_CONFIG_DIR: offRoot })).stdout)).toMatchObject({ approvals: [] });
    } finally {
      await off.close();
    }
  });
});

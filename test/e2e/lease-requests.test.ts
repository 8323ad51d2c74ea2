/**
 * Lease requests through the built server and the SDK's real client: a call to
 * a target with no live lease waits for the operator, who answers with
 * `torii approvals approve|deny` from another terminal. Granting the lease
 * does not allow the command: the rules, a grant or a second approval still
 * decide it. An explicitly denied call never asks; the agent's cancellation
 * withdraws a waiting request.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LeaseStore } from "../../src/state/lease-store.js";
import { ApprovalStore } from "../../src/state/approval-store.js";
import { approvalRecord, nextPending, pageUrl } from "../support/approvals.js";
import { rawRequest } from "../support/http-request.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { leaseRequestTree, liveKubeTargets } from "../support/lease-requests.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

let bin: FakeBin;
let root: string;
let session: McpSession;
const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root });

const liveTargets = (): string[] => liveKubeTargets(root);

beforeAll(async () => {
  bin = makeFakeBin();
  root = leaseRequestTree('version: "1"\napproval:\n  timeout_seconds: 60\ndefault_target_minutes: 7\n');
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, TORII_NO_GUI: "", TORII_OPEN_BROWSER: "0" });
});

afterAll(async () => {
  await session.close();
});

describe("lease requests", () => {
  test("an explicitly denied call to an inactive target is denied at once and never asks for a lease", async () => {
    const outcome = outcomeOf(await session.call("kube", { args: ["delete", "pod", "x"], target: "prod" }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "explicit-deny" });
    expect(new ApprovalStore(root).list().pending).toEqual([]);
  });

  test("a call to an inactive target waits; approve from the CLI replaces the active lease and the call runs when a rule accepts it", async () => {
    expect((await cli("target", "activate", "kube", "dev")).status).toBe(0);
    const call = session.call("kube", { args: ["get", "pods"], target: "prod", description: "check prod" });
    const pending = await nextPending(root, (record) => record.kind === "lease");
    const listed = await cli("approvals", "list", "--json");
    const entry = (JSON.parse(listed.stdout) as { approvals: Record<string, unknown>[] }).approvals.find((item) => item.id === pending.id);
    expect(entry).toMatchObject({ kind: "lease", tool: "kube", target: "prod", lease: { minutes: 7, active: [{ target: "dev" }] } });

    const approved = await cli("approvals", "approve", pending.id);
    expect(approved.status).toBe(0);
    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "allow", source: "rules" });
    expect(JSON.parse(outcome.execution?.stdout ?? "{}")).toMatchObject({ argv: ["--context=prod-ctx", "get", "pods"] });
    expect(liveTargets()).toEqual(["prod"]);
    const audit = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    expect(audit).toMatch(/"event":"target-access-replaced"[^\n]*7min; replaced: dev; cli by /);
  });

  test("approve --add keeps the other lease, and the granted lease does not allow an unresolved command: it asks again", async () => {
    expect((await cli("target", "activate", "kube", "prod")).status).toBe(0);
    const call = session.call("kube", { args: ["describe", "pod", "x"], target: "dev" });
    const lease = await nextPending(root, (record) => record.kind === "lease");
    expect((await cli("approvals", "approve", lease.id, "--add", "--for", "3")).status).toBe(0);
    const command = await nextPending(root, (record) => record.kind === "call");
    expect(command).toMatchObject({ target: "dev", argv: ["describe", "pod", "x"] });
    expect(liveTargets().sort()).toEqual(["dev", "prod"]);
    expect((await cli("approvals", "deny", command.id)).status).toBe(0);
    expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "human-deny" });
  });

  test("deny from the CLI denies the call and activates nothing; --once does not answer a lease request", async () => {
    expect((await cli("target", "clear", "kube")).status).toBe(0);
    const call = session.call("kube", { args: ["get", "pods"], target: "prod" });
    const pending = await nextPending(root, (record) => record.kind === "lease");
    expect((await cli("approvals", "approve", pending.id, "--once")).status).not.toBe(0);
    expect((await cli("approvals", "deny", pending.id)).status).toBe(0);
    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "human-deny" });
    expect(outcome.execution).toBeUndefined();
    expect(liveTargets()).toEqual([]);
  });
  test("the agent's cancellation withdraws a waiting lease request: gone from the list, refused by the page and the CLI, audited, no lease", async () => {
    expect((await cli("target", "clear", "kube")).status).toBe(0);
    const controller = new AbortController();
    const call = session.call("kube", { args: ["get", "pods"], target: "prod" }, { signal: controller.signal });
    const pending = await nextPending(root, (record) => record.kind === "lease");
    const page = new URL(await pageUrl(root, pending.id));
    const host = page.host;
    const opened = await rawRequest({ address: page.hostname, port: Number(page.port), path: page.pathname, headers: { host } });
    const cookie = String(opened.headers["set-cookie"]).split(";")[0] ?? "";
    // The redirect names the page with the session's load key; the hold and the answer live under its path.
    const location = String(opened.headers.location);
    const base = location.split("?")[0] ?? "";
    const shown = await rawRequest({ address: page.hostname, port: Number(page.port), path: location, headers: { host, cookie } });
    expect(shown.status).toBe(200);
    const csrf = /name="torii-csrf" content="([^"]+)"/.exec(shown.body)?.[1] ?? "";
    const pageKey = /name="torii-page-key" content="([^"]+)"/.exec(shown.body)?.[1] ?? "";
    const listedIds = async (): Promise<string[]> =>
      (JSON.parse((await cli("approvals", "list", "--json")).stdout) as { approvals: { id: string }[] }).approvals.map((item) => item.id);
    expect(await listedIds()).toContain(pending.id);

    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => approvalRecord(root, pending.id).status, { timeout: 30_000 }).toBe("withdrawn");

    const withdrawals = (): unknown[] =>
      readFileSync(path.join(root, "audit.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.includes('"source":"approval-withdrawn"'))
        .map((line) => JSON.parse(line) as unknown);
    await expect.poll(withdrawals, { timeout: 30_000 }).toEqual([expect.objectContaining({ event: "target-access-denied", scope: "kube/prod" })]);
    expect(await listedIds()).not.toContain(pending.id);
    const answer = await rawRequest({
      address: page.hostname,
      port: Number(page.port),
      path: `${base}/answer`,
      method: "POST",
      headers: { host, origin: `http://${host}`, cookie, "x-torii-page-key": pageKey, "content-type": "application/json" },
      body: JSON.stringify({ choice: "lease-replace", csrf, minutes: 5 }),
    });
    expect(answer.status).toBe(404);
    expect((await cli("approvals", "approve", pending.id)).status).toBe(1);
    expect(liveTargets()).toEqual([]);
  });
});

describe("lease requests nobody answers", () => {
  async function sessionWith(settings: string, env: Record<string, string> = {}): Promise<{ other: McpSession; otherRoot: string }> {
    const otherRoot = leaseRequestTree(settings);
    const other = await startSession(otherRoot, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, TORII_NO_GUI: "", TORII_OPEN_BROWSER: "0", ...env });
    return { other, otherRoot };
  }

  test("an unanswered lease request times out: denied approval-timeout, no lease", async () => {
    const { other, otherRoot } = await sessionWith('version: "1"\napproval:\n  timeout_seconds: 1\n');
    try {
      const outcome = outcomeOf(await other.call("kube", { args: ["get", "pods"], target: "prod" }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "approval-timeout" });
      const read = new LeaseStore(path.join(otherRoot, "providers", "kube")).read();
      expect(read.ok && read.state.authorizations).toEqual([]);
      expect(readFileSync(path.join(otherRoot, "audit.jsonl"), "utf8")).toContain('"event":"target-access-denied"');
    } finally {
      await other.close();
    }
  });

  test("headless (approval.mode: off) keeps today's target-inactive deny and asks nothing", async () => {
    const { other, otherRoot } = await sessionWith('version: "1"\napproval:\n  mode: off\n');
    try {
      const outcome = outcomeOf(await other.call("kube", { args: ["get", "pods"], target: "prod" }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "target-inactive" });
      expect(outcome.decision.reason).toContain("torii target activate kube prod");
      expect(new ApprovalStore(otherRoot).list().pending).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

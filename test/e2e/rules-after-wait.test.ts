/**
 * A human answers in seconds or hours, and the operator may change the rules
 * meanwhile. A decision taken before such a wait is taken again after it:
 * through the built server and the SDK's real client, the operator edits
 * rules.yaml while a call waits for a lease or for an approval, answers with
 * `torii approvals approve`, and the rules as they are now decide. An explicit
 * deny added during the wait still wins; a rules file broken during the wait
 * fails closed; the program never runs.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { nextPending } from "../support/approvals.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { leaseRequestTree } from "../support/lease-requests.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

let bin: FakeBin;
let root: string;
let session: McpSession;
const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root });
let rules: string;
/** The audit records written before the running test: its events are the ones after them. */
let auditBefore: number;
const rulesFile = (): string => path.join(root, "providers", "kube", "rules.yaml");
const auditFile = (): string => path.join(root, "audit.jsonl");
const auditLines = (): string[] =>
  existsSync(auditFile())
    ? readFileSync(auditFile(), "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
const auditEvents = (): string[] =>
  auditLines()
    .slice(auditBefore)
    .map((line) => (JSON.parse(line) as { event: string }).event);

// One server for the file: it reads rules, leases and approvals on every call, and each test starts from the
// same rules, no lease and no marker (what a fresh server per test gave it).
beforeAll(async () => {
  bin = makeFakeBin({}, ["must-not-run"]);
  // The kube provider runs the sentinel: a call that runs leaves its marker.
  root = leaseRequestTree('version: "1"\napproval:\n  timeout_seconds: 60\n');
  rules = readFileSync(rulesFile(), "utf8");
  const provider = path.join(root, "providers", "kube", "provider.yaml");
  writeFileSync(provider, readFileSync(provider, "utf8").replace("command: recorder", "command: must-not-run"));
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, TORII_NO_GUI: "", TORII_OPEN_BROWSER: "0" });
});

afterAll(async () => {
  await session.close();
});

beforeEach(async () => {
  writeFileSync(rulesFile(), rules);
  expect((await cli("target", "clear", "kube")).status).toBe(0);
  rmSync(bin.markerOf("must-not-run"), { force: true });
  auditBefore = auditLines().length;
});

describe("after a lease question", () => {
  test("a deny rule added while the call waited for its lease denies it, though the lease is granted", async () => {
    const call = session.call("kube", { args: ["get", "secrets"], target: "prod" });
    const pending = await nextPending(root, (record) => record.kind === "lease");
    writeFileSync(rulesFile(), 'version: "1"\ndeny: [delete, get secrets]\naccept: [get]\n');
    expect((await cli("approvals", "approve", pending.id, "--add", "--for", "5")).status).toBe(0);

    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "explicit-deny", rule: "get secrets" });
    expect(outcome.execution).toBeUndefined();
    expect(bin.ran("must-not-run")).toBe(false);
    const events = auditEvents();
    expect(events.indexOf("denied-explicit")).toBeGreaterThan(events.indexOf("target-access-added"));
  });

  test("a rules file broken while the call waited for its lease fails closed", async () => {
    const call = session.call("kube", { args: ["get", "pods"], target: "prod" });
    const pending = await nextPending(root, (record) => record.kind === "lease");
    writeFileSync(rulesFile(), 'version: "1"\naccept: [get\n');
    expect((await cli("approvals", "approve", pending.id, "--add", "--for", "5")).status).toBe(0);

    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "policy-error" });
    expect(outcome.decision.reason).toContain("rules.yaml");
    expect(bin.ran("must-not-run")).toBe(false);
  });
});

describe("after an approval", () => {
  test("a deny rule added while the operator was asked wins over their allow-once", async () => {
    expect((await cli("target", "activate", "kube", "dev")).status).toBe(0);
    const call = session.call("kube", { args: ["describe", "pod", "x"], target: "dev" });
    const pending = await nextPending(root, (record) => record.kind === "call");
    writeFileSync(rulesFile(), 'version: "1"\ndeny: [delete, describe]\naccept: [get]\n');
    expect((await cli("approvals", "approve", pending.id, "--once")).status).toBe(0);

    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "explicit-deny", rule: "describe" });
    expect(bin.ran("must-not-run")).toBe(false);
    const events = auditEvents();
    expect(events.indexOf("denied-explicit")).toBeGreaterThan(events.indexOf("override-once"));
  });

  test("with the rules unchanged, the operator's allow-once still runs the call", async () => {
    expect((await cli("target", "activate", "kube", "dev")).status).toBe(0);
    const call = session.call("kube", { args: ["describe", "pod", "x"], target: "dev" });
    const pending = await nextPending(root, (record) => record.kind === "call");
    expect((await cli("approvals", "approve", pending.id, "--once")).status).toBe(0);

    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "allow", source: "human-once" });
    expect(bin.ran("must-not-run")).toBe(true);
  });
});

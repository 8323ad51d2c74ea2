/**
 * `torii approvals list` prints an agent's argv and description to the
 * operator's terminal: bidi overrides and isolates and C1 controls (whose CSI
 * drives a terminal) must never reach it raw, in the text or the --json form.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { ApprovalStore } from "../../../../src/state/approval-store.js";
import { treeWithPendingCall } from "../../../support/approvals.js";
import { runCli } from "../../../support/run-cli.js";

const HOSTILE = ["get", "pods\u202eexe.txt", "a\u2066b", "x\u009b31my", "caf\u00e9"];
const RAW = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/u;

const treeWithPending = () => treeWithPendingCall(HOSTILE, "delete \u202eevil\u009b[2J now");

describe("torii approvals list shows agent text inert", () => {
  test("the argv is printed exactly, with every character outside printable ASCII as \\u{…}; the description is sanitised", async () => {
    const { root, id } = await treeWithPending();
    const listed = await runCli(["approvals", "list"], { TORII_CONFIG_DIR: root });
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toMatch(RAW);
    expect(listed.stdout).toContain('argv: ["get","pods\\u{202e}exe.txt","a\\u{2066}b","x\\u{9b}31my","caf\\u{e9}"]');
    expect(listed.stdout).toContain('the agent says (unverified): "delete evil [2J now"');
  });

  test("characters that do not show on screen in the description (tags, variation selectors, soft hyphen) are written as \\u{…}, as the page writes them", async () => {
    const { root } = await treeWithPendingCall(["get", "pods"], "read\u00adonly pods\u{e0041}\ufe0f please");
    const listed = await runCli(["approvals", "list"], { TORII_CONFIG_DIR: root });
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('the agent says (unverified): "read\\u{ad}only pods\\u{e0041}\\u{fe0f} please"');
  });

  test("--json keeps the same values (JSON.parse gives the argv back) with the dangerous characters escaped", async () => {
    const { root } = await treeWithPending();
    const listed = await runCli(["approvals", "list", "--json"], { TORII_CONFIG_DIR: root });
    expect(listed.status).toBe(0);
    expect(listed.stdout).not.toMatch(RAW);
    expect(listed.stdout).toContain("pods\\u202eexe.txt");
    const parsed = JSON.parse(listed.stdout) as { approvals: { argv: string[] }[] };
    expect(parsed.approvals[0]?.argv).toEqual(HOSTILE);
  });
});

describe("an approval whose server is gone", () => {
  /** Makes the file name a server whose pid is now another process's (this one, with another start time). */
  function orphan(root: string, id: string): void {
    const file = new ApprovalStore(root).fileOf(id);
    const text = readFileSync(file, "utf8");
    const started = /started: "?([0-9]+)"?/.exec(text)?.[1];
    if (started === undefined) throw new Error(`no start time in ${text}`);
    writeFileSync(file, text.replace(/started: "?[0-9]+"?/, `started: "${started}0"`));
  }

  test.runIf(process.platform === "linux")("list marks it; approve and deny refuse it with exit 1 and leave it unanswered", async () => {
    const { root, id } = await treeWithPending();
    const env = { TORII_CONFIG_DIR: root };
    const live = await runCli(["approvals", "list", "--json"], env);
    expect((JSON.parse(live.stdout) as { approvals: { orphaned: boolean }[] }).approvals[0]?.orphaned).toBe(false);
    orphan(root, id);
    const listed = await runCli(["approvals", "list"], env);
    expect(listed.stdout).toMatch(/^ {2}ORPHANED: the server that asked \(pid [0-9]+\) is no longer running; this request cannot be answered$/m);
    const json = await runCli(["approvals", "list", "--json"], env);
    expect((JSON.parse(json.stdout) as { approvals: { orphaned: boolean }[] }).approvals[0]?.orphaned).toBe(true);
    for (const args of [
      ["approve", id, "--once"],
      ["deny", id],
    ]) {
      const answered = await runCli(["approvals", ...args], env);
      expect(answered.status).toBe(1);
      expect(answered.stderr).toMatch(/is no longer running, so no call waits for this answer/);
      expect(answered.stdout).not.toMatch(/carries it out/);
    }
    expect(new ApprovalStore(root).read(id)).toMatchObject({ status: "pending" });
  });
});

describe("links to the page only when asked (--links)", () => {
  /** The digests of the unused one-time secrets the pending file holds. */
  const secrets = (root: string, id: string): readonly string[] => {
    const record = new ApprovalStore(root).read(id);
    return record !== undefined && "version" in record ? record.page_secrets : ["unreadable"];
  };

  // A link printed where the agent reads (the operator typed `list` into the agent's shell session) opens the page
  // for whoever uses it first; answering from the terminal needs none.
  test("list and list --json mint and print no link; list --links mints one per approval and prints it", async () => {
    const { root, id } = await treeWithPending();
    const env = { TORII_CONFIG_DIR: root };
    const before = secrets(root, id);
    const plain = await runCli(["approvals", "list"], env);
    expect(plain.status).toBe(0);
    expect(plain.stdout).not.toMatch(/https?:\/\//u);
    expect(plain.stdout).toContain("torii approvals list --links prints a one-time link");
    const json = await runCli(["approvals", "list", "--json"], env);
    expect((JSON.parse(json.stdout) as { approvals: { url: string | null }[] }).approvals[0]?.url).toBeNull();
    expect(secrets(root, id)).toEqual(before);

    const linked = await runCli(["approvals", "list", "--links"], env);
    expect(linked.stdout).toMatch(new RegExp(`page \\(opens once, in one browser\\): http://[0-9.]+:[0-9]+/a/${id}/[A-Za-z0-9_-]{43}$`, "mu"));
    const linkedJson = await runCli(["approvals", "list", "--links", "--json"], env);
    expect((JSON.parse(linkedJson.stdout) as { approvals: { url: string | null }[] }).approvals[0]?.url).toMatch(/^http:\/\//u);
    expect(secrets(root, id)).toHaveLength(before.length + 2);
  });
});

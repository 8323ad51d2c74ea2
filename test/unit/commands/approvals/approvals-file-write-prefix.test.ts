/**
 * `torii approvals` for a call held for a local file write (the pending file's
 * `hold`, as the server records it): list says from which `--prefix` on a
 * grant is admitted and why (text and --json), and when no prefix can name the
 * writing command (its words are not all in the argv) `--prefix` is refused
 * and only `--exact` grants; the approval stays pending after a refusal.
 */
import { describe, expect, test } from "vitest";
import { ApprovalStore } from "../../../../src/state/approval-store.js";
import { treeWithPendingCall } from "../../../support/approvals.js";
import { runCli } from "../../../support/run-cli.js";

const ARGV = ["s3", "cp", "s3://b/k", "./out"];

describe("torii approvals for a call held for a local file write", () => {
  test("list names the prefixes admitted and why; a call without a hold says nothing of it", async () => {
    const { root } = await treeWithPendingCall(ARGV, undefined, { minimum_prefix: 2, access: "write" });
    const listed = await runCli(["approvals", "list"], { TORII_CONFIG_DIR: root });
    expect(listed.stdout).toMatch(/^ {2}--prefix 2 to 4 only: the call writes a local file, and a prefix grant of fewer tokens would not name its command/mu);
    const json = JSON.parse((await runCli(["approvals", "list", "--json"], { TORII_CONFIG_DIR: root })).stdout) as {
      approvals: { prefix_counts: number[]; prefix_limit: string | null }[];
    };
    expect(json.approvals[0]).toMatchObject({ prefix_counts: [2, 3, 4], prefix_limit: expect.stringContaining("writes a local file") as unknown });

    const plain = await treeWithPendingCall(ARGV);
    expect((await runCli(["approvals", "list"], { TORII_CONFIG_DIR: plain.root })).stdout).not.toContain("--prefix");
  });

  test("a read is named as a read", async () => {
    const { root } = await treeWithPendingCall(ARGV, undefined, { minimum_prefix: 2, access: "read" });
    expect((await runCli(["approvals", "list"], { TORII_CONFIG_DIR: root })).stdout).toContain("the call reads a local file or directory");
  });

  test("when no prefix names the writing command, --prefix N is refused for every N and --exact grants", async () => {
    const hold = { minimum_prefix: ARGV.length + 1, access: "write" } as const;
    for (const count of ["1", "4"]) {
      const { root, id } = await treeWithPendingCall(ARGV, undefined, hold);
      const refused = await runCli(["approvals", "approve", id, "--for", "5", "--prefix", count], { TORII_CONFIG_DIR: root });
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain("no prefix grant for this call: the call writes a local file, which only a grant naming its whole command allows");
      expect(refused.stderr).toContain(`torii approvals approve ${id} --for 5 --exact`);
      expect(new ApprovalStore(root).read(id)).toMatchObject({ status: "pending" });
    }
    const { root, id } = await treeWithPendingCall(ARGV, undefined, hold);
    expect((await runCli(["approvals", "approve", id, "--for", "5", "--exact"], { TORII_CONFIG_DIR: root })).status).toBe(0);
    expect(new ApprovalStore(root).read(id)).toMatchObject({ status: "answered", answer: { choice: "grant", mode: "exact", token_count: 4 } });
  });
});

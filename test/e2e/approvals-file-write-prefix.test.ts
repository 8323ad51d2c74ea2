/**
 * A call that writes a local file (the bundled aws provider's `file_writes` row
 * `s3 cp`) answered from the terminal: `torii approvals approve --prefix N`
 * admits what the approval page offers and nothing broader. Under the rule
 * `s3`, `s3 cp s3://b/k ./out` is held (the rule does not name `s3 cp`); a
 * one-token prefix grant (`s3`) is refused with the minimum and why, nothing is
 * recorded and no grant file is written; the two-token prefix (`s3 cp`) is
 * granted and the call runs. An answer recorded past the terminal (by hand, or
 * by an older `torii`) is refused by the server that carries it out: the same
 * decision (approval/lasting-answers.ts) on the server's own request.
 * The built server over the SDK's client, a fake `aws` that records its argv.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApprovalStore } from "../../src/state/approval-store.js";
import { GRANTS_FILE } from "../../src/state/grant-store.js";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { approvalRecord, nextPending } from "../support/approvals.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { untargetedAws } from "../support/real-aws.js";
import { runCli } from "../support/run-cli.js";

const RECORDER = `process.stdout.write(JSON.stringify({ argv: process.argv.slice(2) }));`;
const INTERACTIVE = { TORII_NO_GUI: "", TORII_OPEN_BROWSER: "0" };

let root: string;
let session: McpSession;
const grantsFile = (): string => path.join(root, "providers", "aws", GRANTS_FILE);
const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root });

beforeAll(async () => {
  const bin = makeFakeBin({ aws: RECORDER });
  root = makeConfigTree({
    ...untargetedAws(),
    "settings.yaml": 'version: "1"\napproval:\n  timeout_seconds: 60\n',
    "providers/aws/rules.yaml": 'version: "1"\naccept:\n  - s3\n',
  });
  const home = makeConfigTree({});
  session = await startSession(root, { HOME: home, PATH: `${bin.dir}${path.delimiter}/usr/bin:/bin`, ...INTERACTIVE });
});

afterAll(async () => {
  await session.close();
});

describe("torii approvals approve --prefix for a call that writes a local file", () => {
  test("a prefix shorter than the writing command is refused with the minimum and why, nothing recorded or written; the minimum is granted", async () => {
    const args = ["s3", "cp", "s3://b/k", "./out"];
    const call = session.call("aws", { args });
    const pending = await nextPending(root, (record) => record.argv.includes("s3://b/k"));
    expect(pending.hold).toEqual({ minimum_prefix: 2, access: "write" });

    const listed = await cli("approvals", "list");
    expect(listed.stdout).toContain("--prefix 2 to 4 only: the call writes a local file");

    const short = await cli("approvals", "approve", pending.id, "--for", "5", "--prefix", "1");
    expect(short.status).not.toBe(0);
    expect(short.stderr).toContain("--prefix 1 refused, nothing was recorded");
    expect(short.stderr).toContain("covers at least 2 of its 4 tokens");
    expect(short.stderr).toContain("the call writes a local file");
    expect(approvalRecord(root, pending.id).status).toBe("pending");
    expect(existsSync(grantsFile())).toBe(false);

    const minimum = await cli("approvals", "approve", pending.id, "--for", "5", "--prefix", "2");
    expect(minimum.status).toBe(0);
    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "allow", source: "human-grant" });
    expect(JSON.parse(outcome.execution?.stdout ?? "{}")).toMatchObject({ argv: args });
    expect(readFileSync(path.join(root, "audit.jsonl"), "utf8")).toMatch(/"event":"override-timed".*grant:prefix:2:/u);
    expect(existsSync(grantsFile())).toBe(true); // the file the refused answer left alone is the one a grant goes to
  });

  test("a too-short prefix answer written past the terminal is refused by the server: the call is denied and no grant is written", async () => {
    const before = existsSync(grantsFile()) ? readFileSync(grantsFile(), "utf8") : undefined;
    // s3 mv, not s3 cp: the grant of `s3 cp` the other test writes does not cover it, so it waits for the operator.
    const call = session.call("aws", { args: ["s3", "mv", "s3://b/other", "./elsewhere"] });
    const pending = await nextPending(root, (record) => record.argv.includes("s3://b/other"));
    const written = await new ApprovalStore(root).answer(pending.id, {
      choice: "grant",
      mode: "prefix",
      token_count: 1,
      minutes: 5,
      channel: "cli",
      by: "someone",
    });
    expect(written.ok).toBe(true);
    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "human-deny" });
    expect(outcome.decision.reason).toContain("covers at least 2 of its 4 tokens");
    expect(outcome.execution).toBeUndefined();
    expect(existsSync(grantsFile()) ? readFileSync(grantsFile(), "utf8") : undefined).toBe(before);
  });
});

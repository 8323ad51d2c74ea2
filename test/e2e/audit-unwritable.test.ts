/**
 * No record, no run: when the records that allow a call cannot be written to
 * the audit log, the program does not start. Here `audit.jsonl` is a symbolic
 * link, which the writer refuses (O_NOFOLLOW), so every append fails; the
 * allowed call ends with an error and its program never runs, a denied call
 * stays denied, and once the log is writable again calls run.
 */
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { tempDirectory } from "../support/temp-dirs.js";

let bin: FakeBin;
let root: string;
let session: McpSession;

beforeAll(async () => {
  bin = makeFakeBin({}, ["must-not-run"]);
  root = makeConfigTree({
    "providers/tf/provider.yaml": 'version: "1"\nname: tf\ntool: tf\ncommand: must-not-run\n',
    "providers/tf/rules.yaml": 'version: "1"\ndeny: [destroy]\naccept: [plan]\n',
  });
  const elsewhere = path.join(tempDirectory("torii-elsewhere-"), "audit.jsonl");
  writeFileSync(elsewhere, "");
  symlinkSync(elsewhere, path.join(root, "audit.jsonl"));
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
});

afterAll(async () => {
  await session.close();
});

test("an allowed call whose records cannot be written does not run, and says so", async () => {
  const outcome = outcomeOf(await session.call("tf", { args: ["plan"] }));
  expect(outcome.decision).toMatchObject({ result: "allow", source: "rules" });
  expect(outcome.error).toContain("the audit log could not be written, so nothing was started");
  expect(outcome.execution).toBeUndefined();
  expect(bin.ran("must-not-run")).toBe(false);
});

test("a denied call stays denied", async () => {
  const outcome = outcomeOf(await session.call("tf", { args: ["destroy"] }));
  expect(outcome.decision).toMatchObject({ result: "deny", source: "explicit-deny" });
  expect(bin.ran("must-not-run")).toBe(false);
});

test("once the log can be written again, allowed calls run", async () => {
  rmSync(path.join(root, "audit.jsonl"));
  const outcome = outcomeOf(await session.call("tf", { args: ["plan"] }));
  expect(outcome.error).toBeUndefined();
  expect(outcome.execution?.exit_code).toBe(0);
  expect(bin.ran("must-not-run")).toBe(true);
});

/**
 * A server's writer exiting with a `ran` record still waiting while another
 * writer holds the audit lock: the exit hook waits (synchronously, bounded)
 * for the lock and writes the record, instead of losing it; a lock that stays
 * taken past the wait loses the record, reported, and the process still exits.
 * Real processes; the test is the other writer, holding `audit.jsonl.lock`.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, unlinkSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { auditHeadPath } from "../../../src/audit/head.js";
import { tempDir } from "../config/temp-tree.js";

const BUILT_LOG = pathToFileURL(path.resolve(import.meta.dirname, "../../../dist/audit/audit-log.js")).href;

/** Appends a call's allow, leaves its `ran` waiting, says "ready"; on a line on stdin says "exiting" and exits. */
const EXITING_WRITER = `
const { AuditLog } = await import(process.env.AUDIT_MODULE);
const wait = process.argv[2] === "default" ? {} : { exitLockWaitMs: Number(process.argv[2]) };
const log = new AuditLog(process.argv[1], undefined, { headDelayMs: 600000, ...wait });
await log.append({ call_id: "exit-0", scope: "kube", event: "invoke" });
void log.appendBatch([{ call_id: "exit-0", scope: "kube", event: "ran", exit_code: 0 }], { deferWrite: true });
process.stdout.write("ready\\n");
process.stdin.once("data", () => {
  process.stdout.write("exiting\\n");
  process.exit(0);
});
`;

interface ExitRun {
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Runs the exiting writer on `file`; takes the audit lock once it is ready, tells it to exit, and
 * calls `onExiting` when it says it is exiting.
 */
function exitWhileLocked(file: string, wait: string, onExiting: () => void): Promise<ExitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", EXITING_WRITER, file, wait], {
      env: { PATH: process.env.PATH ?? "", AUDIT_MODULE: BUILT_LOG },
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (chunk.includes("ready")) {
        // Held as another writer holds it: the lock file, created exclusively.
        closeSync(openSync(`${file}.lock`, "wx"));
        child.stdin.write("go\n");
      }
      if (chunk.includes("exiting")) onExiting();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stderr });
    });
  });
}

function events(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { event: string }).event);
}

describe("a writer exiting while another holds the audit lock", () => {
  it("waits for the lock and writes the record still waiting, then anchors it", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    // A long wait, so that how fast this test answers does not matter; the release comes on the child's word.
    const run = await exitWhileLocked(file, "20000", () => {
      unlinkSync(`${file}.lock`);
    });
    expect(run).toEqual({ code: 0, stderr: "" });
    expect(events(file)).toEqual(["invoke", "ran"]);
    expect((JSON.parse(readFileSync(auditHeadPath(file), "utf8")) as { lines: number }).lines).toBe(2);
  });

  it("gives up after its bounded wait when the lock stays taken: the record is lost and reported, the process exits", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const run = await exitWhileLocked(file, "default", () => undefined);
    unlinkSync(`${file}.lock`);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("could not write, at exit, ");
    expect(run.stderr).toContain("the log was locked at exit");
    expect(events(file)).toEqual(["invoke"]);
  });
});

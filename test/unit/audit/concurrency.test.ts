/**
 * Several processes append to one log at once (MCP servers and the operator
 * CLI). Two real Node processes, running the built module, each append 200
 * records at the same moment (both wait at a gate the test opens once both are
 * ready, so neither can finish before the other starts, however loaded the
 * machine); the result must be one valid 400-record chain.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tailAuditLog, verifyAuditLog } from "../../../src/audit/verify.js";
import { tempDir } from "../config/temp-tree.js";

const BUILT_LOG = pathToFileURL(path.resolve(import.meta.dirname, "../../../dist/audit/audit-log.js")).href;

const WRITER = `
const { AuditLog } = await import(process.env.AUDIT_MODULE);
const { existsSync } = await import("node:fs");
const [file, name, count, gate] = process.argv.slice(1);
const log = new AuditLog(file, undefined, process.env.HEAD_DELAY ? { headDelayMs: Number(process.env.HEAD_DELAY) } : {});
process.stdout.write("ready\\n");
while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 1));
let failed = 0;
for (let i = 0; i < Number(count); i += 1) {
  const result = await log.append({ call_id: name + "-" + i, scope: "aws/prod", event: "ran", argv_head: ["s3", "ls", "secret"], exit_code: 0 });
  if (!result.ok) failed += 1;
}
process.stderr.write("failed=" + failed + "\\n");
process.exitCode = failed === 0 ? 0 : 1;
`;

interface Writer {
  /** Resolves once the writer waits at the gate. */
  readonly ready: Promise<void>;
  readonly done: Promise<{ code: number | null; stderr: string }>;
}

function runWriter(file: string, name: string, count: number, gate: string, headDelay = ""): Writer {
  const child = spawn(process.execPath, ["--input-type=module", "-e", WRITER, file, name, String(count), gate], {
    env: { PATH: process.env.PATH ?? "", AUDIT_MODULE: BUILT_LOG, HEAD_DELAY: headDelay },
    stdio: ["ignore", "pipe", "pipe"],
    shell: false,
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stderr });
    });
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding("utf8").once("data", () => resolve());
    void done.then(({ code }) => reject(new Error(`writer ${name} exited (${String(code)}) before it was ready:\n${stderr}`)));
  });
  return { ready, done };
}

/** Starts the writers, opens the gate once every one of them waits at it, and resolves with their results. */
async function together(dir: string, start: (gate: string) => Writer[]): Promise<{ code: number | null; stderr: string }[]> {
  const gate = path.join(dir, "gate");
  const writers = start(gate);
  await Promise.all(writers.map((writer) => writer.ready));
  writeFileSync(gate, "");
  return Promise.all(writers.map((writer) => writer.done));
}

describe("AuditLog across processes", () => {
  it("two processes appending 200 records each at once produce one valid 400-record chain", async () => {
    const dir = tempDir();
    const file = path.join(dir, "audit.jsonl");
    const results = await together(dir, (gate) => [runWriter(file, "a", 200, gate), runWriter(file, "b", 200, gate)]);
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });

    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 400, problems: [] });
    const entries = await tailAuditLog(file, 400);
    const ids = entries.map((entry) => ("record" in entry ? entry.record.call_id : "?"));
    // Each writer's records keep their order, and the two really interleaved.
    for (const name of ["a", "b"]) {
      expect(ids.filter((id) => id.startsWith(`${name}-`))).toEqual(Array.from({ length: 200 }, (_, i) => `${name}-${i}`));
    }
    const switches = ids.filter((id, i) => i > 0 && id[0] !== ids[i - 1]?.[0]).length;
    expect(switches).toBeGreaterThan(1);
    expect(entries.every((entry) => "record" in entry && entry.record.argv_head?.length === 2)).toBe(true);
  });

  it("two servers' writers (heads deferred) appending at once: one valid chain, anchored without a mismatch", async () => {
    const dir = tempDir();
    const file = path.join(dir, "audit.jsonl");
    const results = await together(dir, (gate) => [runWriter(file, "a", 100, gate, "20"), runWriter(file, "b", 100, gate, "20")]);
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const verified = await verifyAuditLog(file);
    expect(verified).toMatchObject({ ok: true, records: 200 });
    // At most a head that lags (both exited at once and one found the lock taken): a warning, never a marker.
    expect(verified.problems.filter((problem) => !problem.warning)).toEqual([]);
    const events = (await tailAuditLog(file, 200)).map((entry) => ("record" in entry ? entry.record.event : "?"));
    expect(events.every((event) => event === "ran")).toBe(true);
  });
});

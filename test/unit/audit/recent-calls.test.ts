/** The recent calls read back from a real audit log: one per call id, with its head and outcome. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../../src/audit/audit-log.js";
import { readRecentCalls } from "../../../src/audit/recent-calls.js";
import { tempDir } from "../config/temp-tree.js";

describe("readRecentCalls", () => {
  it("gives one call per call id with its head and first deciding event, leaving out heads-less and operator records", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const log = new AuditLog(file);
    await log.appendBatch([
      { call_id: "c1", scope: "kubectl/dev", event: "invoke", argv_head: ["get", "pods"] },
      { call_id: "c1", scope: "kubectl/dev", event: "allowed-by-rules", argv_head: ["get", "pods"], rule: "get" },
      { call_id: "c1", scope: "kubectl/dev", event: "ran", argv_head: ["get", "pods"] },
    ]);
    await log.append({ call_id: "c2", scope: "kubectl/dev", event: "denied-locked-option", detail: "--context" });
    await log.append({ call_id: "c3", scope: "kubectl/dev", event: "grant-added", argv_head: ["logs"] });
    await log.appendBatch([
      { call_id: "c4", scope: "kubectl", event: "invoke", argv_head: ["delete", "pod", "x"] },
      { call_id: "c4", scope: "kubectl", event: "denied-headless", argv_head: ["delete", "pod", "x"] },
    ]);
    const calls = readRecentCalls(file);
    expect(calls.map(({ scope, head, outcome }) => ({ scope, head, outcome }))).toEqual([
      { scope: "kubectl/dev", head: ["get", "pods"], outcome: "allowed-by-rules" },
      { scope: "kubectl", head: ["delete", "pod"], outcome: "denied-headless" },
    ]);
    expect(calls[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT/u);
  });

  it("reads a missing log as no calls", () => {
    expect(readRecentCalls(path.join(tempDir(), "none.jsonl"))).toEqual([]);
  });
});

/**
 * The server's call side is a lazy chunk: loaded once on first use, shared by
 * concurrent first calls, and a failed load is reported once and answered, not
 * swallowed, by the audit sink.
 */
import { describe, expect, test } from "vitest";
import type { AuditAppendResult, AuditInput } from "../../../src/audit/audit-log.js";
import type { CallPath } from "../../../src/mcp/call-path.js";
import { lazyCallPath } from "../../../src/mcp/lazy-call-path.js";
import type { CallOutcome } from "../../../src/pipeline/call-types.js";
import type { ProviderCall } from "../../../src/pipeline/invoke.js";

/** A call side that records what reached it (the boundary: the real one spawns and writes files). */
function recordingCallPath(): { callPath: CallPath; appended: (readonly AuditInput[])[]; closed: number[] } {
  const appended: (readonly AuditInput[])[] = [];
  const closed: number[] = [];
  const audit = {
    appendBatch: (records: readonly AuditInput[]): Promise<AuditAppendResult> => {
      appended.push(records);
      return Promise.resolve({ ok: true, hash: "h" });
    },
  };
  const callPath = {
    audit,
    run: (call: ProviderCall) => Promise.resolve({ scope: call.provider.tool } as unknown as CallOutcome),
    close: () => {
      closed.push(1);
      return Promise.resolve();
    },
  } as unknown as CallPath;
  return { callPath, appended, closed };
}

/** A loader that counts its runs and settles with `outcome`. */
function countingLoader(outcome: () => Promise<CallPath>): { load: () => Promise<CallPath>; loads: () => number } {
  let loads = 0;
  return {
    load: () => {
      loads += 1;
      return outcome();
    },
    loads: () => loads,
  };
}

const record: AuditInput = { call_id: "c1", scope: "kube", event: "invoke" };
const options = { onWritten: () => undefined, deferSync: false };

describe("lazyCallPath", () => {
  test("loads once, on first use, for concurrent first calls and the audit sink alike", async () => {
    const { callPath, appended } = recordingCallPath();
    const loader = countingLoader(() => Promise.resolve(callPath));
    const lazy = lazyCallPath(loader.load, () => undefined);
    expect(loader.loads()).toBe(0);
    const [first, second] = await Promise.all([lazy.get(), lazy.get()]);
    expect(await lazy.auditSink.appendBatch([record], options)).toEqual({ ok: true, hash: "h" });
    expect(first).toBe(callPath);
    expect(second).toBe(callPath);
    expect(loader.loads()).toBe(1);
    expect(appended).toEqual([[record]]);
  });

  test("a failed load is reported once, every use fails, and the audit sink answers with the failure instead of dropping it", async () => {
    const reports: string[] = [];
    const loader = countingLoader(() => Promise.reject(new Error("Cannot find module call-path-X.js")));
    const lazy = lazyCallPath(loader.load, (message) => reports.push(message));
    await expect(lazy.get()).rejects.toThrow("Cannot find module");
    await expect(lazy.get()).rejects.toThrow("Cannot find module");
    const appended = (await lazy.auditSink.appendBatch([record], options)) as AuditAppendResult;
    expect(appended.ok).toBe(false);
    expect(appended.ok ? "" : appended.error.message).toContain("Cannot find module");
    expect(loader.loads()).toBe(1);
    expect(reports).toEqual(["the call path could not be loaded, so no call can run: Cannot find module call-path-X.js"]);
    await expect(lazy.close()).resolves.toBeUndefined();
  });

  test("close closes the call side only if it was loaded", async () => {
    const { callPath, closed } = recordingCallPath();
    const loader = countingLoader(() => Promise.resolve(callPath));
    const lazy = lazyCallPath(loader.load, () => undefined);
    await lazy.close();
    expect(loader.loads()).toBe(0);
    expect(closed).toEqual([]);
    await lazy.get();
    await lazy.close();
    expect(closed).toEqual([1]);
  });
  test("ifLoaded never loads: undefined before any use, the call side once loaded, undefined when the load failed", async () => {
    const { callPath } = recordingCallPath();
    const loader = countingLoader(() => Promise.resolve(callPath));
    const lazy = lazyCallPath(loader.load, () => undefined);
    expect(await lazy.ifLoaded()).toBeUndefined();
    expect(loader.loads()).toBe(0);
    await lazy.get();
    expect(await lazy.ifLoaded()).toBe(callPath);
    expect(loader.loads()).toBe(1);

    const failing = lazyCallPath(
      () => Promise.reject(new Error("no chunk")),
      () => undefined,
    );
    await failing.get().catch(() => undefined);
    expect(await failing.ifLoaded()).toBeUndefined();
  });
});

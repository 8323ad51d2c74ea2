import { describe, expect, it } from "vitest";
import { Semaphore, SemaphoreFullError, type Release } from "../../../src/runtime/concurrency.js";

/** Lets every already-settled promise callback run. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** Starts an acquire and records, in `log`, when it is granted. */
function track(semaphore: Semaphore, name: string, log: string[], signal?: AbortSignal): Promise<Release> {
  return semaphore.acquire(signal).then((release) => {
    log.push(name);
    return release;
  });
}

describe("Semaphore", () => {
  it("lets at most `limit` holders in at once", async () => {
    const semaphore = new Semaphore(2);
    const log: string[] = [];
    const a = track(semaphore, "a", log);
    const b = track(semaphore, "b", log);
    const c = track(semaphore, "c", log);
    await settle();
    expect(log).toEqual(["a", "b"]);
    expect(semaphore.available).toBe(0);
    expect(semaphore.waiting).toBe(1);
    (await a)();
    await settle();
    expect(log).toEqual(["a", "b", "c"]);
    (await b)();
    (await c)();
    expect(semaphore.available).toBe(2);
  });

  it("grants waiters first come, first served, and never lets a newcomer overtake the queue", async () => {
    const semaphore = new Semaphore(1);
    const log: string[] = [];
    const first = await semaphore.acquire();
    const waiters = ["w1", "w2", "w3", "w4"].map((name) => track(semaphore, name, log));
    first();
    // A slot is free only in passing: the newcomer queues behind w2..w4.
    const late = track(semaphore, "late", log);
    for (const waiter of [...waiters, late]) {
      (await waiter)();
    }
    expect(log).toEqual(["w1", "w2", "w3", "w4", "late"]);
    expect(semaphore.available).toBe(1);
  });

  it("removes a canceled waiter from the queue and rejects it with the signal's reason", async () => {
    const semaphore = new Semaphore(1);
    const log: string[] = [];
    const holder = await semaphore.acquire();
    const controller = new AbortController();
    const canceled = track(semaphore, "canceled", log, controller.signal);
    const next = track(semaphore, "next", log);
    expect(semaphore.waiting).toBe(2);
    controller.abort(new Error("client went away"));
    await expect(canceled).rejects.toThrow("client went away");
    expect(semaphore.waiting).toBe(1);
    holder();
    (await next)();
    expect(log).toEqual(["next"]);
    expect(semaphore.available).toBe(1);
  });

  it("rejects an acquire whose signal is already aborted, without taking a slot", async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.acquire(AbortSignal.abort())).rejects.toMatchObject({ name: "AbortError" });
    expect(semaphore.available).toBe(1);
  });

  it("uses an AbortError when the abort reason is not an Error", async () => {
    const semaphore = new Semaphore(1);
    const holder = await semaphore.acquire();
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    controller.abort("not an error");
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    holder();
  });

  it("an abort after the grant changes nothing", async () => {
    const semaphore = new Semaphore(1);
    const controller = new AbortController();
    const release = await semaphore.acquire(controller.signal);
    controller.abort();
    expect(semaphore.available).toBe(0);
    release();
    expect(semaphore.available).toBe(1);
  });

  it("ignores a second release of the same slot", async () => {
    const semaphore = new Semaphore(2);
    const release = await semaphore.acquire();
    release();
    release();
    expect(semaphore.available).toBe(2);
    const holders = [await semaphore.acquire(), await semaphore.acquire()];
    release();
    expect(semaphore.available).toBe(0);
    for (const holder of holders) holder();
  });

  it("refuses instead of queueing once maxWaiting calls wait", async () => {
    const semaphore = new Semaphore(1, { maxWaiting: 1 });
    const holder = await semaphore.acquire();
    const queued = semaphore.acquire();
    await expect(semaphore.acquire()).rejects.toBeInstanceOf(SemaphoreFullError);
    await expect(new Semaphore(1, { maxWaiting: 0 }).acquire().then((r) => r)).resolves.toBeTypeOf("function");
    holder();
    (await queued)();
  });

  it("rejects a limit below one", () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
    expect(() => new Semaphore(1, { maxWaiting: -1 })).toThrow(RangeError);
  });
});

import { describe, expect, test } from "vitest";
import { ScopeMutex, ScopeWaitCanceled } from "../../../src/pipeline/scope-mutex.js";

/** A task that only notes in `log` that it ran. */
function logged(log: string[], entry: string): () => Promise<void> {
  return () => {
    log.push(entry);
    return Promise.resolve();
  };
}

/** A promise the test resolves when it chooses (`open`): how long a holder holds the scope. */
function gate(): { gate: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { gate: promise, open };
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ScopeMutex", () => {
  test("tasks of one scope run one at a time, in arrival order", async () => {
    const mutex = new ScopeMutex();
    const log: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const task = (name: string) => async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      log.push(`start ${name}`);
      await tick(20);
      log.push(`end ${name}`);
      running -= 1;
      return name;
    };
    const results = await Promise.all(["a", "b", "c"].map((name) => mutex.run("aws\0prod", task(name))));
    expect(results).toEqual(["a", "b", "c"]);
    expect(maxRunning).toBe(1);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(mutex.busyScopes).toBe(0);
  });

  test("different scopes run in parallel", async () => {
    const mutex = new ScopeMutex();
    let running = 0;
    let maxRunning = 0;
    const task = async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      await tick(30);
      running -= 1;
    };
    await Promise.all([mutex.run("aws\0prod", task), mutex.run("aws\0dev", task), mutex.run("kube\0kube", task)]);
    expect(maxRunning).toBe(3);
  });

  test("a failing task releases the scope for the next one", async () => {
    const mutex = new ScopeMutex();
    await expect(mutex.run("s", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(mutex.run("s", () => Promise.resolve("next"))).resolves.toBe("next");
    expect(mutex.busyScopes).toBe(0);
  });

  test("a waiter canceled while it waits leaves the queue at once, unrun; the next one still waits for the holder", async () => {
    const mutex = new ScopeMutex();
    const log: string[] = [];
    const { gate: holderGate, open: releaseHolder } = gate();
    const holder = mutex.run("s", async () => {
      log.push("holder");
      await holderGate;
    });
    const controller = new AbortController();
    const canceled = mutex.run("s", logged(log, "canceled ran"), controller.signal);
    let canceledSettled = false;
    canceled.then(
      () => (canceledSettled = true),
      () => (canceledSettled = true),
    );
    const next = mutex.run("s", () => {
      log.push("next");
      return Promise.resolve();
    });
    controller.abort();
    // One macrotask turn: every promise reaction the abort queued has run, the holder still holds.
    await new Promise((resolve) => setImmediate(resolve));
    expect(canceledSettled).toBe(true);
    await expect(canceled).rejects.toBeInstanceOf(ScopeWaitCanceled);
    expect(log).toEqual(["holder"]);
    releaseHolder();
    await Promise.all([holder, next]);
    expect(log).toEqual(["holder", "next"]);
    expect(mutex.busyScopes).toBe(0);
  });

  test("a task that arrives after the last waiter was canceled still waits for the holder, not just for the waiter", async () => {
    const mutex = new ScopeMutex();
    const log: string[] = [];
    const { gate: holderGate, open: releaseHolder } = gate();
    const holder = mutex.run("s", async () => {
      log.push("holder start");
      await holderGate;
      log.push("holder end");
    });
    const controller = new AbortController();
    const canceled = mutex.run("s", () => Promise.resolve(), controller.signal);
    controller.abort();
    await expect(canceled).rejects.toBeInstanceOf(ScopeWaitCanceled);
    // The canceled waiter was the scope's last: a newcomer must queue behind the holder it waited for.
    const late = mutex.run("s", () => {
      log.push("late");
      return Promise.resolve();
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(["holder start"]);
    expect(mutex.busyScopes).toBe(1);
    releaseHolder();
    await Promise.all([holder, late]);
    expect(log).toEqual(["holder start", "holder end", "late"]);
    expect(mutex.busyScopes).toBe(0);
  });

  test("a waiter canceled in the same turn as the holder releases does not run, and the next one runs after the holder", async () => {
    const mutex = new ScopeMutex();
    const log: string[] = [];
    const { gate: holderGate, open: releaseHolder } = gate();
    const holder = mutex.run("s", async () => {
      await holderGate;
      log.push("holder end");
    });
    const controller = new AbortController();
    const canceled = mutex.run("s", logged(log, "canceled ran"), controller.signal);
    const next = mutex.run("s", () => {
      log.push("next");
      return Promise.resolve();
    });
    releaseHolder();
    controller.abort();
    await expect(canceled).rejects.toBeInstanceOf(ScopeWaitCanceled);
    await Promise.all([holder, next]);
    expect(log).toEqual(["holder end", "next"]);
    expect(mutex.busyScopes).toBe(0);
  });
});

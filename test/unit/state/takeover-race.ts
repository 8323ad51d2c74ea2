/**
 * Many waiters taking over one planted stale lock at once: worker threads,
 * each running a lock kind of the BUILT state modules (dist/state), start
 * every trial together on a shared signal; a counter in shared memory that
 * each holder raises on entry and lowers on exit detects two holders at once.
 *
 * The race resolves only once every worker has exited: a worker's lock-file
 * token (lock-token.ts) is removed by its exit hook, which runs after its last
 * result reached the parent, so a caller checking for leftover files before
 * the exits would find live workers' tokens whenever the parent outran them
 * (as it does on a loaded machine).
 */
import { Worker } from "node:worker_threads";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { onTestFinished } from "vitest";
import type { LockTiming } from "../../../src/state/lock.js";

/** The lock functions a worker can take `file`'s lock with. */
export type LockKind = "lock-file" | "checked-lock" | "proper-lockfile";

const GO = 0;
const INSIDE = 1;
const OVERLAPS = 2;
const HELD = 3;

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { file, kind, dist, trials, timing, holdMs } = workerData;
const cells = new Int32Array(workerData.shared);
function body() {
  const before = Atomics.add(cells, ${INSIDE}, 1);
  if (before !== 0) Atomics.add(cells, ${OVERLAPS}, 1);
  Atomics.add(cells, ${HELD}, 1);
  Atomics.notify(cells, ${INSIDE});
  // The hold ends early when another holder enters (the overlap is then already counted).
  Atomics.wait(cells, ${INSIDE}, before + 1, holdMs);
  Atomics.sub(cells, ${INSIDE}, 1);
}
(async () => {
  const run =
    kind === "lock-file"
      ? ((m) => () => m.withSyncLockFile(file, timing, body))(await import(dist + "/lock-file.js"))
      : kind === "checked-lock"
        ? ((m) => () => m.withCheckedFileLock(file, timing, async () => body()))(await import(dist + "/checked-lock.js"))
        : ((m) => () => m.withFileLock(file, timing, async () => body()))(await import(dist + "/lock.js"));
  for (let trial = 1; trial <= trials; trial += 1) {
    for (let go = Atomics.load(cells, ${GO}); go < trial; go = Atomics.load(cells, ${GO})) Atomics.wait(cells, ${GO}, go);
    const error = await run().then(() => undefined, (thrown) => String(thrown.message));
    parentPort.postMessage({ error });
  }
})().catch((error) => { throw error; });
`;

export interface RaceOutcome {
  /** Entries into a body while another holder was inside it. */
  readonly overlaps: number;
  /** Bodies run: one per waiter and trial when every wait ended with the lock. */
  readonly held: number;
  /** What the waits that failed (or found their lock lost) threw. */
  readonly errors: readonly string[];
}

/**
 * Runs `trials` rounds: `plant()` leaves a dead holder's lock, then one waiter
 * per entry of `kinds` takes `file`'s lock at once. Each holder stays inside for
 * up to `holdMs` (less when another enters). Resolves after every worker exited.
 */
export async function raceTakeovers(options: {
  file: string;
  kinds: readonly LockKind[];
  trials: number;
  timing: LockTiming;
  holdMs: number;
  plant: (trial: number) => void;
}): Promise<RaceOutcome> {
  const cells = new Int32Array(new SharedArrayBuffer(4 * 4));
  const dist = pathToFileURL(path.resolve(import.meta.dirname, "../../../dist/state")).href;
  const errors: string[] = [];
  let done = 0;
  let failure: Error | undefined;
  let wake = (): void => {};
  const exits: Promise<number>[] = [];
  const workers = options.kinds.map((kind) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { file: options.file, kind, dist, trials: options.trials, timing: options.timing, holdMs: options.holdMs, shared: cells.buffer },
    });
    worker.on("message", (message: { error?: string }) => {
      if (message.error !== undefined) errors.push(message.error);
      done += 1;
      wake();
    });
    worker.on("error", (error) => {
      failure ??= error;
      wake();
    });
    exits.push(new Promise((resolve) => worker.once("exit", resolve)));
    return worker;
  });
  onTestFinished(async () => {
    await Promise.all(workers.map((worker) => worker.terminate()));
  });
  for (let trial = 1; trial <= options.trials; trial += 1) {
    options.plant(trial);
    Atomics.store(cells, GO, trial);
    Atomics.notify(cells, GO);
    const expected = trial * options.kinds.length;
    while (done < expected && failure === undefined) {
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (failure !== undefined) throw failure;
  }
  // Each worker ends after its last trial; its exit hooks (the token removal) have run once "exit" is emitted here.
  const codes = await Promise.all(exits);
  if (failure !== undefined) throw failure;
  if (codes.some((code) => code !== 0)) throw new Error(`a lock worker exited with code ${codes.join(", ")}`);
  return { overlaps: Atomics.load(cells, OVERLAPS), held: Atomics.load(cells, HELD), errors };
}

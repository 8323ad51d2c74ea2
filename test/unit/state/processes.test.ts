/**
 * Two real processes, each running the built LeaseStore, do 100
 * read-modify-compare-and-swap updates of one counter at the same moment
 * (retrying on StaleRevisionError). No update may be lost: the counter and the
 * revision both end at 400. A third reader, without the lock, never sees a
 * partial file.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { LeaseStore } from "../../../src/state/lease-store.js";
import { assertBuiltStateIsFresh, runChild } from "./child-process.js";
import { tempDir } from "./helpers.js";

const UPDATES_PER_PROCESS = 100;

const CAS_WRITER = `
const { LeaseStore } = await import(process.env.STATE_DIST + "/lease-store.js");
const { StaleRevisionError } = await import(process.env.STATE_DIST + "/errors.js");
const [dir, count, startAt] = process.argv.slice(1);
const store = new LeaseStore(dir);
while (Date.now() < Number(startAt)) await new Promise((resolve) => setTimeout(resolve, 1));
let conflicts = 0;
const started = performance.now();
for (let i = 0; i < Number(count); i += 1) {
  for (;;) {
    const read = store.read();
    if (!read.ok) throw read.error;
    const counter = read.state.authorizations.find((entry) => entry.target === "counter");
    const value = counter === undefined ? 0 : Number.parseInt(counter.binding, 16);
    try {
      await store.activate("counter", (value + 1).toString(16).padStart(64, "0"), 60, "add", read.state.revision);
      break;
    } catch (error) {
      if (!(error instanceof StaleRevisionError)) throw error;
      conflicts += 1;
    }
  }
}
process.stdout.write("done " + JSON.stringify({ conflicts, ms: Math.round(performance.now() - started) }) + "\\n");
`;

describe("LeaseStore across processes", () => {
  beforeAll(() => {
    assertBuiltStateIsFresh();
  });

  it(`two processes doing ${UPDATES_PER_PROCESS} compare-and-swap updates each lose none`, async () => {
    const dir = tempDir();
    const startAt = String(Date.now() + 500);
    const runs = [0, 1].map(() => runChild(CAS_WRITER, [dir, String(UPDATES_PER_PROCESS), startAt]));
    // Meanwhile this process reads without the lock: every read is a whole file, and revisions never go back.
    const reader = new LeaseStore(dir);
    const progress = { finished: false };
    let reads = 0;
    let lastRevision = 0;
    const reading = (async () => {
      while (!progress.finished) {
        const read = reader.read();
        if (!read.ok) throw read.error;
        expect(read.state.revision).toBeGreaterThanOrEqual(lastRevision);
        lastRevision = read.state.revision;
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const reports = await Promise.all(runs.map((run) => run.line("done ")));
    progress.finished = true;
    await reading;
    expect(reads).toBeGreaterThan(100);
    for (const run of runs) expect(await run.exited).toMatchObject({ code: 0 });
    const stats = reports.map((line) => JSON.parse(line.slice(5)) as { conflicts: number; ms: number });
    process.stderr.write(`2x${UPDATES_PER_PROCESS} CAS: ${JSON.stringify(stats)}\n`);

    const read = new LeaseStore(dir).read();
    if (!read.ok) throw read.error;
    expect(read.state.revision).toBe(2 * UPDATES_PER_PROCESS);
    expect(read.state.authorizations).toHaveLength(1);
    expect(Number.parseInt(read.state.authorizations[0]!.binding, 16)).toBe(2 * UPDATES_PER_PROCESS);
    // The two really raced: at least one compare-and-swap had to be retried.
    expect(stats.reduce((sum, entry) => sum + entry.conflicts, 0)).toBeGreaterThan(0);
  }, 60_000);
});

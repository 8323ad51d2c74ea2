/**
 * Fuzzing the front door: batches of random and mutated lines go to one real
 * server (dist/cli.js) over stdio. After each batch:
 * - the server still answers a valid tools/call, and runs it;
 * - every stdout line is a JSON-RPC message;
 * - every request with a readable id has exactly one reply, and the lines that
 *   must be answered without id are, once each (test/support/stdio-oracle.ts);
 * - children ran exactly for the allowed calls: the provider's program makes
 *   one marker per run, and nothing else may add one.
 *
 * Fixed seed, bounded runs (FUZZ_RUNS=500 and FUZZ_SEED=n for longer local
 * runs), no sleeps: every wait is for a reply by id.
 */
import { chmodSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { startRawSession, toolCallLine, type RawSession } from "../support/raw-stdio.js";
import { lineArbitrary } from "../support/stdio-fuzz-lines.js";
import { ALLOWED, expectationFor, isJsonRpcLine, type ReplyId } from "../support/stdio-oracle.js";
import { tempDirectory } from "../support/temp-dirs.js";

const LIMIT = 4096;
const SEED = Number(process.env.FUZZ_SEED ?? "20261130");
const RUNS = Number(process.env.FUZZ_RUNS ?? "25");

const markers = tempDirectory("torii-fuzz-markers-");
const binDir = tempDirectory("torii-fuzz-bin-");
let session: RawSession;

beforeAll(async () => {
  // One marker directory per run; mktemp keeps the program tiny and fast.
  const program = path.join(binDir, "marker");
  writeFileSync(program, `#!/bin/sh\nexec mktemp -d ${markers}/run-XXXXXXXX\n`);
  chmodSync(program, 0o755);
  const root = makeConfigTree({
    "settings.yaml": `max_message_bytes: ${LIMIT}\n`,
    [`providers/${ALLOWED.tool}/provider.yaml`]: `version: "1"\nname: ${ALLOWED.tool}\ntool: ${ALLOWED.tool}\ncommand: ${program}\n`,
    [`providers/${ALLOWED.tool}/rules.yaml`]: `version: "1"\naccept: [${ALLOWED.firstArg}]\n`,
  });
  session = startRawSession({ TORII_CONFIG_DIR: root });
  await session.initialize();
});

// Shutdown flushes the audit records of every run first, so a long local run needs longer.
afterAll(
  async () => {
    expect(await session.close()).toBe(0);
  },
  30_000 + RUNS * 100,
);

/** Splits what was sent into the lines the server sees (the last one ends with the newline). */
function linesOf(payload: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let newline = payload.indexOf(0x0a); newline !== -1; newline = payload.indexOf(0x0a, start)) {
    lines.push(payload.subarray(start, newline));
    start = newline + 1;
  }
  return lines;
}

const key = (id: ReplyId): string => (id === undefined ? "(none)" : JSON.stringify(id));

function tally(ids: Iterable<ReplyId>, into = new Map<string, number>()): Map<string, number> {
  for (const id of ids) into.set(key(id), (into.get(key(id)) ?? 0) + 1);
  return into;
}

/** Waits for every expected reply by id; fails naming the missing ids if one never comes. */
async function awaitReplies(expected: Map<string, number>, batch: number): Promise<void> {
  const waits = [...expected].filter(([id]) => id !== "(none)").map(([id, count]) => session.reply(JSON.parse(id) as string | number, count));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const got = tally(session.lines.filter((line) => line.message !== undefined && !("method" in line.message)).map((line) => line.message?.id as ReplyId));
      const missing = [...expected].filter(([id, count]) => id !== "(none)" && (got.get(id) ?? 0) < count).map(([id]) => id);
      reject(new Error(`batch ${batch}: no reply for ${missing.join(", ")}; stderr tail:\n${session.stderr().slice(-2000)}`));
    }, 60_000);
  });
  try {
    await Promise.race([Promise.all(waits), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

test(
  "after any batch of lines the server answers, writes only JSON-RPC, replies once per id and runs only allowed calls",
  async () => {
    const expected = tally(["init"]); // session.initialize()'s request
    const received = new Map<string, number>();
    let checkedLines = 0;
    let expectedRuns = 0;
    let batch = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(lineArbitrary(LIMIT), { minLength: 1, maxLength: 10 }), async (generated) => {
        batch += 1;
        const sentinel = `sentinel-${batch}`;
        const payload = Buffer.concat([
          ...generated.flatMap((line) => [line, Buffer.from("\n")]),
          Buffer.from(toolCallLine(sentinel, ALLOWED.tool, { args: [ALLOWED.firstArg, "sentinel"] })),
        ]);
        for (const line of linesOf(payload)) {
          const expectation = expectationFor(line, LIMIT);
          tally(expectation.replies, expected);
          if (expectation.spawns) expectedRuns += 1;
        }
        session.send(payload);
        await awaitReplies(expected, batch);

        const reply = await session.reply(sentinel);
        expect(reply.result).toMatchObject({ structuredContent: { decision: { result: "allow" }, execution: { exit_code: 0 } } });
        const fresh = session.lines.slice(checkedLines);
        checkedLines += fresh.length;
        for (const line of fresh) expect(isJsonRpcLine(line.raw), line.raw.toString("utf8").slice(0, 300)).toBe(true);
        tally(
          fresh.filter((line) => line.message !== undefined && !("method" in line.message)).map((line) => line.message?.id as ReplyId),
          received,
        );
        expect(received).toEqual(expected);
        expect(readdirSync(markers)).toHaveLength(expectedRuns);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  },
  120_000 + RUNS * 2_000,
);

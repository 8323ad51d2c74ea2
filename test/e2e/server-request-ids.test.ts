/**
 * Request ids through the real server: a request whose id is already used by a
 * request in flight is refused and runs nothing, so a `notifications/cancelled`
 * for that id still reaches the call that holds it (the SDK keys each call's
 * cancellation by id alone: a second call with the same id used to take it over,
 * leaving the first call's process running and impossible to cancel).
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { alive } from "../support/processes.js";
import { startRawSession, toolCallLine, type RawSession } from "../support/raw-stdio.js";
import { tempDirectory } from "../support/temp-dirs.js";

const fifos = tempDirectory("torii-ids-");
/** Writes its pid into the FIFO named by its second argument (blocking until the test reads it), then runs until killed. */
const HOLDER = `require("node:fs").writeFileSync(require("node:path").join(${JSON.stringify(fifos)}, process.argv[3]), String(process.pid));
setInterval(() => undefined, 1_000_000);`;

let bin: FakeBin;
let root: string;
/**
 * One server for the file: each test uses ids of its own (0 and "" twice, counted by `replyNumber`), and every
 * call it starts ends within it, so a server per test would only start the same process again.
 */
let raw: RawSession;

beforeAll(async () => {
  execFileSync("mkfifo", [
    path.join(fifos, "first"),
    path.join(fifos, "second"),
    path.join(fifos, "zero"),
    path.join(fifos, "empty"),
    path.join(fifos, "reused"),
  ]);
  bin = makeFakeBin({ holder: HOLDER, quick: 'process.stdout.write("ran")' });
  root = makeConfigTree({
    "providers/hold/provider.yaml": 'version: "1"\nname: hold\ntool: hold\ncommand: holder\n',
    "providers/hold/rules.yaml": 'version: "1"\naccept: [run]\n',
    "providers/quick/provider.yaml": 'version: "1"\nname: quick\ntool: quick\ncommand: quick\n',
    "providers/quick/rules.yaml": 'version: "1"\naccept: [run]\n',
  });
  raw = startRawSession({ TORII_CONFIG_DIR: root, PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
  await raw.initialize();
});

afterAll(async () => {
  await raw.close();
});

/** Which reply to `id` the next request with it gets (1 = the first): the replies it had so far, plus one. */
const replyNumber = (id: string | number): number =>
  raw.lines.filter((line) => line.message !== undefined && line.message.id === id && !("method" in line.message)).length + 1;

const cancel = (requestId: string | number): string =>
  `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "test" } })}\n`;

describe("a request id already in flight", () => {
  test("is refused with -32600 and runs nothing; a cancel for that id stops the call that holds it; the id is free again after", async () => {
    raw.send(toolCallLine(7, "hold", { args: ["run", "first"] }));
    const first = Number(await readFile(path.join(fifos, "first"), "utf8"));
    expect(alive(first)).toBe(true);

    raw.send(toolCallLine(7, "hold", { args: ["run", "second"] }));
    raw.send(`${JSON.stringify({ jsonrpc: "2.0", id: "after", method: "ping" })}\n`);
    await raw.reply("after"); // lines are read in order: the duplicate was handled before the ping
    expect(raw.lines.filter((line) => line.message?.id === 7).map((line) => line.message)).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid Request: the id is already used by a request in flight" } },
    ]);

    raw.send(cancel(7));
    await expect.poll(() => alive(first), { timeout: 30_000 }).toBe(false);

    // Canceled, the id is free: a new call with it runs (and its response is the only other reply for 7).
    raw.send(toolCallLine(7, "hold", { args: ["run", "second"] }));
    const second = Number(await readFile(path.join(fifos, "second"), "utf8"));
    expect(alive(second)).toBe(true);
    raw.send(cancel(7));
    await expect.poll(() => alive(second), { timeout: 30_000 }).toBe(false);
    expect(raw.stderr()).toContain("its id is used by a request in flight");
  });
});

describe("a call whose id is falsy", () => {
  // The SDK aborts no call whose id is 0 or "" on a cancel (`_oncancel`: `if (!requestId) return`); 0 is its client's first id.
  test.each([
    [0, "zero"],
    ["", "empty"],
  ])(
    "is stopped by a cancel for its id %j, and answered with its canceled result",
    async (id, fifo) => {
      const number = replyNumber(id);
      raw.send(toolCallLine(id, "hold", { args: ["run", fifo] }));
      const pid = Number(await readFile(path.join(fifos, fifo), "utf8"));
      expect(alive(pid)).toBe(true);
      raw.send(cancel(id));
      // Before, the call ran on (its process until killed by hand) and was never answered.
      const reply = (await raw.reply(id, number)) as { result?: { structuredContent?: { execution?: { canceled?: boolean; signal?: string } } } };
      expect(reply.result?.structuredContent?.execution).toMatchObject({ canceled: true, signal: "SIGTERM" });
      expect(alive(pid)).toBe(false);
    },
    30_000,
  );
});

describe("a cancel read with its call", () => {
  // The protocol layer starts a call's handler on a later microtask: a cancel in the same chunk as its request found no
  // call of Torii's to stop (the SDK, which aborts its own controller for any other id, ignores 0 and ""), so it ran.
  test.each([0, ""])("for the id %j stops the call, answered with its canceled result (its command, run to its end, was before)", async (id) => {
    const number = replyNumber(id);
    raw.send(toolCallLine(id, "quick", { args: ["run"] }) + cancel(id));
    const reply = (await raw.reply(id, number)) as { result?: { structuredContent?: { execution?: { canceled?: boolean } } } };
    expect(reply.result?.structuredContent?.execution?.canceled).toBe(true);
  });
});

describe("an id reused at once after its cancel", () => {
  // The SDK aborts a canceled call on a later microtask, looking its controller up by id: a request reusing the id in the
  // same chunk was handed on first, took that slot, and the cancel aborted it, while the canceled call ran on, answered
  // as the new request's reply. The id stays in flight until the SDK has seen the cancel (the next turn).
  test("is refused with -32600; the cancel stops the call it named", async () => {
    raw.send(toolCallLine(9, "hold", { args: ["run", "reused"] }));
    const first = Number(await readFile(path.join(fifos, "reused"), "utf8"));
    raw.send(cancel(9) + toolCallLine(9, "quick", { args: ["run"] }) + `${JSON.stringify({ jsonrpc: "2.0", id: "after-reuse", method: "ping" })}\n`);
    await raw.reply("after-reuse"); // the transport refuses a reused id at once, before the ping is answered
    expect(raw.lines.filter((line) => line.message?.id === 9).map((line) => line.message)).toEqual([
      { jsonrpc: "2.0", id: 9, error: { code: -32600, message: "Invalid Request: the id is already used by a request in flight" } },
    ]);
    await expect.poll(() => alive(first), { timeout: 30_000 }).toBe(false);
    raw.send(toolCallLine(9, "quick", { args: ["run"] }));
    const reply = (await raw.reply(9, 2)) as { result?: { structuredContent?: { execution?: { stdout?: string } } } };
    expect(reply.result?.structuredContent?.execution?.stdout).toBe("ran");
  }, 60_000);
});

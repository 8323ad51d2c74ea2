/**
 * The stdio transport through the real server: an oversized line is refused
 * with its id and skipped while the calls in flight go on; invalid requests
 * are answered with -32600 and their id instead of being dropped.
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession } from "../support/mcp-session.js";
import { startRawSession, toolCallLine, type RawSession } from "../support/raw-stdio.js";
import { tempDirectory } from "../support/temp-dirs.js";

const fifos = tempDirectory("torii-fifo-");
const STARTED = path.join(fifos, "started");
const RELEASE = path.join(fifos, "release");

/** Opens STARTED for writing (blocks until the test reads it), then waits for the test to write RELEASE. */
const GATE = `const fs = require("node:fs");
fs.writeFileSync(${JSON.stringify(STARTED)}, "started");
process.stdout.write("released:" + fs.readFileSync(${JSON.stringify(RELEASE)}, "utf8"));`;

let bin: FakeBin;
let root: string;

beforeAll(() => {
  execFileSync("mkfifo", [STARTED, RELEASE]);
  bin = makeFakeBin({ gate: GATE });
  root = makeConfigTree({
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
    "providers/rec/rules.yaml": 'version: "1"\naccept: [status]\n',
    "providers/gate/provider.yaml": 'version: "1"\nname: gate\ntool: gate\ncommand: gate\n',
    "providers/gate/rules.yaml": 'version: "1"\naccept: [wait]\n',
  });
});

describe("an oversized line", () => {
  test("is refused with its id and skipped; the next call succeeds and a call in flight across it completes", async () => {
    const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    try {
      const inFlight = session.call("gate", { args: ["wait"] });
      expect(await readFile(STARTED, "utf8")).toBe("started"); // the gate's child is running

      const huge = "x".repeat(11 * 1024 * 1024);
      const refused = await session.call("rec", { args: ["status", huge] }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(-32600);
      expect((refused as McpError).message).toMatch(/exceeds the 1048576-byte limit/u);

      expect(outcomeOf(await session.call("rec", { args: ["status", "after"] })).execution?.exit_code).toBe(0);

      await writeFile(RELEASE, "go");
      const released = await inFlight;
      expect(released.isError).toBeFalsy();
      expect(JSON.stringify(released.content)).toContain("released:go");
    } finally {
      await session.close();
    }
  });

  test("max_message_bytes in settings.yaml sets the limit; a line of exactly the limit is read", async () => {
    const limited = makeConfigTree({
      "settings.yaml": "max_message_bytes: 2048\n",
      "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
      "providers/rec/rules.yaml": 'version: "1"\naccept: [status]\n',
    });
    const raw = startRawSession({ TORII_CONFIG_DIR: limited, PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    try {
      await raw.initialize();
      const ping = (id: number, bytes: number): string => {
        const bare = JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { _meta: { pad: "" } } });
        return JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { _meta: { pad: "p".repeat(bytes - bare.length) } } });
      };
      raw.send(`${ping(1, 2049)}\n${ping(2, 2048)}\n`);
      expect(await raw.reply(1)).toMatchObject({ error: { code: -32600, message: "Invalid Request: the message exceeds the 2048-byte limit" } });
      expect(await raw.reply(2)).toMatchObject({ result: {} });
    } finally {
      await raw.close();
    }
  });
});

describe("invalid requests", () => {
  let raw: RawSession;

  beforeAll(async () => {
    raw = startRawSession({ TORII_CONFIG_DIR: root, PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    await raw.initialize();
  });

  afterAll(async () => {
    expect(await raw.close()).toBe(0);
  });

  const call = { name: "rec", arguments: { args: ["status"] } };
  test.each([
    ["an unknown top-level field", { jsonrpc: "2.0", id: 101, method: "tools/call", params: call, shell: true }, 101],
    ["an unknown top-level field, string id", { jsonrpc: "2.0", id: "req-7", method: "tools/call", params: call, extra: null }, "req-7"],
    ["jsonrpc 1.0", { jsonrpc: "1.0", id: 102, method: "tools/call", params: call }, 102],
    ["no jsonrpc member", { id: 103, method: "tools/call", params: call }, 103],
    ["a numeric method", { jsonrpc: "2.0", id: 104, method: 7, params: call }, 104],
    ["string params", { jsonrpc: "2.0", id: 105, method: "tools/call", params: "status" }, 105],
    ["array params", { jsonrpc: "2.0", id: 106, method: "tools/call", params: ["rec"] }, 106],
    ["a fractional id", { jsonrpc: "2.0", id: 106.5, method: "tools/call", params: call }, 106.5],
    [
      "a lone surrogate in an argument",
      { jsonrpc: "2.0", id: 107, method: "tools/call", params: { name: "rec", arguments: { args: ["status", "\ud800"] } } },
      107,
    ],
  ])("%s gets -32600 with its id", async (_name, message, id) => {
    raw.send(`${JSON.stringify(message)}\n`);
    expect(await raw.reply(id)).toEqual({ jsonrpc: "2.0", id, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /u) as unknown } });
  });

  test.each([
    ["null arguments", { jsonrpc: "2.0", id: 351, method: "tools/call", params: { name: "rec", arguments: null } }, 351, "params.arguments"],
    ["a numeric tool name", { jsonrpc: "2.0", id: 352, method: "tools/call", params: { name: 7 } }, 352, "params.name"],
    ["no params", { jsonrpc: "2.0", id: 353, method: "tools/call" }, 353, "params"],
  ])("a tools/call with %s gets -32602 naming the path, not -32603", async (_name, message, id, where) => {
    raw.send(`${JSON.stringify(message)}\n`);
    expect(await raw.reply(id)).toEqual({
      jsonrpc: "2.0",
      id,
      error: { code: -32602, message: expect.stringMatching(new RegExp(`^Invalid params for tools/call: ${where.replace(".", "\\.")}: `, "u")) as unknown },
    });
  });

  test("a batch gets -32600 for each of its requests, and nothing in it runs", async () => {
    raw.send(
      `${JSON.stringify([
        { jsonrpc: "2.0", id: 201, method: "tools/call", params: call },
        { jsonrpc: "2.0", id: 202, method: "ping" },
      ])}\n`,
    );
    expect(await raw.reply(201)).toMatchObject({ error: { code: -32600 } });
    expect(await raw.reply(202)).toMatchObject({ error: { code: -32600 } });
  });

  test("deep nesting (in params, _meta, or a response the protocol layer cannot print) does not stop the server", async () => {
    const depth = 150_000;
    const deepArray = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const deepObject = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    raw.send(`{"jsonrpc":"2.0","id":401,"method":"tools/call","params":{"name":"rec","arguments":{"args":${deepArray}}}}\n`);
    raw.send(`{"jsonrpc":"2.0","id":402,"method":"ping","params":{"_meta":${deepObject}}}\n`);
    raw.send(`{"jsonrpc":"2.0","id":"unknown-response","result":${deepObject}}\n`);
    raw.send(toolCallLine(403, "rec", { args: ["status"] }));
    expect(await raw.reply(401)).toMatchObject({ error: { code: -32602 } });
    expect(await raw.reply(402)).toMatchObject({ result: {} });
    expect(await raw.reply(403)).toMatchObject({ result: { structuredContent: { execution: { exit_code: 0 } } } });
  });

  test("a parse error gets -32700 without id; an invalid notification gets nothing; the server keeps serving", async () => {
    const before = raw.lines.length;
    raw.send('{"jsonrpc":"2.0","id":301,"method":\n');
    raw.send(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized", extra: 1 })}\n`);
    raw.send(toolCallLine(302, "rec", { args: ["status"] }));
    expect(await raw.reply(302)).toMatchObject({ result: { structuredContent: { execution: { exit_code: 0 } } } });
    expect(raw.lines.slice(before).map((line) => line.message)).toEqual([
      { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the line is not valid JSON" } },
      expect.objectContaining({ id: 302 }),
    ]);
  });
});

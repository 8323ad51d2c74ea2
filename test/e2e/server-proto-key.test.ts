/**
 * A `__proto__` key through the real server: the SDK copies a call's arguments
 * into a new object, where `__proto__` sets the prototype instead of staying a
 * key, so the strict envelope never saw it. The transport refuses the message
 * (-32600, with its id) and nothing runs.
 */
import { expect, test } from "vitest";
import { startSentinelSession } from "../support/raw-stdio.js";

test("a call whose arguments hold a __proto__ key is refused with -32600 and runs nothing", async () => {
  const { raw, bin } = startSentinelSession();
  try {
    await raw.initialize();
    // Written by hand: JSON.stringify of an object literal never emits a __proto__ key.
    raw.send('{"jsonrpc":"2.0","id":"proto","method":"tools/call","params":{"name":"sentinel","arguments":{"args":["go"],"__proto__":{"x":1}}}}\n');
    raw.send('{"jsonrpc":"2.0","id":"policy","method":"tools/call","params":{"name":"torii_policy","arguments":{"provider":"sentinel","__proto__":{}}}}\n');
    expect(await raw.reply("proto")).toEqual({ jsonrpc: "2.0", id: "proto", error: { code: -32600, message: "Invalid Request: a key is named __proto__" } });
    expect(await raw.reply("policy")).toEqual({ jsonrpc: "2.0", id: "policy", error: { code: -32600, message: "Invalid Request: a key is named __proto__" } });
    expect(bin.ran("must-not-run")).toBe(false);
  } finally {
    await raw.close();
  }
});

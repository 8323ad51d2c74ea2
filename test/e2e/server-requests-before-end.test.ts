/**
 * The end of stdin is seen only after every line the client sent before it was read: requests are handed on a
 * batch per turn (RELEASE_BATCH) and a hold bound may stop reading mid-chunk, the rest of the chunk waiting in the
 * transport's line reader, not in the stream; the stream still reported its end at once, and the server shut down
 * while that rest was unread, so requests the client sent before closing stdin were refused (-32603, "shutting down")
 * or never answered.
 */
import { describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { startRawSession } from "../support/raw-stdio.js";
import { RELEASE_BATCH } from "../../src/mcp/stdio/transport.js";

describe("stdin's end", () => {
  test("comes after the requests sent before it: each of a burst written with the end is answered as it would be alone", async () => {
    const root = makeConfigTree({
      "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
      "providers/rec/rules.yaml": 'version: "1"\naccept: [status]\n',
    });
    const raw = startRawSession({ TORII_CONFIG_DIR: root });
    await raw.initialize();
    const count = 4 * RELEASE_BATCH;
    const ids = Array.from({ length: count }, (_, index) => index + 1);
    // One write, then the end: the server reads the burst in one chunk and sees the end right after it.
    raw.child.stdin.end(ids.map((id) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`).join(""));
    const replies = await Promise.all(ids.map((id) => raw.reply(id)));
    expect(replies.filter((reply) => "error" in reply)).toEqual([]);
    expect(await raw.close()).toBe(0);
  });
});

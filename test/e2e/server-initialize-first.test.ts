/**
 * MCP's lifecycle through the real server: initialize is the first interaction.
 * A tools/call (or tools/list) before it is refused with -32600 and runs nothing;
 * ping is allowed, and after initialize the same call runs.
 */
import { expect, test } from "vitest";
import { startSentinelSession, toolCallLine } from "../support/raw-stdio.js";

test("tools/call and tools/list before initialize are refused and run nothing; after initialize the call runs", async () => {
  const { raw, bin } = startSentinelSession();
  try {
    raw.send(toolCallLine("early", "sentinel", { args: ["go"] }));
    raw.send(`${JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" })}\n`);
    raw.send(`${JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" })}\n`);
    const refusal = { code: -32600, message: "MCP error -32600: the session is not initialized: send initialize first" };
    expect(await raw.reply("early")).toEqual({ jsonrpc: "2.0", id: "early", error: refusal });
    expect(await raw.reply("list")).toEqual({ jsonrpc: "2.0", id: "list", error: refusal });
    expect(await raw.reply("ping")).toEqual({ jsonrpc: "2.0", id: "ping", result: {} });
    expect(bin.ran("must-not-run")).toBe(false);

    await raw.initialize();
    raw.send(toolCallLine("late", "sentinel", { args: ["go"] }));
    expect(await raw.reply("late")).toMatchObject({ result: { structuredContent: { execution: { exit_code: 0 } } } });
    expect(bin.ran("must-not-run")).toBe(true);
  } finally {
    await raw.close();
  }
});

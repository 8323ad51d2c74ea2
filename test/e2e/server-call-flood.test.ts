/**
 * A flood of calls is bounded (threat model section 6): behind the calls that
 * hold the `max_concurrent_calls` slots, at most MAX_WAITING_CALLS wait; one
 * more is refused at once with a JSON-RPC error, and the server keeps
 * answering. Unbounded, every queued call held its request and handler state
 * (100,000 calls took the server past 600 MB) and none was ever refused.
 * Through the MCP SDK's real Client and the built stdio server.
 */
import { describe, expect, onTestFinished, test } from "vitest";
import { MAX_WAITING_CALLS } from "../../src/mcp/call-path.js";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { startSession } from "../support/mcp-session.js";

describe("a flood of calls", () => {
  test("is refused past the waiting bound while a call holds the only slot, and the server still answers", async () => {
    const bin = makeFakeBin({ hang: "setInterval(() => {}, 1000);" });
    const root = makeConfigTree({
      "settings.yaml": "max_concurrent_calls: 1\n",
      "providers/hang/provider.yaml": 'version: "1"\nname: hang\ntool: hang\ncommand: hang\n',
      "providers/hang/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    });
    const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    onTestFinished(() => session.close().catch(() => undefined));

    const controller = new AbortController();
    onTestFinished(() => controller.abort());
    // One call holds the slot (its program never ends), MAX_WAITING_CALLS wait behind it, one more does not fit.
    const calls = Array.from({ length: MAX_WAITING_CALLS + 2 }, () => session.call("hang", { args: ["x"] }, { signal: controller.signal, timeout: 600_000 }));
    for (const call of calls) call.catch(() => undefined);
    const refusal = await new Promise<string>((resolve) => {
      for (const call of calls) call.catch((error: unknown) => resolve((error as Error).message));
    });
    expect(refusal).toMatch(new RegExp(`too many concurrent calls: 1 running and ${MAX_WAITING_CALLS} waiting; nothing was run`, "u"));
    // Still responsive while the slot is held and the queue is full.
    expect((await session.client.listTools()).tools.map((tool) => tool.name)).toContain("hang");
  });
});

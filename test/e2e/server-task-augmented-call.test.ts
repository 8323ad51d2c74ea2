/**
 * A task-augmented tools/call (MCP 2025-11-25 tasks: `params.task`) through the
 * real server. Torii declares no `tasks` capability, and the revision requires a
 * receiver without it to process the request normally, ignoring the task
 * metadata: the call goes through the policy and is answered with a plain
 * result. The SDK answered -32603 "Server does not support task creation".
 */
import { expect, test } from "vitest";
import { startSentinelSession } from "../support/raw-stdio.js";

const taskCall = (id: string, args: readonly string[], task: unknown): string =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "sentinel", arguments: { args }, task } })}\n`;

test("a tools/call with a task field runs as a plain call through the policy; a denied one is still denied", async () => {
  const { raw, bin } = startSentinelSession();
  try {
    await raw.initialize();
    const init = await raw.reply("init");
    expect((init.result as { capabilities: Record<string, unknown> }).capabilities).not.toHaveProperty("tasks");

    raw.send(taskCall("denied", ["stop"], { ttl: 60_000 }));
    expect(await raw.reply("denied")).toMatchObject({ result: { isError: true, structuredContent: { decision: { result: "deny" } } } });
    expect(bin.ran("must-not-run")).toBe(false);

    // Any shape of task metadata is ignored, not checked.
    raw.send(taskCall("odd", ["go"], 5));
    raw.send(taskCall("task", ["go"], { ttl: 60_000 }));
    expect(await raw.reply("task")).toMatchObject({ result: { structuredContent: { execution: { exit_code: 0 } } } });
    expect(await raw.reply("odd")).toMatchObject({ result: { structuredContent: { execution: { exit_code: 0 } } } });
    expect(bin.ran("must-not-run")).toBe(true);
  } finally {
    await raw.close();
  }
});

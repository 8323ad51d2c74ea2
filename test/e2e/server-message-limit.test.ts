/**
 * A large output under a raised max_output_bytes reaches the client as one
 * readable message, cut and marked, and the session goes on. Before the cut
 * the result of 2 MiB of control bytes was ~28 MiB of JSON, past the SDK
 * client's 10 MiB read buffer: the client dropped the connection.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";

const provider = (name: string): string => `version: "1"\nname: ${name}\ntool: ${name}\ncommand: ${name}\n`;
const ACCEPT_ALL = 'version: "1"\naccept: ["/.*/"]\n';

let session: McpSession;

beforeAll(async () => {
  const bin = makeFakeBin({
    // 2 MiB of a control byte: under the raised cap, about 14 times that once escaped in a result.
    controls: `process.stdout.write(Buffer.alloc(2 * 1024 * 1024, 1));`,
  });
  const root = makeConfigTree({
    "providers/controls/provider.yaml": provider("controls"),
    "providers/controls/rules.yaml": ACCEPT_ALL,
    "providers/recorder/provider.yaml": provider("recorder"),
    "providers/recorder/rules.yaml": ACCEPT_ALL,
    "settings.yaml": `max_output_bytes: ${4 * 1024 * 1024}\n`,
  });
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
});

afterAll(async () => {
  await session.close();
});

test("an output whose result would pass the client's read buffer is cut to fit one message, and the session goes on", async () => {
  const result = await session.call("controls", { args: ["go"] }, { timeout: 120_000 });
  const outcome = outcomeOf(result);
  expect(outcome.execution?.exit_code).toBe(0);
  expect(outcome.execution?.truncated).toBe(true);
  const kept = outcome.execution?.stdout ?? "";
  expect(kept.length).toBeGreaterThan(100_000);
  expect(kept).toBe("\u0001".repeat(kept.length));
  const summary = result.content[0];
  expect(summary?.type === "text" ? summary.text : "").toContain("output was cut to fit one MCP message");
  // The connection survived: the next call is answered.
  const next = outcomeOf(await session.call("recorder", { args: ["after"] }));
  expect(next.execution?.exit_code).toBe(0);
});

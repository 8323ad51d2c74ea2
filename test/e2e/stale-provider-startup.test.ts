/**
 * The built server, started over stdio by the MCP SDK's client, says on stderr,
 * once, which installed provider definitions are older than the ones bundled
 * with it and the command that upgrades each; a current tree gets no such line,
 * and stdout stays JSON-RPC (the client lists the tools).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { startSession, type McpSession } from "../support/mcp-session.js";

const GCLOUD = readFileSync(fileURLToPath(new URL("../../providers/gcloud/provider.yaml", import.meta.url)), "utf8");
const RULES = 'version: "1"\n';
const STALE_LINE = "torii: installed provider gcloud is older than the definition bundled with this Torii";

let stale: McpSession;
let current: McpSession;

beforeAll(async () => {
  // No provider.generated.json in either tree: the provider.yaml text decides (an older copy, and an exact one).
  const staleRoot = makeConfigTree({
    "providers/gcloud/provider.yaml": `${GCLOUD.replace("  mode: credentials\n", "  mode: credentials\n  # older\n")}`,
    "providers/gcloud/rules.yaml": RULES,
  });
  const currentRoot = makeConfigTree({ "providers/gcloud/provider.yaml": GCLOUD, "providers/gcloud/rules.yaml": RULES });
  [stale, current] = await Promise.all([startSession(staleRoot), startSession(currentRoot)]);
});

afterAll(async () => {
  await Promise.all([stale.close(), current.close()]);
});

test("an older installed definition gets one stderr line naming torii provider upgrade; a current one none", async () => {
  for (const session of [stale, current]) {
    expect((await session.client.listTools()).tools.map((tool) => tool.name)).toContain("gcloud");
    // The line is written before "serving …" (serve.ts), so once that is there, so is it.
    await vi.waitFor(() => expect(session.stderr()).toContain("torii: serving 1 provider(s)"), { timeout: 30_000 });
  }
  expect(stale.stderr().split(STALE_LINE).length - 1).toBe(1);
  expect(stale.stderr()).toContain("run torii provider upgrade gcloud, then restart the client");
  expect(current.stderr()).not.toContain("older than the definition bundled");
});

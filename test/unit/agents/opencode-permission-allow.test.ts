/**
 * Review finding for src/agents/clients.ts opencodeOwnedEdits (belongs in
 * test/unit/commands/agent-opencode-permission.test.ts): an existing `"torii_*": "allow"` is now kept by install
 * and no longer makes status `outdated` (before the merge, install wrote "ask" over it and status said
 * `permission.torii_* is not set`). "deny" or a per-tool object are stricter and may be kept; "allow" turns off the
 * per-call question Torii registers, and an agent can write it as easily as the operator.
 */
import path from "node:path";
import { describe, expect, test } from "vitest";
import { clientById } from "../../../src/agents/clients.js";
import { statusOf } from "../../../src/agents/registration.js";
import { toriiCodeDirectory } from "../../../src/runtime/own-code.js";

describe("opencode: permission torii_* = allow", () => {
  test("status does not call it registered", () => {
    const opencode = clientById("opencode")!;
    const launch = { node: process.execPath, cli: path.join(toriiCodeDirectory(), "cli.js"), configRoot: "/home/ann/.config/torii" };
    const document = { mcp: { torii: opencode.entry(launch) }, permission: { "torii_*": "allow" } };
    const status = statusOf(opencode, document, launch);
    expect(status.state).not.toBe("registered"); // actual: "registered"
  });
});

test("install rewrites torii_* allow to ask, keeping the operator's other rules", () => {
  const opencode = clientById("opencode")!;
  const launch = { node: process.execPath, cli: path.join(toriiCodeDirectory(), "cli.js"), configRoot: "/home/ann/.config/torii" };
  const document = { mcp: { torii: opencode.entry(launch) }, permission: { "torii_*": "allow", bash: "ask" } };
  expect(opencode.ownedEdits?.(document, "install")).toEqual([{ path: ["permission", "torii_*"], value: "ask" }]);
  expect(statusOf(opencode, document, launch).reasons.join(" ")).toContain('"allow"');
});

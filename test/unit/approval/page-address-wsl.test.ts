/**
 * Review finding for src/approval/page-address.ts (belongs in test/unit/approval/page-address.test.ts).
 * WSL is detected only from WSL_DISTRO_NAME / WSL_INTEROP in the MCP server's environment. Clients that start MCP
 * servers with a fixed set of variables drop them: Codex (HOME, PATH, USER, LANG, TERM, TMPDIR, ... plus `env`/
 * `env_vars`), the MCP SDK's StdioClientTransport default (HOME, LOGNAME, PATH, SHELL, TERM, USER). Under WSL the
 * server then listens on 127.a.b.c, which the Windows browser cannot reach (WSL forwards localhost only), and the
 * link `torii approvals list --links` prints is dead. The kernel says WSL whatever the environment.
 */
import os from "node:os";
import { afterEach, describe, expect, test, vi } from "vitest";
import { pageAddress } from "../../../src/approval/page-address.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("WSL without its variables in the server's environment", () => {
  test("a WSL kernel (os.release() ends in -microsoft-standard-WSL2) gets 127.0.0.1", () => {
    vi.spyOn(os, "release").mockReturnValue("5.15.167.4-microsoft-standard-WSL2");
    // what Codex passes an MCP server on Linux
    const env = { HOME: "/home/ann", PATH: "/usr/bin:/bin", USER: "ann", LANG: "C.UTF-8", TERM: "xterm-256color" };
    expect(pageAddress(env)).toBe("127.0.0.1"); // actual: 127.x.y.z
  });
});

describe("the operator's approval.address", () => {
  test("127.0.0.1 keeps the page on 127.0.0.1 outside WSL too", () => {
    vi.spyOn(os, "release").mockReturnValue("6.8.0-generic");
    expect(pageAddress({}, "127.0.0.1")).toBe("127.0.0.1");
  });
});

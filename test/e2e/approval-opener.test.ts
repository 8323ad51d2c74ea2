/**
 * The browser opener through the real server: the server's working directory
 * is the agent's project, with an `xdg-open` planted in node_modules/.bin,
 * and the client's PATH starts with that relative entry. The real one, on an
 * absolute PATH entry, gets the link; the planted one never runs.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test, vi } from "vitest";
import { nextPending } from "../support/approvals.js";
import { makeConfigTree } from "../support/config-tree.js";
import { outcomeOf, startSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

// Not below the system temp directory, which the search never enters (temp-dirs.ts).
const top = tempDirectory("torii-opener-e2e-");

/** An executable script at `file` that records its working directory, PATH and argv into `marker`. */
function recorder(file: string, marker: string): void {
  writeFileSync(file, `#!/bin/sh\nprintf '%s\\n%s\\n%s\\n' "$PWD" "$PATH" "$*" > '${marker}'\n`);
  chmodSync(file, 0o755);
}

test("a planted xdg-open in the project, reachable through a relative PATH entry, never gets the approval link; the real one does, in / with absolute PATH entries only", async () => {
  const project = path.join(top, "project");
  const systemBin = path.join(top, "system-bin");
  mkdirSync(path.join(project, "node_modules", ".bin"), { recursive: true });
  mkdirSync(systemBin);
  const planted = path.join(top, "planted-ran");
  const real = path.join(top, "real-ran");
  recorder(path.join(project, "node_modules", ".bin", "xdg-open"), planted);
  recorder(path.join(systemBin, "xdg-open"), real);
  const root = makeConfigTree({
    "settings.yaml": 'version: "1"\napproval:\n  timeout_seconds: 60\n',
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: "true"\n',
    "providers/rec/rules.yaml": 'version: "1"\naccept: [status]\n',
  });
  const env = { PATH: `node_modules/.bin:.:${systemBin}:/usr/bin:/bin`, DISPLAY: ":0", TORII_NO_GUI: "", TORII_OPEN_BROWSER: "" };
  const session = await startSession(root, env, { cwd: project });
  try {
    const call = session.call("rec", { args: ["anything"] });
    const pending = await nextPending(root);
    await vi.waitFor(() => {
      expect(existsSync(real)).toBe(true);
    }, 15_000);
    const [cwd, childPath, args] = readFileSync(real, "utf8").split("\n");
    expect(cwd).toBe("/");
    expect(childPath).toBe(`${systemBin}:/usr/bin:/bin`);
    expect(args).toMatch(new RegExp(`^http://127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}:\\d+/a/${pending.id}/[A-Za-z0-9_-]{43}$`));
    expect(existsSync(planted)).toBe(false);
    expect((await runCli(["approvals", "deny", pending.id], { TORII_CONFIG_DIR: root })).status).toBe(0);
    expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "human-deny" });
  } finally {
    await session.close();
  }
});

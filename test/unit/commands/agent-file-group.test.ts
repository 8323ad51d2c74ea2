/**
 * `torii agent install` replaces a client file by renaming a new one into
 * place; the new file must keep the old one's group as well as its mode. A
 * 0640 file of group `staff` rewritten as a file of the process's own group
 * would be readable by that group's members instead (and no longer by staff).
 */
import { chownSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

/** A group this process may give its files other than its own (root: any), or undefined. */
function otherGroup(): number | undefined {
  if (process.platform === "win32") return undefined;
  if (process.getuid?.() === 0) return 65534;
  const own = process.getgid?.();
  return process.getgroups?.().find((gid) => gid !== own);
}

const group = otherGroup();

describe("the client file's group", () => {
  test.skipIf(group === undefined)("a 0640 file keeps its group and mode through install and uninstall", async () => {
    const home = tempDirectory("torii-agent-group-");
    const env = { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") };
    const file = path.join(home, "settings.json");
    writeFileSync(file, '{ "mcpServers": {} }\n', { mode: 0o640 });
    chownSync(file, statSync(file).uid, group ?? 0);
    for (const verb of ["install", "uninstall"]) {
      const result = await runCli(["agent", verb, "gemini-cli", "--config", file], env);
      expect(result.status, result.stderr).toBe(0);
      expect(statSync(file).gid).toBe(group);
      expect(statSync(file).mode & 0o777).toBe(0o640);
    }
  });
});

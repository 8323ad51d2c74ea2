/**
 * A client writing its own file while `torii agent install` replaces it: the
 * check that the file is unchanged is made again just before the rename, so a
 * write that lands while the backup (and the new content) are written and
 * synced is not thrown away. Simulated deterministically: the client's write
 * happens when Torii opens the backup file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test, vi } from "vitest";
import { tempDirectory } from "../../support/temp-dirs.js";

const clientWrites = vi.hoisted(() => new Map<string, string>());

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const open: typeof actual.open = async (file, ...rest) => {
    const target = String(file).replace(/\.torii-backup.*$/u, "");
    const write = String(file).includes(".torii-backup") ? clientWrites.get(target) : undefined;
    if (write !== undefined) {
      clientWrites.delete(target);
      writeFileSync(target, write);
    }
    return actual.open(file, ...rest);
  };
  return { ...actual, open, default: { ...actual, open } };
});

const { readConfigText, replaceConfigText } = await import("../../../src/agents/config-file.js");

describe("a client write during Torii's edit", () => {
  test("a write that lands while the backup is being written is kept: Torii refuses and writes nothing over it", async () => {
    const file = path.join(tempDirectory("torii-agent-race-"), "settings.json");
    writeFileSync(file, '{ "theme": "dark" }\n');
    const current = await readConfigText(file);
    const clients = '{ "theme": "dark", "numStartups": 42 }\n';
    clientWrites.set(file, clients);
    await expect(replaceConfigText(current, '{ "theme": "dark", "mcpServers": {} }\n')).rejects.toThrow(
      `${file} changed while Torii was editing it; nothing was written`,
    );
    expect(clientWrites.size).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(clients);
  });
});

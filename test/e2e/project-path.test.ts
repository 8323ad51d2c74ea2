/**
 * A provider's program is never found where the agent can write, however the
 * client's PATH spells that place. The client's PATH starts with absolute
 * entries inside the agent's project (venv activation, direnv's PATH_add and
 * npx put them there), a link spelling of the project, a directory others
 * can write to, a link elsewhere that leads through a link in the project, and
 * directories in `/tmp` and in the server's `$TMPDIR`; each holds a planted
 * `mycli` that writes a marker. A call the rules accept must run the real
 * `mycli` (on a trusted entry further down, group-writable but listed in
 * settings.yaml's `path.trusted_directories`), whose own PATH holds none of
 * those entries, and the server names each skipped entry on stderr. The real
 * server, over the MCP SDK's Client.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { writeExecutable } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { tempDirectory } from "../support/temp-dirs.js";
import { chmodSharedGroup } from "../support/shared-group.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

let top: string;
let project: string;
let markers: string;
let system: string;
let inTmp: string;
let session: McpSession;

/** A `mycli` in `dir` that leaves a marker naming `dir` when run: the agent's planted copy. */
function plant(dir: string): void {
  const marker = path.join(markers, path.relative(top, dir).replaceAll("/", "_"));
  writeExecutable(path.join(dir, "mycli"), `#!/bin/sh\necho planted > '${marker}'\necho PLANTED\n`);
}

beforeAll(async () => {
  top = tempDirectory("torii-project-path-");
  project = path.join(top, "project");
  markers = path.join(top, "markers");
  system = path.join(top, "system-bin");
  mkdirSync(markers);
  const shared = path.join(top, "shared-bin");
  for (const dir of [path.join(project, ".venv", "bin"), path.join(project, "node_modules", ".bin"), project, shared]) plant(dir);
  chmodSharedGroup(shared, 0o775); // group-writable: another user of the group could plant it
  symlinkSync(project, path.join(top, "project-link"));
  // A trusted directory outside the project, reached through a link the agent owns in the project (and may repoint).
  const elsewhere = path.join(top, "elsewhere-bin");
  plant(elsewhere);
  symlinkSync(elsewhere, path.join(project, "current"));
  symlinkSync(path.join(project, "current"), path.join(top, "via-project"));
  // Private directories (0700, this user's) in /tmp and in the server's TMPDIR: anyone could have made them first.
  inTmp = mkdtempSync("/tmp/torii-project-path-");
  chmodSync(inTmp, 0o700);
  plant(inTmp);
  const scratch = path.join(top, "scratch");
  plant(path.join(scratch, "bin"));
  // The real CLI: prints the PATH it was given. Its directory is group-writable (Homebrew's /usr/local/bin) and listed as trusted.
  writeExecutable(path.join(system, "mycli"), `#!${process.execPath}\nprocess.stdout.write("real " + process.env.PATH);\n`);
  chmodSharedGroup(system, 0o775);

  const root = makeConfigTree({
    "settings.yaml": `version: "1"\npath:\n  trusted_directories: [${JSON.stringify(system)}]\n`,
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: mycli\n',
    "providers/rec/rules.yaml": 'version: "1"\naccept: [status]\n',
  });
  const clientPath = [
    path.join(project, ".venv", "bin"),
    path.join(top, "project-link", "node_modules", ".bin"),
    `${project}/`,
    shared,
    path.join(top, "via-project"),
    inTmp,
    path.join(scratch, "bin"),
    system,
    "/usr/bin",
    "/bin",
  ].join(":");
  session = await startSession(root, { PATH: clientPath, TMPDIR: scratch }, { cwd: project });
});

afterAll(async () => {
  await session.close();
  rmSync(inTmp, { recursive: true, force: true });
});

posixOnly("absolute PATH entries in the agent's reach", () => {
  test("an accepted call runs the real CLI, never one planted in the project (by any spelling, or through its links), in a group-writable directory or a temporary one", async () => {
    const outcome = outcomeOf(await session.call("rec", { args: ["status"] }));
    expect(outcome.decision).toMatchObject({ result: "allow", source: "rules" });
    expect(outcome.execution?.stdout).toBe(`real ${system}:/usr/bin:/bin`);
    expect(readdirSync(markers)).toEqual([]);
  });

  test("the server names each skipped entry and why on stderr", () => {
    const stderr = session.stderr();
    expect(stderr).toContain(`PATH entry ${path.join(project, ".venv", "bin")} is not searched: at or below the working directory`);
    expect(stderr).toMatch(
      new RegExp(
        `PATH entry ${path.join(top, "project-link", "node_modules", ".bin")} is not searched: at or below the working directory.*\\(through a link\\)`,
        "u",
      ),
    );
    expect(stderr).toContain(`PATH entry ${project}/ is not searched: at or below the working directory`);
    expect(stderr).toMatch(new RegExp(`PATH entry ${path.join(top, "shared-bin")} is not searched: .*writable by group or others \\(mode 775\\)`, "u"));
    expect(stderr).toContain(
      `PATH entry ${path.join(top, "via-project")} is not searched: its resolution passes through ${project}, at or below the working directory`,
    );
    expect(stderr).toContain(`PATH entry ${inTmp} is not searched: in a shared temporary directory`);
    expect(stderr).toContain(`PATH entry ${path.join(top, "scratch", "bin")} is not searched: in a shared temporary directory`);
    expect(stderr).not.toContain(`PATH entry ${system} is not searched`);
  });
});

/**
 * The child's own name lookups cannot reach the server's working directory.
 * Torii resolves the provider's program through absolute PATH entries only; the
 * child then looks names up itself (`#!/usr/bin/env bash`, as every pyenv shim
 * does; kubectl plugins). Every relative spelling of a PATH entry is planted
 * here with a program that writes a marker: empty entries, `.`, `bin`, `./bin`,
 * `~/bin` (execvp does not expand `~`), `../bin`, the working directory spelled
 * absolutely, and PATH set by a provider's `.env`. None may run; the absolute
 * entries still work (the shim finds the real bash, kubectl its real plugin).
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { writeExecutable } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { tempDirectory } from "../support/temp-dirs.js";

const ACCEPT_ALL = 'version: "1"\naccept: ["/.*/"]\n';
const provider = (name: string, command: string): string => `version: "1"\nname: ${name}\ntool: ${name}\ncommand: ${command}\n`;

let base: string;
let work: string;
let markers: string;
let session: McpSession;

/** A program that writes a marker naming where it was planted, then succeeds. */
function plant(dir: string, name: string): void {
  const marker = path.join(markers, `${path.relative(base, dir).replaceAll("/", "_") || "base"}-${name}`);
  writeExecutable(path.join(dir, name), `#!/bin/sh\necho planted > '${marker}'\necho PLANTED\n`);
}

beforeAll(async () => {
  base = tempDirectory("torii-child-path-");
  work = path.join(base, "work");
  markers = path.join(base, "markers");
  mkdirSync(markers);
  for (const dir of [
    work,
    path.join(work, "bin"),
    path.join(work, "dot-bin"),
    path.join(work, "~/bin"),
    path.join(base, "up-bin"),
    path.join(work, "envbin"),
  ]) {
    plant(dir, "bash");
    plant(dir, "kubectl-foo");
  }
  const shim = path.join(base, "scripts", "shim");
  writeExecutable(shim, '#!/usr/bin/env bash\necho "shim ran under $BASH"\n');
  const recorder = path.join(base, "scripts", "path-recorder");
  writeExecutable(recorder, `#!${process.execPath}\nprocess.stdout.write(process.env.PATH ?? "<unset>");\n`);
  const plugins = path.join(base, "plugins");
  writeExecutable(path.join(plugins, "kubectl-ok"), "#!/bin/sh\necho plugin-ok\n");

  const root = makeConfigTree({
    "providers/shim/provider.yaml": provider("shim", shim),
    "providers/shim/rules.yaml": ACCEPT_ALL,
    "providers/envshim/provider.yaml": provider("envshim", shim),
    "providers/envshim/rules.yaml": ACCEPT_ALL,
    "providers/envshim/.env": "PATH=envbin:/usr/bin:/bin\n",
    "providers/pathrec/provider.yaml": provider("pathrec", recorder),
    "providers/pathrec/rules.yaml": ACCEPT_ALL,
    "providers/kube/provider.yaml": provider("kube", "kubectl"),
    "providers/kube/rules.yaml": ACCEPT_ALL,
  });
  const relativeEntries = ["", ".", "bin", "./dot-bin", "~/bin", "../up-bin", work, `${work}/`];
  session = await startSession(root, { PATH: [...relativeEntries, plugins, "/usr/bin", "/bin", ""].join(":") }, { cwd: work });
});

afterAll(async () => {
  await session.close();
  rmSync(base, { recursive: true, force: true });
});

describe("the child's PATH holds absolute entries only", () => {
  test("a #!/usr/bin/env bash provider runs the real bash, never one planted under the working directory", async () => {
    const outcome = outcomeOf(await session.call("shim", { args: ["x"] }));
    expect(outcome.execution?.stdout).toBe("shim ran under /usr/bin/bash\n");
    expect(readdirSync(markers)).toEqual([]);
  });

  test("a relative PATH from the provider's .env is reduced too", async () => {
    const outcome = outcomeOf(await session.call("envshim", { args: ["x"] }));
    expect(outcome.execution?.stdout).toBe("shim ran under /usr/bin/bash\n");
    expect(readdirSync(markers)).toEqual([]);
  });

  test("the child sees only the absolute entries that are not the working directory", async () => {
    const outcome = outcomeOf(await session.call("pathrec", { args: ["x"] }));
    expect(outcome.execution?.stdout).toBe([path.join(base, "plugins"), "/usr/bin", "/bin"].join(":"));
  });

  test("kubectl's plugin lookup finds a plugin on an absolute entry, never one under the working directory", async () => {
    const ok = outcomeOf(await session.call("kube", { args: ["ok"] }));
    expect(ok.execution?.stdout).toBe("plugin-ok\n");
    const planted = outcomeOf(await session.call("kube", { args: ["foo"] }));
    expect(planted.execution?.exit_code).not.toBe(0);
    expect(planted.execution?.stdout).not.toContain("PLANTED");
    expect(readdirSync(markers)).toEqual([]);
    expect(existsSync(path.join(work, "bin", "kubectl-foo"))).toBe(true);
  });
});

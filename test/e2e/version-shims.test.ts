/**
 * A version manager's shim cannot be steered from the agent's working
 * directory (config/version-pin.ts), with the real pyenv and rustup of this
 * machine behind a real server: the server's working directory holds a
 * `.python-version` naming another installed interpreter and a
 * `rust-toolchain.toml` whose `path` names a planted toolchain whose `rustc`
 * writes a marker. The shim run as the provider's program (also the bundled
 * aws provider, whose `aws` is a pyenv shim on this machine), and the shim a
 * program finds through its own PATH, both run the operator's global choice;
 * the marker never appears; so does a hard-linked proxy reached through a link
 * from another directory, with rustup's directory off PATH (recognised by the
 * rustup beside its real path). A rustup proxy's `+toolchain` argument is refused.
 * A hook pyenv would source in the shim's run and does not ship (here from the
 * operator's `PYENV_HOOK_PATH`) fails the call, and the hook never runs.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { untargetedAws } from "../support/real-aws.js";
import { writeExecutable } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { tempDirectory, testRunsDirectory } from "../support/temp-dirs.js";

const HOME = process.env.HOME ?? "/root";
const PYENV_ROOT = process.env.PYENV_ROOT ?? path.join(HOME, ".pyenv");
const PYENV_SHIMS = path.join(PYENV_ROOT, "shims");
const CARGO_BIN = path.join(HOME, ".cargo", "bin");

/** The operator's global pyenv version, and another installed one for the agent to plant. */
function pyenvVersions(): { global: string; planted: string } | undefined {
  if (!existsSync(path.join(PYENV_SHIMS, "python3"))) return undefined;
  const global = readFileSync(path.join(PYENV_ROOT, "version"), "utf8").trim().split(/\s+/u)[0] ?? "";
  const others = readdirSync(path.join(PYENV_ROOT, "versions")).filter(
    (version) => version !== global && /^3\.\d+\.\d+$/u.test(version) && existsSync(path.join(PYENV_ROOT, "versions", version, "bin", "python3")),
  );
  // Preferably one without the aws CLI, so that running the planted version's aws would fail visibly.
  const planted = others.find((version) => !hasAws(version)) ?? others[0];
  return /^3\.\d+\.\d+$/u.test(global) && planted !== undefined ? { global, planted } : undefined;
}

function hasAws(version: string): boolean {
  return existsSync(path.join(PYENV_ROOT, "versions", version, "bin", "aws"));
}

const ACCEPT_ALL = 'version: "1"\naccept: ["/.*/"]\n';
const provider = (name: string, command: string): string => `version: "1"\nname: ${name}\ntool: ${name}\ncommand: ${command}\n`;
const versions = pyenvVersions();
const rustup = existsSync(path.join(CARGO_BIN, "rustup")) && existsSync(path.join(HOME, ".rustup", "settings.toml"));
// A hard link of the real rustup can be made in the test's directory only on the same filesystem.
const rustupLinkable = rustup && statSync(realpathSync(path.join(CARGO_BIN, "rustup"))).dev === statSync(testRunsDirectory()).dev;

let work: string;
let marker: string;
let hookMarker: string;
let session: McpSession;
let linkedSession: McpSession | undefined;

beforeAll(async () => {
  const base = tempDirectory("torii-version-shims-");
  work = path.join(base, "work");
  marker = path.join(base, "planted-toolchain-ran");
  const toolchain = path.join(work, "toolchain");
  mkdirSync(path.join(toolchain, "lib"), { recursive: true });
  writeExecutable(path.join(toolchain, "bin", "rustc"), `#!/bin/sh\necho planted > '${marker}'\necho PLANTED\n`);
  writeFileSync(path.join(work, "rust-toolchain.toml"), `[toolchain]\npath = "${toolchain}"\n`);
  writeFileSync(path.join(work, ".python-version"), `${versions?.planted ?? "3.12.1"}\n`);
  // A hook directory the operator's .env names (PYENV_HOOK_PATH): its exec hook, as rbenv-vars' does, reads a file of
  // the working directory; here it writes a marker when pyenv sources it.
  hookMarker = path.join(base, "hook-ran");
  const hooks = path.join(base, "operator-hooks");
  mkdirSync(path.join(hooks, "exec"), { recursive: true });
  writeFileSync(path.join(hooks, "exec", "project-vars.bash"), `if [ -f .project-vars ]; then echo ran > '${hookMarker}'; fi\n`);
  writeFileSync(path.join(work, ".project-vars"), "PYTHONSTARTUP=planted.py\n");
  // Programs outside the project that look a shim up through their own PATH, as a CLI runs `python3` or cargo runs `rustc`.
  const tools = path.join(base, "tools");
  writeExecutable(path.join(tools, "py-inside"), '#!/bin/sh\nexec python3 "$@"\n');
  writeExecutable(path.join(tools, "rustc-inside"), '#!/bin/sh\nexec rustc "$@"\n');
  // rustup's proxies as hard links (what rustup installs where it can), and a link to one from another directory.
  const linked = path.join(base, "local-bin", "rustc");
  if (rustupLinkable) {
    const proxies = path.join(base, "cargo-bin");
    mkdirSync(proxies);
    mkdirSync(path.dirname(linked));
    const real = realpathSync(path.join(CARGO_BIN, "rustup"));
    linkSync(real, path.join(proxies, "rustup"));
    linkSync(real, path.join(proxies, "rustc"));
    symlinkSync(path.join(proxies, "rustc"), linked);
  }
  const root = makeConfigTree({
    ...untargetedAws(),
    "providers/aws/rules.yaml": ACCEPT_ALL,
    "providers/python3/provider.yaml": provider("python3", "python3"),
    "providers/python3/rules.yaml": ACCEPT_ALL,
    "providers/python3hooked/provider.yaml": provider("python3hooked", "python3"),
    "providers/python3hooked/rules.yaml": ACCEPT_ALL,
    "providers/python3hooked/.env": `PYENV_HOOK_PATH=${hooks}\n`,
    "providers/pyinside/provider.yaml": provider("pyinside", path.join(tools, "py-inside")),
    "providers/pyinside/rules.yaml": ACCEPT_ALL,
    "providers/rustc/provider.yaml": provider("rustc", "rustc"),
    "providers/rustc/rules.yaml": ACCEPT_ALL,
    "providers/rustcinside/provider.yaml": provider("rustcinside", path.join(tools, "rustc-inside")),
    "providers/rustcinside/rules.yaml": ACCEPT_ALL,
  });
  session = await startSession(root, { PATH: [CARGO_BIN, PYENV_SHIMS, "/usr/bin", "/bin"].join(":"), HOME }, { cwd: work });
  // rustup's directory off PATH: only the program's own recognition can pin it.
  if (rustupLinkable) {
    const linkedRoot = makeConfigTree({
      "providers/rustclinked/provider.yaml": provider("rustclinked", linked),
      "providers/rustclinked/rules.yaml": ACCEPT_ALL,
    });
    linkedSession = await startSession(linkedRoot, { PATH: "/usr/bin:/bin", HOME }, { cwd: work });
  }
});

afterAll(async () => {
  await session.close();
  await linkedSession?.close();
});

describe.skipIf(versions === undefined)("pyenv: a .python-version in the working directory does not choose the interpreter", () => {
  test("the shim run as the provider's program runs the global version", async () => {
    const outcome = outcomeOf(await session.call("python3", { args: ["--version"] }));
    expect(outcome.execution?.stdout).toBe(`Python ${versions?.global ?? ""}\n`);
  });

  test.skipIf(versions === undefined || !hasAws(versions.global) || hasAws(versions.planted))(
    "the bundled aws provider, whose aws is a pyenv shim, runs the aws of the global version, not the planted one's (which has none)",
    async () => {
      const outcome = outcomeOf(await session.call("aws", { args: ["--version"] }));
      expect(`${outcome.execution?.stdout ?? ""}${outcome.execution?.stderr ?? ""}`).toMatch(/^aws-cli\/\d+\.\d+/u);
      expect(outcome.execution?.exit_code).toBe(0);
    },
  );

  test("a hook pyenv would source in the shim's run, from a directory of the operator's PYENV_HOOK_PATH, fails the call before anything runs", async () => {
    const outcome = outcomeOf(await session.call("python3hooked", { args: ["--version"] }));
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toMatch(
      /python3 is a shim of pyenv.*its exec hook project-vars\.bash in a directory of `\$PYENV_HOOK_PATH` is none that pyenv ships/u,
    );
    expect(existsSync(hookMarker)).toBe(false);
  });

  test("the shim a program finds through its own PATH runs the global version too", async () => {
    const outcome = outcomeOf(await session.call("pyinside", { args: ["--version"] }));
    expect(outcome.execution?.stdout).toBe(`Python ${versions?.global ?? ""}\n`);
  });
});

describe.skipIf(!rustup)("rustup: a rust-toolchain.toml in the working directory does not choose the toolchain", () => {
  test("the proxy run as the provider's program runs the default toolchain, never the planted path", async () => {
    const outcome = outcomeOf(await session.call("rustc", { args: ["--version"] }));
    expect(outcome.execution?.stdout).toMatch(/^rustc \d+\.\d+\.\d+/u);
    expect(existsSync(marker)).toBe(false);
  });

  test("the proxy a program finds through its own PATH runs the default toolchain too", async () => {
    const outcome = outcomeOf(await session.call("rustcinside", { args: ["--version"] }));
    expect(outcome.execution?.stdout).toMatch(/^rustc \d+\.\d+\.\d+/u);
    expect(existsSync(marker)).toBe(false);
  });

  test("a first argument +toolchain, which would override the pin, is refused before anything runs", async () => {
    const outcome = outcomeOf(await session.call("rustc", { args: [`+${path.join(work, "toolchain")}`, "--version"] }));
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toMatch(/rustup proxy: a first argument starting with "\+" would choose the toolchain/u);
    expect(existsSync(marker)).toBe(false);
  });
});

describe.skipIf(!rustupLinkable)("rustup: a hard-linked proxy reached through a link from another directory", () => {
  test("is recognised by the rustup beside its real path and runs the default toolchain, with rustup's directory off PATH", async () => {
    const outcome = outcomeOf(await (linkedSession as McpSession).call("rustclinked", { args: ["--version"] }));
    expect(outcome.execution?.stdout).toMatch(/^rustc \d+\.\d+\.\d+/u);
    expect(existsSync(marker)).toBe(false);
  });
});

/**
 * A call's version pins are remembered from one call to the next (as planChild
 * asks, config/version-pin.ts) only while every path they were judged by is as
 * it was: each change on disk that could alter them is seen by the very next
 * call. Each test first shows the unchanged call answered from memory (the same
 * verdict object), then makes one change and expects the next call to see it.
 *
 * The clock runs a minute ahead so that the files written here count as settled
 * (otherwise nothing just written is remembered). An edit in place then has to
 * land in a later timestamp tick than the write before it, as any real edit made
 * after the verdict was remembered does: `editInPlace` writes until the kernel's
 * change time has moved (the event waited for; a tick is a few milliseconds).
 */
import { chmodSync, chownSync, mkdirSync, renameSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { searchTrust } from "../../../src/config/search-trust.js";
import { pinVersionManagers, VersionPinError, type PinnedChild } from "../../../src/config/version-pin.js";
import type { SearchPathContext } from "../../../src/runtime/search-path.js";
import { writeExecutable } from "../../support/fake-clis.js";
import { chmodSharedGroup } from "../../support/shared-group.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

const pyenvShim = (root: string): string => `#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT="${root}"\nexec "${root}/libexec/pyenv" exec "\${0##*/}" "$@"\n`;

/** Rewrites `file` in place with `text` until its change time differs from the one before (the next timestamp tick). */
function editInPlace(file: string, text: string): void {
  const before = statSync(file, { bigint: true }).ctimeNs;
  for (let attempt = 0; attempt < 1_000_000; attempt += 1) {
    writeFileSync(file, text);
    if (statSync(file, { bigint: true }).ctimeNs !== before) return;
  }
  throw new Error(`the change time of ${file} never moved`);
}

/** A home with rustup's settings, a pyenv root outside it, a project, and the pins of one call as planChild asks for them. */
function layout() {
  const top = tempDirectory("torii-pin-memo-");
  const home = path.join(top, "home");
  const project = path.join(top, "project");
  const pyenvRoot = path.join(top, "tools", ".pyenv");
  const shims = path.join(pyenvRoot, "shims");
  mkdirSync(project, { recursive: true });
  mkdirSync(path.join(top, "torii"));
  mkdirSync(path.join(home, ".rustup"), { recursive: true });
  writeFileSync(path.join(home, ".rustup", "settings.toml"), 'default_toolchain = "stable"\n');
  for (const name of ["pip", "python", "python3"]) writeExecutable(path.join(shims, name), pyenvShim(pyenvRoot));
  writeFileSync(path.join(pyenvRoot, "version"), "3.11.7\n");
  const context = (): SearchPathContext => ({ platform: "linux", cwd: project, selfDir: path.join(top, "torii"), trust: searchTrust("linux") });
  /** One call's pins: a fresh search trust each time, as each planned child has. */
  const pins = (pathDirs: readonly string[], executable?: string): PinnedChild =>
    pinVersionManagers({ HOME: home, PATH: pathDirs.join(":") }, executable, context(), { remember: true });
  return { top, home, pyenvRoot, shims, pins };
}

posixOnly("version pins remembered from one call to the next", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sees the global version file edited between two calls", () => {
    const { pyenvRoot, shims, pins } = layout();
    const first = pins([shims, "/usr/bin"]);
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pins([shims, "/usr/bin"]).pinnedVariables).toBe(first.pinnedVariables);

    // The same size: only the change times tell the edit.
    editInPlace(path.join(pyenvRoot, "version"), "3.12.1\n");
    expect(pins([shims, "/usr/bin"]).env.PYENV_VERSION).toBe("3.12.1");
  });

  it("sees rustup's settings.toml changed between two calls", () => {
    const { home, pins } = layout();
    const first = pins(["/usr/bin"]);
    expect(first.env.RUSTUP_TOOLCHAIN).toBe("stable");
    expect(pins(["/usr/bin"]).pinnedVariables).toBe(first.pinnedVariables);

    editInPlace(path.join(home, ".rustup", "settings.toml"), 'default_toolchain = "nightly"\n');
    expect(pins(["/usr/bin"]).env.RUSTUP_TOOLCHAIN).toBe("nightly");
  });

  it("sees a shim of a manager Torii cannot pin added to a shims directory on PATH: the directory leaves PATH", () => {
    const { shims, pins } = layout();
    const first = pins([shims, "/usr/bin"]);
    expect(first.env.PATH).toBe(`${shims}:/usr/bin`);
    expect(pins([shims, "/usr/bin"]).pinnedVariables).toBe(first.pinnedVariables);

    // First by name, so it is among the entries sampled.
    writeExecutable(path.join(shims, "aaa-node"), '#!/usr/bin/env bash\n# asdf-plugin: nodejs 20.11.0\nexec /opt/asdf/bin/asdf exec "node" "$@"\n');
    expect(pins([shims, "/usr/bin"]).env.PATH).toBe("/usr/bin");
  });

  it("sees volta's shim added to a directory on PATH that is not named shims: the directory leaves PATH", () => {
    const { top, pins } = layout();
    const bin = path.join(top, "bin");
    writeExecutable(path.join(bin, "tool"), "\u007fELF tool\n");
    const first = pins([bin, "/usr/bin"], path.join(bin, "tool"));
    expect(first.env.PATH).toBe(`${bin}:/usr/bin`);
    expect(pins([bin, "/usr/bin"], path.join(bin, "tool")).pinnedVariables).toBe(first.pinnedVariables);

    writeExecutable(path.join(bin, "volta-shim"), "\u007fELF volta-shim\n");
    expect(pins([bin, "/usr/bin"], path.join(bin, "tool")).env.PATH).toBe("/usr/bin");
  });

  it("sees the program rewritten in place by a different file of the same size: a shim that was pinned is now refused", () => {
    const { top, pyenvRoot, pins } = layout();
    const program = path.join(top, "bin", "python3");
    writeExecutable(program, pyenvShim(pyenvRoot));
    const first = pins(["/usr/bin"], program);
    expect(first.manager).toMatchObject({ kind: "env-family", name: "pyenv" });
    expect(pins(["/usr/bin"], program).pinnedVariables).toBe(first.pinnedVariables);

    // An asdf shim padded to the pyenv shim's size, copied over it (`cp` keeps the inode): only the change times tell.
    const asdf = '#!/usr/bin/env bash\n# asdf-plugin: python 3.12.1\nexec /opt/asdf/bin/asdf exec "python3" "$@"\n';
    const replacement = asdf + "#".repeat(pyenvShim(pyenvRoot).length - asdf.length - 1) + "\n";
    expect(replacement.length).toBe(statSync(program).size);
    editInPlace(program, replacement);
    expect(() => pins(["/usr/bin"], program)).toThrow(/shim of asdf/u);
  });

  it("sees the program replaced by another file renamed over it", () => {
    const { top, pyenvRoot, pins } = layout();
    const bin = path.join(top, "bin");
    const program = path.join(bin, "python3");
    writeExecutable(program, pyenvShim(pyenvRoot));
    const first = pins(["/usr/bin"], program);
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pins(["/usr/bin"], program).pinnedVariables).toBe(first.pinnedVariables);

    writeExecutable(path.join(bin, ".python3.new"), '#!/bin/sh\nexec /usr/bin/python3 "$@"\n');
    renameSync(path.join(bin, ".python3.new"), program);
    const after = pins(["/usr/bin"], program);
    expect(after.manager).toBeUndefined();
    expect(after.env.PYENV_VERSION).toBeUndefined();
  });

  it("sees a directory above the global file made writable by others: the file is refused", () => {
    const { pyenvRoot, shims, pins } = layout();
    const program = path.join(shims, "python3");
    const first = pins(["/usr/bin"], program);
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pins(["/usr/bin"], program).pinnedVariables).toBe(first.pinnedVariables);

    chmodSync(path.dirname(pyenvRoot), 0o777);
    expect(() => pins(["/usr/bin"], program)).toThrow(VersionPinError);
  });

  it("sees a group-writable directory above the global file given to a group others share: the file is refused", () => {
    const { pyenvRoot, shims, pins } = layout();
    const program = path.join(shims, "python3");
    // Group-writable by the user's private group (as umask 002 installs leave it): the user's own write.
    const tools = path.dirname(pyenvRoot);
    chmodSync(tools, 0o775);
    const first = pins(["/usr/bin"], program);
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pins(["/usr/bin"], program).pinnedVariables).toBe(first.pinnedVariables);

    // Only the group changes (the ctime too, which a directory passed on the way is not judged by).
    chmodSharedGroup(tools, 0o775);
    expect(() => pins(["/usr/bin"], program)).toThrow(VersionPinError);
  });

  it.skipIf(process.getuid?.() !== 0)("sees a directory above the global file given to another owner: the file is refused", () => {
    const { pyenvRoot, shims, pins } = layout();
    const program = path.join(shims, "python3");
    const first = pins(["/usr/bin"], program);
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pins(["/usr/bin"], program).pinnedVariables).toBe(first.pinnedVariables);

    chownSync(path.dirname(pyenvRoot), 54_321, -1);
    expect(() => pins(["/usr/bin"], program)).toThrow(VersionPinError);
  });

  it("sees a link on the way to the global file repointed: the other root's version is read", () => {
    const { top, pins } = layout();
    // The shims name their root through a link: `current` -> the first root.
    const other = path.join(top, "other-root");
    mkdirSync(other);
    writeFileSync(path.join(other, "version"), "3.9.18\n");
    const link = path.join(top, "current");
    symlinkSync(path.join(top, "tools", ".pyenv"), link);
    const program = path.join(top, "bin", "python3");
    writeExecutable(program, pyenvShim(link));
    const first = pins(["/usr/bin"], program);
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pins(["/usr/bin"], program).pinnedVariables).toBe(first.pinnedVariables);

    const next = path.join(top, "current.next");
    symlinkSync(other, next);
    renameSync(next, link);
    expect(pins(["/usr/bin"], program).env.PYENV_VERSION).toBe("3.9.18");
  });

  it("answers equal inputs only: an override the operator's .env sets, or another PATH, is judged with its own inputs", () => {
    const { home, shims, pins } = layout();
    const first = pins([shims, "/usr/bin"]);
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pins([shims, "/usr/bin"]).pinnedVariables).toBe(first.pinnedVariables);

    const context: SearchPathContext = {
      platform: "linux",
      cwd: path.join(home, "..", "project"),
      selfDir: path.join(home, "..", "torii"),
      trust: searchTrust("linux"),
    };
    const operators = pinVersionManagers({ HOME: home, PATH: `${shims}:/usr/bin`, PYENV_VERSION: "3.9.18" }, undefined, context, { remember: true });
    expect(operators.env.PYENV_VERSION).toBe("3.9.18");
    expect(operators.pinnedVariables).not.toContain("PYENV_VERSION");
    expect(pins(["/usr/bin"]).env.PATH).toBe("/usr/bin");
  });

  it("keys on the override of a manager of any name: the operator's `FOOENV_VERSION` is kept", () => {
    const { top, home, pins } = layout();
    const root = path.join(top, ".fooenv");
    const shim = path.join(root, "shims", "foo");
    writeExecutable(shim, `#!/usr/bin/env bash\nset -e\nexport FOOENV_ROOT="${root}"\nexec "${root}/libexec/fooenv" exec "\${0##*/}" "$@"\n`);
    writeFileSync(path.join(root, "version"), "1.2.3\n");
    const first = pins(["/usr/bin"], shim);
    expect(first.env.FOOENV_VERSION).toBe("1.2.3");
    expect(pins(["/usr/bin"], shim).pinnedVariables).toBe(first.pinnedVariables);

    const context: SearchPathContext = { platform: "linux", cwd: path.join(top, "project"), selfDir: path.join(top, "torii"), trust: searchTrust("linux") };
    const operators = pinVersionManagers({ HOME: home, PATH: "/usr/bin", FOOENV_VERSION: "0.9.0" }, shim, context, { remember: true });
    expect(operators.env.FOOENV_VERSION).toBe("0.9.0");
  });
});

/**
 * Each input of the remembered pins that is not the filesystem is part of their key: the same paths on disk, one
 * input changed, and the next call is judged with it (each test fails when that input is left out of the key).
 */
posixOnly("version pins keyed on every input that is not the filesystem", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The pins of `program` with one call's context: the working directory, the trust's inputs, the environment. */
  function pinsWith(
    layoutOf: ReturnType<typeof layout>,
    program: string,
    inputs: { cwd?: string; trustedDirectories?: readonly string[]; tmpdir?: string; env?: Record<string, string> } = {},
  ): PinnedChild {
    const { top, home } = layoutOf;
    const trustedDirectories = inputs.trustedDirectories ?? [];
    const context: SearchPathContext = {
      platform: "linux",
      cwd: inputs.cwd ?? path.join(top, "project"),
      selfDir: path.join(top, "torii"),
      trust: searchTrust("linux", { trustedDirectories, env: inputs.tmpdir === undefined ? {} : { TMPDIR: inputs.tmpdir } }),
    };
    return pinVersionManagers({ HOME: home, PATH: "/usr/bin", ...inputs.env }, program, context, { remember: true });
  }

  it("the working directory: a global file at or below the next call's working directory is refused", () => {
    const setup = layout();
    const program = path.join(setup.shims, "python3");
    const first = pinsWith(setup, program);
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pinsWith(setup, program).pinnedVariables).toBe(first.pinnedVariables);

    expect(() => pinsWith(setup, program, { cwd: path.dirname(setup.pyenvRoot) })).toThrow(VersionPinError);
  });

  it("the operator's trusted directories: a group-writable place they no longer hold is refused", () => {
    const setup = layout();
    const program = path.join(setup.shims, "python3");
    const tools = path.dirname(setup.pyenvRoot);
    chmodSharedGroup(tools, 0o775);
    const first = pinsWith(setup, program, { trustedDirectories: [tools] });
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(pinsWith(setup, program, { trustedDirectories: [tools] }).pinnedVariables).toBe(first.pinnedVariables);

    expect(() => pinsWith(setup, program)).toThrow(VersionPinError);
  });

  it("the shared temporary directories: a global file below the next call's TMPDIR is refused", () => {
    const setup = layout();
    const program = path.join(setup.shims, "python3");
    const first = pinsWith(setup, program);
    expect(pinsWith(setup, program).pinnedVariables).toBe(first.pinnedVariables);

    expect(() => pinsWith(setup, program, { tmpdir: path.dirname(setup.pyenvRoot) })).toThrow(VersionPinError);
  });

  it("the manager's hook path: a directory of `PYENV_HOOK_PATH` with a hook pyenv does not ship refuses the shim", () => {
    const setup = layout();
    const program = path.join(setup.shims, "python3");
    const hooks = path.join(setup.top, "hooks");
    mkdirSync(path.join(hooks, "exec"), { recursive: true });
    writeFileSync(path.join(hooks, "exec", "vars.bash"), "# exports what the working directory names\n");
    const first = pinsWith(setup, program);
    expect(pinsWith(setup, program).pinnedVariables).toBe(first.pinnedVariables);

    expect(() => pinsWith(setup, program, { env: { PYENV_HOOK_PATH: hooks } })).toThrow(/hook vars\.bash/u);
  });

  it("rustup's home: the next call's RUSTUP_HOME names another default toolchain", () => {
    const setup = layout();
    const other = path.join(setup.top, "rustup-home");
    mkdirSync(other);
    writeFileSync(path.join(other, "settings.toml"), 'default_toolchain = "nightly"\n');
    const program = path.join(setup.shims, "python3");
    const first = pinsWith(setup, program);
    expect(first.env.RUSTUP_TOOLCHAIN).toBe("stable");
    expect(pinsWith(setup, program).pinnedVariables).toBe(first.pinnedVariables);

    expect(pinsWith(setup, program, { env: { RUSTUP_HOME: other } }).env.RUSTUP_TOOLCHAIN).toBe("nightly");
  });
});

posixOnly("version pins judged by a file changed within the racy margin", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("are not remembered until every time they rely on is older than the margin", () => {
    const { shims, pins } = layout();
    // Just written: a second edit within the same timestamp tick would keep every time, so nothing is remembered.
    const first = pins([shims, "/usr/bin"]);
    expect(pins([shims, "/usr/bin"]).pinnedVariables).not.toBe(first.pinnedVariables);

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
    const settled = pins([shims, "/usr/bin"]);
    expect(pins([shims, "/usr/bin"]).pinnedVariables).toBe(settled.pinnedVariables);
  });
});

/**
 * The version managers a child can reach are pinned to the operator's global
 * choice, never to a file in the working directory (config/version-pin.ts),
 * on real directories laid out as pyenv, rustup and asdf lay them out, with
 * the real trust rule: the program's own manager, and every manager whose
 * shims sit on the child's PATH. What cannot be pinned fails (the program) or
 * leaves PATH (a directory).
 */
import { chmodSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { restrictOwnPath, searchTrust } from "../../../src/config/search-trust.js";
import { pinVersionManagers, VersionPinError } from "../../../src/config/version-pin.js";
import type { SearchPathContext } from "../../../src/runtime/search-path.js";
import { writeExecutable } from "../../support/fake-clis.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

/** A home with pyenv, rustup and asdf installed, a system bin, and a project that plants every manager's version file. */
function layout() {
  const top = tempDirectory("torii-pin-");
  const home = path.join(top, "home");
  const project = path.join(top, "project");
  const pyenvRoot = path.join(home, ".pyenv");
  const cargoBin = path.join(home, ".cargo", "bin");
  const asdfShims = path.join(home, ".asdf", "shims");
  const system = path.join(top, "system-bin");
  mkdirSync(project, { recursive: true });
  writeExecutable(
    path.join(pyenvRoot, "shims", "python3"),
    `#!/usr/bin/env bash\nset -e\nprogram="\${0##*/}"\nexport PYENV_ROOT="${pyenvRoot}"\nexec "${pyenvRoot}/libexec/pyenv" exec "$program" "$@"\n`,
  );
  writeFileSync(path.join(pyenvRoot, "version"), "3.11.7\n");
  writeExecutable(path.join(cargoBin, "rustup"), "\u007fELF rustup\n");
  symlinkSync("rustup", path.join(cargoBin, "cargo"));
  writeExecutable(path.join(cargoBin, "ripgrep"), "\u007fELF rg\n");
  mkdirSync(path.join(home, ".rustup"));
  writeFileSync(path.join(home, ".rustup", "settings.toml"), 'version = "12"\ndefault_toolchain = "stable-x86_64-unknown-linux-gnu"\n');
  writeExecutable(path.join(asdfShims, "node"), '#!/usr/bin/env bash\n# asdf-plugin: nodejs 20.11.0\nexec /opt/asdf/bin/asdf exec "node" "$@"\n');
  writeExecutable(path.join(system, "kubectl"), "\u007fELF kubectl\n");
  // What the agent plants in its project: none of it may matter.
  writeFileSync(path.join(project, ".python-version"), "3.12.1\n");
  writeFileSync(path.join(project, "rust-toolchain.toml"), '[toolchain]\npath = "/tmp/planted"\n');
  writeFileSync(path.join(project, ".tool-versions"), "nodejs 18.0.0\n");
  const context: SearchPathContext = { platform: "linux", cwd: project, selfDir: path.join(top, "torii"), trust: searchTrust("linux") };
  const env = (pathDirs: readonly string[], extra: Record<string, string> = {}): Record<string, string> => ({ HOME: home, PATH: pathDirs.join(":"), ...extra });
  return { top, home, project, pyenvRoot, cargoBin, asdfShims, system, context, env };
}

posixOnly("the program itself is a shim", () => {
  it("a pyenv shim runs with PYENV_VERSION set to the global version file's choice", () => {
    const { pyenvRoot, system, context, env } = layout();
    const shimDir = path.join(pyenvRoot, "shims");
    const pinned = pinVersionManagers(env([shimDir, system]), path.join(shimDir, "python3"), context);
    expect(pinned.env.PYENV_VERSION).toBe("3.11.7");
    // rustup, installed under the same home, is pinned too (installed managers are, whatever PATH holds).
    expect(pinned.pinnedVariables).toEqual(["PYENV_VERSION", "RUSTUP_TOOLCHAIN"]);
    expect(pinned.manager).toMatchObject({ kind: "env-family", name: "pyenv", root: pyenvRoot });
    expect(pinned.env.PATH).toBe(`${shimDir}:${system}`);
  });

  it("no global version file means pyenv's system program, pinned as such", () => {
    const { pyenvRoot, system, context, env } = layout();
    writeFileSync(path.join(pyenvRoot, "version"), "# nothing chosen\n");
    expect(pinVersionManagers(env([system]), path.join(pyenvRoot, "shims", "python3"), context).env.PYENV_VERSION).toBe("system");
  });

  it("keeps an override the operator's .env set", () => {
    const { pyenvRoot, system, context, env } = layout();
    const pinned = pinVersionManagers(env([system], { PYENV_VERSION: "3.9.18" }), path.join(pyenvRoot, "shims", "python3"), context);
    expect(pinned.env.PYENV_VERSION).toBe("3.9.18");
    expect(pinned.pinnedVariables).toEqual(["RUSTUP_TOOLCHAIN"]);
  });

  it("a rustup proxy runs with RUSTUP_TOOLCHAIN set to rustup's default toolchain", () => {
    const { cargoBin, system, context, env } = layout();
    const pinned = pinVersionManagers(env([cargoBin, system]), path.join(cargoBin, "cargo"), context);
    expect(pinned.manager).toEqual({ kind: "rustup" });
    expect(pinned.env.RUSTUP_TOOLCHAIN).toBe("stable-x86_64-unknown-linux-gnu");
  });

  it("fails closed when the choice cannot be read: no default toolchain, a path in the version file, an untrusted file", () => {
    const { home, pyenvRoot, cargoBin, system, context, env } = layout();
    writeFileSync(path.join(home, ".rustup", "settings.toml"), 'version = "12"\n');
    expect(() => pinVersionManagers(env([system]), path.join(cargoBin, "cargo"), context)).toThrow(/shim of rustup.*no default toolchain/u);
    writeFileSync(path.join(pyenvRoot, "version"), "../../../tmp/planted\n");
    expect(() => pinVersionManagers(env([system]), path.join(pyenvRoot, "shims", "python3"), context)).toThrow(VersionPinError);
    writeFileSync(path.join(pyenvRoot, "version"), "3.11.7\n");
    chmodSync(path.join(pyenvRoot, "version"), 0o666);
    // A search trust remembers its verdicts for one computation: a new one sees the new mode.
    const fresh = { ...context, trust: searchTrust("linux") };
    expect(() => pinVersionManagers(env([system]), path.join(pyenvRoot, "shims", "python3"), fresh)).toThrow(/shim of pyenv.*refused/u);
  });

  it("refuses a manager it cannot pin (asdf), naming the fix and no PATH entry", () => {
    const { asdfShims, system, context, env } = layout();
    const run = (): unknown => pinVersionManagers(env([asdfShims, system]), path.join(asdfShims, "node"), context);
    expect(run).toThrow(/node is a shim of asdf.*run the real program by its absolute path instead \(`asdf which node`\)/u);
    expect(run).not.toThrow(new RegExp(asdfShims.replaceAll("/", "\\/"), "u"));
  });
});

posixOnly("managers the program can reach through PATH", () => {
  it("pins every manager whose shims are on the child's PATH, for the program's own lookups", () => {
    const { pyenvRoot, cargoBin, system, context, env } = layout();
    const shimDir = path.join(pyenvRoot, "shims");
    const pinned = pinVersionManagers(env([shimDir, cargoBin, system]), path.join(system, "kubectl"), context);
    expect(pinned.manager).toBeUndefined();
    expect(pinned.env.PYENV_VERSION).toBe("3.11.7");
    expect(pinned.env.RUSTUP_TOOLCHAIN).toBe("stable-x86_64-unknown-linux-gnu");
    expect(pinned.env.PATH).toBe(`${shimDir}:${cargoBin}:${system}`);
  });

  it("takes off PATH a shims directory it cannot pin, and one whose choice cannot be read", () => {
    const { home, pyenvRoot, cargoBin, asdfShims, system, context, env } = layout();
    writeFileSync(path.join(home, ".rustup", "settings.toml"), "not = [toml\n");
    const shimDir = path.join(pyenvRoot, "shims");
    const pinned = pinVersionManagers(env([asdfShims, cargoBin, shimDir, system]), path.join(system, "kubectl"), context);
    expect(pinned.env.PATH).toBe(`${shimDir}:${system}`);
    expect(pinned.env.RUSTUP_TOOLCHAIN).toBeUndefined();
    expect(pinned.env.PYENV_VERSION).toBe("3.11.7");
  });

  it("leaves an environment without managers as it was", () => {
    const { home, system, context, env } = layout();
    rmSync(path.join(home, ".pyenv", "shims"), { recursive: true });
    rmSync(path.join(home, ".rustup"), { recursive: true });
    const before = env([system]);
    expect({ ...pinVersionManagers(before, path.join(system, "kubectl"), context).env }).toEqual(before);
  });

  it("pins the managers installed under the child's home whatever PATH holds: a link to a shim from a directory of another name", () => {
    const { home, pyenvRoot, cargoBin, system, context, env } = layout();
    const localBin = path.join(home, ".local", "bin");
    mkdirSync(localBin, { recursive: true });
    symlinkSync(path.join(pyenvRoot, "shims", "python3"), path.join(localBin, "python3"));
    symlinkSync(path.join(cargoBin, "cargo"), path.join(localBin, "cargo"));
    const pinned = pinVersionManagers(env([localBin, system]), path.join(system, "kubectl"), context);
    expect(pinned.env.PYENV_VERSION).toBe("3.11.7");
    expect(pinned.env.RUSTUP_TOOLCHAIN).toBe("stable-x86_64-unknown-linux-gnu");
    expect(pinned.env.PATH).toBe(`${localBin}:${system}`);
  });
});

posixOnly("managers reached through links, decided by real paths and content, not by a directory's name", () => {
  /** rustup's proxies as hard links (rustup's choice where it can), and a `~/.local/bin` of links to them and to pyenv's shims. */
  function linkedLayout() {
    const base = layout();
    const { home, pyenvRoot, cargoBin } = base;
    for (const name of ["cargo", "rustc"]) {
      const proxy = path.join(cargoBin, name);
      rmSync(proxy, { force: true });
      linkSync(path.join(cargoBin, "rustup"), proxy);
    }
    const localBin = path.join(home, ".local", "bin");
    mkdirSync(localBin, { recursive: true });
    writeExecutable(path.join(localBin, "httpie"), `#!/bin/sh\n${"# an ordinary script\n".repeat(300)}`);
    symlinkSync(path.join(cargoBin, "cargo"), path.join(localBin, "cargo"));
    symlinkSync(path.join(pyenvRoot, "shims", "python3"), path.join(localBin, "python3"));
    return { ...base, localBin };
  }

  it("a hard-linked rustup proxy reached through a link elsewhere is pinned as the program", () => {
    const { localBin, system, context, env } = linkedLayout();
    const pinned = pinVersionManagers(env([system]), path.join(localBin, "cargo"), context);
    expect(pinned.manager).toEqual({ kind: "rustup" });
    expect(pinned.env.RUSTUP_TOOLCHAIN).toBe("stable-x86_64-unknown-linux-gnu");
  });

  it("a hard link of rustup with no rustup beside it, as the program, is a proxy too (the rustup of ~/.cargo/bin is known)", () => {
    const { top, cargoBin, system, context, env } = linkedLayout();
    const optBin = path.join(top, "opt-bin");
    mkdirSync(optBin);
    linkSync(path.join(cargoBin, "rustup"), path.join(optBin, "cargo"));
    const pinned = pinVersionManagers(env([system]), path.join(optBin, "cargo"), context);
    expect(pinned.manager).toEqual({ kind: "rustup" });
    expect(pinned.env.RUSTUP_TOOLCHAIN).toBe("stable-x86_64-unknown-linux-gnu");
  });
});

posixOnly("a shims directory Torii cannot read fails closed", () => {
  /** A `shims` directory of a manager Torii does not know (pyenv-win's `.bat` shims, a new format). */
  function unknownShims(top: string): string {
    const shims = path.join(top, ".pyenv", "pyenv-win", "shims");
    writeExecutable(path.join(shims, "python.bat"), '@echo off\ncall "%PYENV%\\libexec\\pyenv-exec.bat" %~n0 %*\n');
    writeExecutable(path.join(shims, "python"), '#!/bin/sh\nexec "$HOME/.newenv/bin/newenv" run python "$@"\n');
    return shims;
  }

  it("takes an unrecognised shims directory off the child's PATH, and a link to it", () => {
    const { top, home, system, context, env } = layout();
    const shims = unknownShims(top);
    const linked = path.join(home, "bin");
    symlinkSync(shims, linked);
    expect(pinVersionManagers(env([shims, linked, system]), path.join(system, "kubectl"), context).env.PATH).toBe(system);
  });

  it("takes off PATH a shims entry that cannot be listed (here not a directory: root reads any mode)", () => {
    const { top, system, context, env } = layout();
    const unlistable = path.join(top, "other", "shims");
    mkdirSync(path.dirname(unlistable));
    writeFileSync(unlistable, "");
    expect(pinVersionManagers(env([unlistable, system]), path.join(system, "kubectl"), context).env.PATH).toBe(system);
  });

  it("refuses a program in a shims directory it does not recognise, reached directly or through a link", () => {
    const { top, home, system, context, env } = layout();
    const shims = unknownShims(top);
    const link = path.join(home, "python");
    symlinkSync(path.join(shims, "python"), link);
    for (const program of [path.join(shims, "python"), link]) {
      expect(() => pinVersionManagers(env([system]), program, context)).toThrow(
        /python sits in a version manager's shims directory but is no shim Torii recognises/u,
      );
    }
  });
});

posixOnly("the server's own environment", () => {
  it("loses the managers' variables its client set, and gets the pins of its PATH", () => {
    const { home, pyenvRoot, system, context } = layout();
    const shimDir = path.join(pyenvRoot, "shims");
    const own: NodeJS.ProcessEnv = {
      HOME: home,
      PATH: `${shimDir}:${system}`,
      PYENV_VERSION: "3.12.1",
      PYENV_DIR: "/tmp",
      RUSTUP_TOOLCHAIN: "nightly",
      mise_env: "x",
      TZ: "UTC",
    };
    // The server reduces its own PATH when its call side loads (restrictOwnPath), and pins on the way.
    restrictOwnPath(own, { cwd: context.cwd, selfDir: context.selfDir }, "linux");
    expect(own).toEqual({ HOME: home, PATH: `${shimDir}:${system}`, PYENV_VERSION: "3.11.7", RUSTUP_TOOLCHAIN: "stable-x86_64-unknown-linux-gnu", TZ: "UTC" });
  });
});

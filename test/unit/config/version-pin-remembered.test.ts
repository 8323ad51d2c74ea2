/**
 * A shims directory's verdict, judged again by the next call after any change
 * that could alter it (the pins of a call are remembered as a whole while every
 * path they were judged by is unchanged: config/unchanged-verdicts.ts).
 */
import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { searchTrust } from "../../../src/config/search-trust.js";
import { pinVersionManagers } from "../../../src/config/version-pin.js";
import type { SearchPathContext } from "../../../src/runtime/search-path.js";
import { writeExecutable } from "../../support/fake-clis.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

const pyenvShim = (root: string): string => `#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT="${root}"\nexec "${root}/libexec/pyenv" exec "\${0##*/}" "$@"\n`;

function shimsDirectory() {
  const top = tempDirectory("torii-remembered-");
  const root = path.join(top, ".pyenv");
  const shims = path.join(root, "shims");
  for (const name of ["pip", "python", "python3"]) writeExecutable(path.join(shims, name), pyenvShim(root));
  return { top, root, shims };
}

posixOnly("a remembered shims directory in the pins", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A home with rustup's settings, a project, and plans with a fresh search trust each (one per call), the clock a minute ahead. */
  function plans() {
    const top = tempDirectory("torii-remembered-pins-");
    const home = path.join(top, "home");
    mkdirSync(path.join(home, ".rustup"), { recursive: true });
    writeFileSync(path.join(home, ".rustup", "settings.toml"), 'default_toolchain = "stable"\n');
    const shims = path.join(top, "tools", "shims");
    mkdirSync(shims, { recursive: true });
    const plan = (pathDirs: readonly string[]) =>
      pinVersionManagers({ HOME: home, PATH: pathDirs.join(":") }, undefined, {
        platform: "linux",
        cwd: path.join(top, "project"),
        selfDir: path.join(top, "torii"),
        trust: searchTrust("linux"),
      });
    // The files are written just now: with the clock a minute ahead their times count as settled, so a verdict is kept.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
    return { top, shims, plan };
  }

  it("judges a shim rewritten after its directory's verdict was remembered again: the directory leaves PATH", () => {
    const { top, root, shims } = shimsDirectory();
    writeFileSync(path.join(root, "version"), "3.11.7\n");
    const project = path.join(top, "project");
    const context = (): SearchPathContext => ({ platform: "linux", cwd: project, selfDir: path.join(top, "torii"), trust: searchTrust("linux") });
    const env = { HOME: path.join(top, "home"), PATH: `${shims}:/usr/bin` };
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
    const first = pinVersionManagers(env, undefined, context());
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(first.env.PATH).toBe(`${shims}:/usr/bin`);

    writeFileSync(path.join(shims, "pip"), '#!/bin/sh\n# not a shim any manager wrote\nexec /opt/elsewhere/pip "$@"\n');
    const second = pinVersionManagers(env, undefined, context());
    expect(second.env.PATH).toBe("/usr/bin");
    expect(second.env.PYENV_VERSION).toBeUndefined();
  });

  it("never keeps a verdict that followed a link: a link whose chain is repointed to another name of the same file is judged again", () => {
    const { top, shims, plan } = plans();
    // cargo -> switch -> bin1/rustup; bin2/mise is the same file (a hard link), so every stat stays as it was.
    writeExecutable(path.join(top, "bin1", "rustup"), "\u007fELF rustup\n");
    mkdirSync(path.join(top, "bin2"));
    linkSync(path.join(top, "bin1", "rustup"), path.join(top, "bin2", "mise"));
    symlinkSync(path.join(top, "bin1", "rustup"), path.join(top, "switch"));
    symlinkSync(path.join(top, "switch"), path.join(shims, "cargo"));
    expect(plan([shims, "/usr/bin"]).env.PATH).toBe(`${shims}:/usr/bin`);

    rmSync(path.join(top, "switch"));
    symlinkSync(path.join(top, "bin2", "mise"), path.join(top, "switch"));
    expect(plan([shims, "/usr/bin"]).env.PATH).toBe("/usr/bin");
  });

  it("never keeps a verdict that passed over a dangling link: the link coming to life is judged", () => {
    const { top, shims, plan } = plans();
    const root = path.join(top, "tools");
    writeExecutable(path.join(shims, "python"), pyenvShim(root));
    writeFileSync(path.join(root, "version"), "3.11.7\n");
    symlinkSync(path.join(top, "nowhere"), path.join(shims, "a-tool"));
    expect(plan([shims, "/usr/bin"]).env.PATH).toBe(`${shims}:/usr/bin`);

    writeExecutable(path.join(top, "nowhere"), '#!/bin/sh\nexec /opt/elsewhere/tool "$@"\n');
    expect(plan([shims, "/usr/bin"]).env.PATH).toBe("/usr/bin");
  });

  it("never keeps a verdict that compared a binary with the rustups on the call's PATH: another PATH is judged again", () => {
    const { top, shims, plan } = plans();
    const cargoBin = path.join(top, "cargo-bin");
    writeExecutable(path.join(cargoBin, "rustup"), "\u007fELF rustup\n");
    linkSync(path.join(cargoBin, "rustup"), path.join(shims, "tool"));
    // With the rustup on PATH, its hard link in the shims directory is one of its proxies.
    expect(plan([shims, cargoBin, "/usr/bin"]).env.PATH).toBe(`${shims}:${cargoBin}:/usr/bin`);
    // Without it, the same file is a binary no manager is known to have written.
    expect(plan([shims, "/usr/bin"]).env.PATH).toBe("/usr/bin");
  });
});

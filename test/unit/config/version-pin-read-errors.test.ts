/**
 * A read that fails for a reason the lstats of its path do not show (too many
 * open files, an I/O error) is no answer to remember: the pins judged with it
 * are used for that call only, and the next call reads again. Otherwise one
 * transient failure would leave a shim unpinned (its head unread, so it looks
 * like an ordinary program) for every later call until something on disk moves.
 *
 * The failure is injected through node:fs for one path at a time; the clock runs
 * a minute ahead so that the files written here count as settled.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/** Paths whose next open, read or listing fails with EMFILE, once each. */
const failing = new Set<string>();

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const failOnce = (file: unknown): void => {
    if (typeof file === "string" && failing.delete(file)) throw Object.assign(new Error(`EMFILE: too many open files, open '${file}'`), { code: "EMFILE" });
  };
  const openSync = ((file: unknown, ...rest: unknown[]) => {
    failOnce(file);
    return (actual.openSync as (...args: unknown[]) => number)(file, ...rest);
  }) as typeof actual.openSync;
  const readFileSync = ((file: unknown, ...rest: unknown[]) => {
    failOnce(file);
    return (actual.readFileSync as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof actual.readFileSync;
  const readdirSync = ((file: unknown, ...rest: unknown[]) => {
    failOnce(file);
    return (actual.readdirSync as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof actual.readdirSync;
  return { ...actual, default: { ...actual, openSync, readFileSync, readdirSync }, openSync, readFileSync, readdirSync };
});

const { searchTrust } = await import("../../../src/config/search-trust.js");
const { pinVersionManagers, VersionPinError } = await import("../../../src/config/version-pin.js");
const { writeExecutable } = await import("../../support/fake-clis.js");
const { tempDirectory } = await import("../../support/temp-dirs.js");

const posixOnly = process.platform === "win32" ? describe.skip : describe;

const pyenvShim = (root: string): string => `#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT="${root}"\nexec "${root}/libexec/pyenv" exec "\${0##*/}" "$@"\n`;

function layout() {
  const top = tempDirectory("torii-pin-read-errors-");
  const home = path.join(top, "home");
  const project = path.join(top, "project");
  for (const directory of [home, project, path.join(top, "torii")]) mkdirSync(directory, { recursive: true });
  const pins = (executable?: string) =>
    pinVersionManagers(
      { HOME: home, PATH: "/usr/bin" },
      executable,
      { platform: "linux", cwd: project, selfDir: path.join(top, "torii"), trust: searchTrust("linux") },
      { remember: true },
    );
  return { top, home, pins };
}

posixOnly("version pins judged through a failed read", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
  });
  afterEach(() => {
    failing.clear();
    vi.useRealTimers();
  });

  it("are not remembered when the program's head could not be read: the next call pins its manager", () => {
    const { top, pins } = layout();
    const root = path.join(top, "tools", ".pyenv");
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, "version"), "3.11.7\n");
    // A copy of a pyenv shim outside any `shims` directory: only its head tells what it is.
    const program = path.join(top, "bin", "python3");
    writeExecutable(program, pyenvShim(root));

    failing.add(program);
    expect(pins(program).env.PYENV_VERSION).toBeUndefined();
    expect(failing.has(program)).toBe(false);

    const next = pins(program);
    expect(next.manager).toMatchObject({ kind: "env-family", name: "pyenv" });
    expect(next.env.PYENV_VERSION).toBe("3.11.7");
  });

  it("are not remembered when an installed manager's global file could not be read: the next call pins it", () => {
    const { home, pins } = layout();
    const root = path.join(home, ".pyenv");
    writeExecutable(path.join(root, "shims", "python3"), pyenvShim(root));
    writeFileSync(path.join(root, "version"), "3.11.7\n");

    failing.add(path.join(root, "version"));
    expect(pins().env.PYENV_VERSION).toBeUndefined();
    expect(failing.size).toBe(0);

    expect(pins().env.PYENV_VERSION).toBe("3.11.7");
  });

  it("are not remembered when a place of the manager's hooks could not be listed: the next call runs the shim", () => {
    const { home, pins } = layout();
    const root = path.join(home, ".pyenv");
    const program = path.join(root, "shims", "python3");
    writeExecutable(program, pyenvShim(root));
    writeFileSync(path.join(root, "version"), "3.11.7\n");
    mkdirSync(path.join(root, "plugins"));

    failing.add(path.join(root, "plugins"));
    expect(() => pins(program)).toThrow(VersionPinError);
    expect(failing.size).toBe(0);

    expect(pins(program).env.PYENV_VERSION).toBe("3.11.7");
  });
});

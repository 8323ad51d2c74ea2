/**
 * The operator's `path.trusted_directories` (settings.yaml) on real
 * directories with the real trust rule: a listed directory, and what is below
 * it, may be group-writable (Homebrew's `/usr/local/bin`, user:admin 775);
 * nothing else changes. Other write is still refused, so are the working
 * directory and what is below it, the shared temporary directories, a
 * group-writable directory above the listed one, and a sibling whose name
 * merely starts the same. The list is compared by real paths.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { restrictOwnPath, searchContext, searchTrust, skippedPathEntries } from "../../../src/config/search-trust.js";
import { resolveExecutable } from "../../../src/runtime/resolve-executable.js";
import { trustedSearchPath, type SearchPathContext } from "../../../src/runtime/search-path.js";
import { tempDirectory } from "../../support/temp-dirs.js";
import { chmodSharedGroup } from "../../support/shared-group.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

/** A directory with a `mycli` program, both with `mode` (the program also executable by all). */
function binDirectory(dir: string, mode: number): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "mycli");
  writeFileSync(file, "#!/bin/sh\n");
  chmodSharedGroup(file, mode | 0o111);
  chmodSharedGroup(dir, mode);
  return dir;
}

function layout() {
  const top = tempDirectory("torii-trusted-dirs-");
  const project = path.join(top, "proj");
  mkdirSync(project);
  // Homebrew's layout on an Intel Mac: /usr/local is root's 755, /usr/local/bin user:admin 775.
  const brew = path.join(top, "brew");
  mkdirSync(brew);
  chmodSync(brew, 0o755);
  const brewBin = binDirectory(path.join(brew, "bin"), 0o775);
  const place = { cwd: project, selfDir: path.join(top, "torii", "dist") };
  const context = (trustedDirectories: readonly string[]): SearchPathContext => ({
    ...place,
    platform: "linux",
    trust: searchTrust("linux", { trustedDirectories }),
  });
  return { top, project, brew, brewBin, place, context };
}

posixOnly("path.trusted_directories", () => {
  it("accepts a group-writable directory listed, its group-writable program and what is below it; unlisted, the same tree is refused", () => {
    const { brew, brewBin, context } = layout();
    expect(trustedSearchPath(brewBin, context([])).skipped).toEqual([
      { entry: brewBin, reason: expect.stringMatching(/writable by group or others \(mode 775\)/u) as string },
    ]);
    expect(() => resolveExecutable("mycli", { pathEnv: brewBin, ...context([]) })).toThrow(/0 PATH directories searched/u);
    for (const listed of [brew, brewBin]) {
      expect(trustedSearchPath(brewBin, context([listed])).directories, listed).toEqual([brewBin]);
      expect(resolveExecutable("mycli", { pathEnv: brewBin, ...context([listed]) }).path, listed).toBe(path.join(brewBin, "mycli"));
    }
  });

  it("still refuses a listed directory, or a program in one, that others can write", () => {
    const { top, context } = layout();
    const open = binDirectory(path.join(top, "open-bin"), 0o777);
    const loose = binDirectory(path.join(top, "loose-bin"), 0o755);
    chmodSync(path.join(loose, "mycli"), 0o757);
    const search = trustedSearchPath(`${open}:${loose}`, context([open, loose]));
    expect(search.directories).toEqual([loose]);
    expect(search.skipped).toEqual([{ entry: open, reason: expect.stringMatching(/writable by group or others \(mode 777\)/u) as string }]);
    expect(() => resolveExecutable("mycli", { pathEnv: loose, ...context([open, loose]) })).toThrow(/1 matching program\(s\) refused/u);
  });

  it("does not reach above the listed directory, nor a sibling whose name starts the same", () => {
    const { brew, brewBin, context } = layout();
    const sibling = binDirectory(`${brewBin}-extra`, 0o775);
    const search = trustedSearchPath(`${brewBin}:${sibling}`, context([brewBin]));
    expect(search.directories).toEqual([brewBin]);
    expect(search.skipped).toEqual([{ entry: sibling, reason: expect.stringMatching(/writable by group or others \(mode 775\)/u) as string }]);
    // A group-writable directory above a listed bin directory is not covered by the listing.
    const opt = path.join(brew, "opt");
    const below = binDirectory(path.join(opt, "bin"), 0o755);
    chmodSharedGroup(opt, 0o775);
    expect(trustedSearchPath(below, context([below])).skipped).toEqual([
      { entry: below, reason: `${opt}: is writable by group or others (mode 775), so others could replace the configuration below it; fix: chmod go-w ${opt}` },
    ]);
    expect(trustedSearchPath(below, context([opt])).directories).toEqual([below]);
  });

  it("never lifts the working directory, Torii's own directory or the shared temporary directories", () => {
    const { top, project, place, context } = layout();
    const inProject = binDirectory(path.join(project, ".local", "bin"), 0o775);
    const scratch = binDirectory(path.join(top, "scratch", "bin"), 0o775);
    const withTmpdir: SearchPathContext = {
      ...place,
      platform: "linux",
      trust: searchTrust("linux", { trustedDirectories: [project, path.join(top, "scratch")], env: { TMPDIR: path.join(top, "scratch") } }),
    };
    const search = trustedSearchPath(`${inProject}:${scratch}`, withTmpdir);
    expect(search.directories).toEqual([]);
    expect(search.skipped.map((entry) => entry.reason)).toEqual([
      "at or below the working directory, which the agent can write to",
      "in a shared temporary directory, where anyone can create files first",
    ]);
    expect(trustedSearchPath(inProject, context([project])).directories).toEqual([]);
  });

  it("compares the listed directories by real path: a link spelling in settings.yaml covers the real directory", () => {
    const { top, brew, brewBin, context } = layout();
    symlinkSync(brew, path.join(top, "brew-link"));
    expect(trustedSearchPath(brewBin, context([path.join(top, "brew-link")])).directories).toEqual([brewBin]);
    // A listed directory that does not exist covers nothing.
    expect(trustedSearchPath(brewBin, context([path.join(top, "missing")])).directories).toEqual([]);
  });

  it("reaches every search built from a place: the server's own PATH, doctor's report and the opener's context", () => {
    const { brewBin, place } = layout();
    const env: NodeJS.ProcessEnv = { PATH: brewBin };
    restrictOwnPath(env, { ...place, trustedDirectories: [brewBin] }, "linux");
    expect(env.PATH).toBe(brewBin);
    const strict: NodeJS.ProcessEnv = { PATH: brewBin };
    restrictOwnPath(strict, place, "linux");
    expect(strict.PATH).toBe("/usr/bin:/bin");
    expect(skippedPathEntries(brewBin, { ...place, trustedDirectories: [brewBin] }, "linux")).toEqual([]);
    expect(skippedPathEntries(brewBin, place, "linux")).toHaveLength(1);
    expect(trustedSearchPath(brewBin, searchContext({ ...place, trustedDirectories: [brewBin] }, "linux")).directories).toEqual([brewBin]);
  });
});

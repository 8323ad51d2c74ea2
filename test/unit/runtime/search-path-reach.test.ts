/**
 * The PATH search never reaches a place the agent (or another user) can write
 * to, on real directories with the real trust rule (config/search-trust.ts):
 * entries at or below the working directory by any spelling (links, trailing
 * slashes, doubled slashes), entries writable by group or others, missing
 * entries, programs that lead into the project through a link, links on the
 * way that another user owns or that pass through the project, and shared
 * temporary directories. Links owned by another user are made with lchown to
 * uid 65534 (as root). The Windows comparison (case-insensitive) runs with the
 * platform injected.
 */
import { chmodSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { restrictOwnPath, searchTrust, sharedTemporaryDirectories, skippedPathEntries } from "../../../src/config/search-trust.js";
import { ExecutableRefusedError, resolveExecutable } from "../../../src/runtime/resolve-executable.js";
import { childPathValue, trustedSearchPath, type SearchPathContext } from "../../../src/runtime/search-path.js";
import { lexicalTrust } from "../../support/search-trust.js";
import { tempDirectory } from "../../support/temp-dirs.js";
import { chmodSharedGroup } from "../../support/shared-group.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;
const isRoot = process.getuid?.() === 0;
const FOREIGN_UID = 65534;

/** A project (the working directory) with bin directories inside, a trusted system bin, and a link spelling of the project. */
function layout() {
  const top = tempDirectory("torii-reach-");
  const project = path.join(top, "proj");
  const system = path.join(top, "system-bin");
  for (const dir of [path.join(project, ".venv", "bin"), path.join(project, "node_modules", ".bin"), system]) mkdirSync(dir, { recursive: true });
  for (const dir of [path.join(project, ".venv", "bin"), project, system]) tool(dir, "mycli");
  symlinkSync(project, path.join(top, "proj-link"));
  const context: SearchPathContext = { platform: "linux", cwd: project, selfDir: path.join(top, "torii", "dist"), trust: searchTrust("linux") };
  return { top, project, system, context };
}

function tool(dir: string, name: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, "#!/bin/sh\n");
  chmodSync(file, 0o755);
  return file;
}

posixOnly("entries in the working directory, by their real paths", () => {
  it("drops the working directory and everything below it, however spelled, links included", () => {
    const { top, project, system, context } = layout();
    const spellings = [
      project,
      `${project}/`,
      `${top}//proj`,
      `${top}/proj-link`,
      `${top}/proj-link/.venv/bin`,
      path.join(project, ".venv", "bin"),
      path.join(project, "node_modules", ".bin"),
      `${top}/system-bin/../proj/.venv/bin`,
    ];
    for (const spelling of spellings) {
      const search = trustedSearchPath(`${spelling}:${system}`, context);
      expect(search.directories, spelling).toEqual([system]);
      expect(search.skipped, spelling).toEqual([
        { entry: expect.any(String) as string, reason: expect.stringMatching(/^at or below the working directory/u) as string },
      ]);
      expect(childPathValue(`${spelling}:${system}`, context), spelling).toBe(system);
    }
    // The planted copies come first on PATH; the real one is found, and with only the planted ones, none is.
    expect(resolveExecutable("mycli", { pathEnv: [...spellings, system].join(":"), ...context }).path).toBe(path.join(system, "mycli"));
    expect(() => resolveExecutable("mycli", { pathEnv: spellings.join(":"), ...context })).toThrow(/not found: 0 PATH directories searched/u);
  });

  it("drops a working directory's link spelling when the server was started through the link", () => {
    const { top, project, system, context } = layout();
    const throughLink = { ...context, cwd: path.join(top, "proj-link") };
    expect(trustedSearchPath(`${project}/.venv/bin:${system}`, throughLink).directories).toEqual([system]);
  });

  it("drops entries at or below Torii's own code directory", () => {
    const { system, context } = layout();
    mkdirSync(path.join(context.selfDir, "bin"), { recursive: true });
    expect(trustedSearchPath(`${context.selfDir}/bin:${context.selfDir}:${system}`, context).directories).toEqual([system]);
  });

  it("a working directory that is the filesystem root (a GUI client's) leaves out only the root itself", () => {
    const { system, context } = layout();
    expect(trustedSearchPath(`/:${system}:/usr/bin`, { ...context, cwd: "/" }).directories).toEqual([system, "/usr/bin"]);
  });

  it("refuses a program that leads into the project through a link in a trusted directory, and goes on searching", () => {
    const { top, project, system, context } = layout();
    const linked = path.join(top, "linked-bin");
    mkdirSync(linked);
    symlinkSync(path.join(project, ".venv", "bin", "mycli"), path.join(linked, "mycli"));
    expect(resolveExecutable("mycli", { pathEnv: `${linked}:${system}`, ...context }).path).toBe(path.join(system, "mycli"));
    const alone = (): unknown => resolveExecutable("mycli", { pathEnv: linked, ...context });
    expect(alone).toThrow(/1 PATH directory searched; 1 matching program\(s\) refused/u);
  });

  it("refuses an absolute command in the project, by any spelling", () => {
    const { top, project, context } = layout();
    for (const command of [path.join(project, ".venv", "bin", "mycli"), `${top}/proj-link/mycli`]) {
      const attempt = (): unknown => resolveExecutable(command, { pathEnv: "", ...context });
      expect(attempt, command).toThrow(ExecutableRefusedError);
      expect(attempt, command).toThrow(/at or below the working directory/u);
    }
  });
});

posixOnly("entries and programs others can write to", () => {
  it("drops an entry writable by group or others, or below a group-writable directory; a sticky parent is fine, a sticky entry is not", () => {
    const { top, system, context } = layout();
    const cases: [string, number][] = [
      ["group-bin", 0o775],
      ["other-bin", 0o757],
      ["sticky-bin", 0o1777],
    ];
    for (const [name, mode] of cases) {
      mkdirSync(path.join(top, name));
      chmodSharedGroup(path.join(top, name), mode);
    }
    mkdirSync(path.join(top, "group-bin", "inner"));
    chmodSync(path.join(top, "group-bin", "inner"), 0o755);
    mkdirSync(path.join(top, "sticky-bin", "own"));
    chmodSync(path.join(top, "sticky-bin", "own"), 0o755);
    const entries = ["group-bin", "other-bin", "sticky-bin", "group-bin/inner", "sticky-bin/own"].map((name) => path.join(top, name));
    const search = trustedSearchPath([...entries, system].join(":"), context);
    expect(search.directories).toEqual([path.join(top, "sticky-bin", "own"), system]);
    expect(search.skipped.map((entry) => entry.entry)).toEqual(entries.slice(0, 4));
    for (const skipped of search.skipped) expect(skipped.reason).toMatch(/is writable by group or others \(mode 1?7[57]7?5?\)/u);
    expect(childPathValue([...entries, system].join(":"), context)).toBe(`${path.join(top, "sticky-bin", "own")}:${system}`);
  });

  it("skips a program file writable by group or others, and refuses such an absolute command", () => {
    const { top, system, context } = layout();
    const loose = path.join(top, "loose-bin");
    mkdirSync(loose);
    chmodSharedGroup(tool(loose, "mycli"), 0o775);
    expect(resolveExecutable("mycli", { pathEnv: `${loose}:${system}`, ...context }).path).toBe(path.join(system, "mycli"));
    expect(() => resolveExecutable(path.join(loose, "mycli"), { pathEnv: "", ...context })).toThrow(/writable by group or others/u);
  });

  it("drops a missing entry (under a sticky directory anyone could create it later), and does not report it", () => {
    const { top, system, context } = layout();
    const missing = path.join(top, "not-yet");
    expect(trustedSearchPath(`${missing}:${system}`, context)).toMatchObject({
      directories: [system],
      skipped: [{ entry: missing, reason: "does not exist" }],
    });
    expect(skippedPathEntries(`${missing}:${system}:relative`, { cwd: context.cwd, selfDir: context.selfDir }, "linux")).toEqual([
      { entry: "relative", reason: expect.stringMatching(/not an absolute path/u) as string },
    ]);
  });
});

posixOnly("links on the way to an entry or a program", () => {
  it.skipIf(!isRoot)("drops an entry reached through a link another user owns, at any level, naming a chown -h that fixes it", () => {
    const { top, system, context } = layout();
    const libexec = path.join(top, "libexec");
    mkdirSync(path.join(libexec, "bin"), { recursive: true });
    symlinkSync(system, path.join(top, "last-link"));
    symlinkSync(libexec, path.join(top, "middle-link"));
    symlinkSync(system, path.join(top, "own-link"));
    for (const link of ["last-link", "middle-link"]) lchownSync(path.join(top, link), FOREIGN_UID, FOREIGN_UID);
    const entries = [path.join(top, "last-link"), path.join(top, "middle-link", "bin"), path.join(top, "own-link")];
    const search = trustedSearchPath(entries.join(":"), context);
    expect(search.directories).toEqual([path.join(top, "own-link")]);
    expect(search.skipped).toEqual(
      ["last-link", "middle-link"].map((link, index) => ({
        entry: entries[index],
        reason: `${path.join(top, link)}: is a symbolic link that belongs to uid ${FOREIGN_UID}, not to this user (uid 0) or root; fix: chown -h 0 ${path.join(top, link)}`,
      })),
    );
  });

  it.skipIf(!isRoot)("refuses a program that is a link another user owns, and goes on searching", () => {
    const { top, system, context } = layout();
    const linked = path.join(top, "linked-bin");
    mkdirSync(linked);
    symlinkSync(path.join(system, "mycli"), path.join(linked, "mycli"));
    lchownSync(path.join(linked, "mycli"), FOREIGN_UID, FOREIGN_UID);
    const other = path.join(top, "other-bin");
    mkdirSync(other);
    tool(other, "mycli");
    expect(resolveExecutable("mycli", { pathEnv: `${linked}:${other}`, ...context }).path).toBe(path.join(other, "mycli"));
    expect(() => resolveExecutable("mycli", { pathEnv: linked, ...context })).toThrow(/1 matching program\(s\) refused/u);
    expect(() => resolveExecutable(path.join(linked, "mycli"), { pathEnv: "", ...context })).toThrow(/symbolic link that belongs to uid 65534/u);
  });

  it("drops an entry whose link passes through the working directory on the way elsewhere: the project's own links and `..` out of it", () => {
    const { top, project, system, context } = layout();
    mkdirSync(path.join(project, "tools"));
    // The agent owns <project>/current and may repoint it at its own bin directory at any time.
    symlinkSync(system, path.join(project, "current"));
    symlinkSync(path.join(project, "current"), path.join(top, "via-project-link"));
    symlinkSync(`${project}/tools/../../system-bin`, path.join(top, "via-dotdot"));
    const entries = [path.join(top, "via-project-link"), path.join(top, "via-dotdot")];
    const search = trustedSearchPath([...entries, system].join(":"), context);
    expect(search.directories).toEqual([system]);
    expect(search.skipped).toEqual([
      { entry: entries[0], reason: `its resolution passes through ${project}, at or below the working directory, which the agent can write to` },
      { entry: entries[1], reason: `its resolution passes through ${project}, at or below the working directory, which the agent can write to` },
    ]);
    expect(childPathValue([...entries, system].join(":"), context)).toBe(system);
  });

  it("refuses a program whose link passes through the working directory, though it ends outside", () => {
    const { top, project, system, context } = layout();
    symlinkSync(system, path.join(project, "current"));
    const linked = path.join(top, "linked-bin");
    mkdirSync(linked);
    symlinkSync(path.join(project, "current", "mycli"), path.join(linked, "mycli"));
    expect(() => resolveExecutable("mycli", { pathEnv: linked, ...context })).toThrow(/1 matching program\(s\) refused/u);
    expect(() => resolveExecutable(path.join(linked, "mycli"), { pathEnv: "", ...context })).toThrow(
      /passes through .*proj, at or below the working directory/u,
    );
  });
});

posixOnly("shared temporary directories", () => {
  /** A directory only this user may write, made under `parent` (a shared temporary directory), removed after the test. */
  function privateDirectoryIn(parent: string): string {
    const dir = mkdtempSync(path.join(parent, "torii-reach-"));
    onTestFinished(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    chmodSync(dir, 0o700);
    tool(dir, "mycli");
    return dir;
  }

  it("never searches /tmp or anything below it, however private, by name or through a link", () => {
    const { top, system, context } = layout();
    const inTmp = privateDirectoryIn("/tmp");
    symlinkSync(inTmp, path.join(top, "tmp-link"));
    const entries = [inTmp, path.join(top, "tmp-link")];
    const search = trustedSearchPath([...entries, system].join(":"), context);
    expect(search.directories).toEqual([system]);
    expect(search.skipped).toEqual([
      { entry: inTmp, reason: "in a shared temporary directory, where anyone can create files first" },
      { entry: entries[1], reason: "in a shared temporary directory, where anyone can create files first (through a link)" },
    ]);
    expect(() => resolveExecutable(path.join(inTmp, "mycli"), { pathEnv: "", ...context })).toThrow(/in a shared temporary directory/u);
  });

  it("never searches $TMPDIR, compared by real path, nor a program that links into it", () => {
    const { top, system, context } = layout();
    const scratch = path.join(top, "scratch");
    mkdirSync(path.join(scratch, "bin"), { recursive: true });
    tool(path.join(scratch, "bin"), "mycli");
    symlinkSync(scratch, path.join(top, "scratch-link"));
    const linked = path.join(top, "linked-bin");
    mkdirSync(linked);
    symlinkSync(path.join(scratch, "bin", "mycli"), path.join(linked, "mycli"));
    // TMPDIR names the directory by its link; the entry names it by its real path.
    const withTmpdir: SearchPathContext = { ...context, trust: searchTrust("linux", { env: { TMPDIR: path.join(top, "scratch-link") } }) };
    expect(trustedSearchPath(`${path.join(scratch, "bin")}:${system}`, withTmpdir).directories).toEqual([system]);
    expect(() => resolveExecutable("mycli", { pathEnv: linked, ...withTmpdir })).toThrow(/1 matching program\(s\) refused/u);
    // The same tree, with TMPDIR elsewhere, is searched: the refusal is the temporary directory's.
    expect(trustedSearchPath(`${path.join(scratch, "bin")}:${system}`, context).directories).toEqual([path.join(scratch, "bin"), system]);
    expect(resolveExecutable("mycli", { pathEnv: linked, ...context }).path).toBe(path.join(linked, "mycli"));
  });

  it("names /tmp, /var/tmp, /dev/shm and an absolute $TMPDIR (Windows: %TEMP%, %TMP%, %SystemRoot%\\Temp)", () => {
    expect(sharedTemporaryDirectories("linux", { TMPDIR: "/run/user/1000/tmp" })).toEqual(["/tmp", "/var/tmp", "/dev/shm", "/run/user/1000/tmp"]);
    expect(sharedTemporaryDirectories("darwin", { TMPDIR: "relative/tmp" })).toEqual(["/tmp", "/var/tmp", "/dev/shm"]);
    expect(sharedTemporaryDirectories("win32", { TEMP: "C:\\Users\\ana\\AppData\\Local\\Temp", TMP: "temp", SystemRoot: "C:\\Windows" })).toEqual([
      "C:\\Users\\ana\\AppData\\Local\\Temp",
      "C:\\Windows\\Temp",
    ]);
  });
});

posixOnly("the server's own PATH", () => {
  it("is reduced in place as a child's is (the AWS SDK runs credential_process by name in the server), naming what it left out", () => {
    const { project, system, context } = layout();
    const env: NodeJS.ProcessEnv = { PATH: `${project}/.venv/bin:${system}:/usr/bin`, HOME: "/home/op" };
    const skipped = restrictOwnPath(env, { cwd: context.cwd, selfDir: context.selfDir }, "linux");
    expect(env).toEqual({ PATH: `${system}:/usr/bin`, HOME: "/home/op" });
    expect(skipped).toEqual([{ entry: `${project}/.venv/bin`, reason: expect.stringMatching(/^at or below the working directory/u) as string }]);
  });
});

describe("Windows: real paths compare without case (platform injected)", () => {
  it("drops entries below the working directory whatever their case or link spelling", () => {
    const context: SearchPathContext = { platform: "win32", cwd: "c:\\work", selfDir: "C:\\torii\\dist", trust: lexicalTrust({ "D:\\Link": "C:\\Work" }) };
    const search = trustedSearchPath("C:\\WORK\\.venv\\Scripts;D:\\Link\\tools;D:\\Link;C:\\Tools", context);
    expect(search.directories).toEqual(["C:\\Tools"]);
    expect(search.skipped).toHaveLength(3);
  });
});

/**
 * What a verdict judged by many paths relies on (config/unchanged-verdicts.ts,
 * Observations and UnchangedVerdicts): every component from `/` down, links
 * followed as the kernel follows them; a missing name answered for by its
 * directory's times; a place passed on the way by its kind, identity, owner
 * and mode only. Each test remembers a verdict (the clock a minute ahead, so
 * the files just written count as settled), shows it answered while nothing
 * changed, then makes one change.
 */
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { Observations, UnchangedVerdicts } from "../../../src/config/unchanged-verdicts.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

/** Far enough ahead that every time of a file just written counts as settled. */
const LATER_NS = (BigInt(Date.now()) + 60_000n) * 1_000_000n;

/** Remembers "verdict" under "key", judged by `paths` (each with whether its content was relied on). */
function remembered(paths: readonly (readonly [string, boolean])[]): UnchangedVerdicts<string> {
  const observed = new Observations();
  for (const [file, content] of paths) observed.record(file, content);
  const verdicts = new UnchangedVerdicts<string>();
  verdicts.remember("key", observed, "verdict", LATER_NS);
  return verdicts;
}

posixOnly("verdicts judged by many paths", () => {
  it("forget a verdict when a name found missing appears", () => {
    const top = tempDirectory("torii-verdicts-");
    const verdicts = remembered([[path.join(top, "missing", "deeper"), true]]);
    expect(verdicts.verdictOf("key")).toBe("verdict");
    mkdirSync(path.join(top, "missing"));
    expect(verdicts.verdictOf("key")).toBeUndefined();
  });

  it("keep a verdict while an entry is added to a directory only passed on the way, and forget it when that directory's mode changes", () => {
    const top = tempDirectory("torii-verdicts-");
    mkdirSync(path.join(top, "project", "src"), { recursive: true });
    writeFileSync(path.join(top, "project", "src", "main.ts"), "x\n");
    const verdicts = remembered([[path.join(top, "project", "src", "main.ts"), false]]);
    writeFileSync(path.join(top, "project", "new-file"), "y\n");
    expect(verdicts.verdictOf("key")).toBe("verdict");
    chmodSync(path.join(top, "project"), 0o777);
    expect(verdicts.verdictOf("key")).toBeUndefined();
  });

  it("forget a verdict when a relative link with `..` is repointed, though the path through it is spelled the same", () => {
    const top = tempDirectory("torii-verdicts-");
    for (const name of ["a", "b"]) {
      mkdirSync(path.join(top, name, "inner"), { recursive: true });
      writeFileSync(path.join(top, name, "file"), `${name}\n`);
    }
    mkdirSync(path.join(top, "links"));
    symlinkSync("../a/inner", path.join(top, "links", "here"));
    // links/here/../file is a/file, as the kernel resolves it (not links/file, as path.join would spell it).
    const through = `${path.join(top, "links", "here")}/../file`;
    const verdicts = remembered([[through, true]]);
    expect(verdicts.verdictOf("key")).toBe("verdict");
    writeFileSync(path.join(top, "a", "file"), "changed a\n");
    expect(verdicts.verdictOf("key")).toBeUndefined();

    const again = remembered([[through, true]]);
    expect(again.verdictOf("key")).toBe("verdict");
    symlinkSync("../b/inner", path.join(top, "links", "next"));
    renameSync(path.join(top, "links", "next"), path.join(top, "links", "here"));
    expect(again.verdictOf("key")).toBeUndefined();
  });

  it("forget a verdict when a file that stood where a directory would be is replaced by one", () => {
    const top = tempDirectory("torii-verdicts-");
    writeFileSync(path.join(top, "plugins"), "not a directory\n");
    const verdicts = remembered([[path.join(top, "plugins", "etc", "hooks"), true]]);
    expect(verdicts.verdictOf("key")).toBe("verdict");
    rmSync(path.join(top, "plugins"));
    mkdirSync(path.join(top, "plugins", "etc", "hooks"), { recursive: true });
    expect(verdicts.verdictOf("key")).toBeUndefined();
  });

  it.skipIf(!existsSync("/proc/self/cwd"))("never remember a verdict judged through a link whose lstat does not show where it leads (/proc/self/cwd)", () => {
    // procfs's links keep size 0, their inode and their times while they come to lead elsewhere (a chdir).
    const verdicts = remembered([["/proc/self/cwd", false]]);
    expect(verdicts.verdictOf("key")).toBeUndefined();
  });

  // The run's directory must leave room for a 64-byte path beside the test's temporary directory.
  const runDirectory = path.dirname(tempDirectory("torii-verdicts-"));
  it.skipIf(!existsSync(`/proc/${process.pid}/fd`) || runDirectory.length > 64 - "/torii-verdicts-fd-d".length)(
    "never remember a verdict judged through a procfs link whose size happens to be its target's length (/proc/<pid>/fd/<n>: always 64)",
    () => {
      // A directory whose path is 64 bytes long: the fd link's lstat size (64) equals its target text's length, yet
      // a dup2 onto the descriptor makes it lead elsewhere with the same inode, size and times.
      // Beside the test's temporary directory (in the run's own directory, whose path is short enough), removed after.
      const dir = path.join(runDirectory, `torii-verdicts-fd-${"d".repeat(64 - runDirectory.length - "/torii-verdicts-fd-".length)}`);
      mkdirSync(dir);
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      expect(Buffer.byteLength(dir)).toBe(64);
      const fd = openSync(dir, "r");
      onTestFinished(() => closeSync(fd));
      const link = `/proc/${process.pid}/fd/${fd}`;
      expect(lstatSync(link).size).toBe(64);
      const verdicts = remembered([[link, true]]);
      expect(verdicts.verdictOf("key")).toBeUndefined();
    },
  );

  it("never remember a verdict judged by a relative path, or by a time within the racy margin", () => {
    const top = tempDirectory("torii-verdicts-");
    writeFileSync(path.join(top, "file"), "x\n");
    const relative = new Observations();
    relative.record("file", true);
    const verdicts = new UnchangedVerdicts<string>();
    verdicts.remember("key", relative, "verdict", LATER_NS);
    expect(verdicts.verdictOf("key")).toBeUndefined();

    const fresh = new Observations();
    fresh.record(path.join(top, "file"), true);
    verdicts.remember("key", fresh, "verdict");
    expect(verdicts.verdictOf("key")).toBeUndefined();
    verdicts.remember("key", fresh, "verdict", LATER_NS);
    expect(verdicts.verdictOf("key")).toBe("verdict");
  });
});

/**
 * The file a command resolves to is remembered from one call to the next
 * (pipeline/remembered-executable.ts, as planChild asks) only while every path
 * the resolution touched is as it was. Each test first shows the unchanged call
 * answered from memory (the same result object), then makes one change and
 * expects the next call to see it.
 *
 * The clock runs a minute ahead so that the files written here count as settled
 * (nothing just written is remembered).
 */
import { chmodSync, mkdirSync, renameSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { searchTrust } from "../../../src/config/search-trust.js";
import { resolveRemembered } from "../../../src/pipeline/remembered-executable.js";
import { ExecutableNotFoundError, ExecutableRefusedError, type ResolvedExecutable } from "../../../src/runtime/resolve-executable.js";
import { writeExecutable } from "../../support/fake-clis.js";
import { chmodSharedGroup } from "../../support/shared-group.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

/** Two PATH directories, a project, and one call's resolution with a fresh search trust each time. */
function layout() {
  const top = tempDirectory("torii-resolve-memo-");
  const first = path.join(top, "first-bin");
  const second = path.join(top, "second-bin");
  const project = path.join(top, "project");
  for (const directory of [first, second, project, path.join(top, "torii")]) mkdirSync(directory, { recursive: true });
  writeExecutable(path.join(second, "tool"), "\u007fELF tool\n");
  const resolve = (command: string, pathEnv = `${first}:${second}`): ResolvedExecutable =>
    resolveRemembered(command, { pathEnv, platform: "linux", cwd: project, selfDir: path.join(top, "torii"), trust: searchTrust("linux") });
  return { top, first, second, resolve };
}

posixOnly("an executable resolution remembered from one call to the next", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sees a program of the same name added to an earlier PATH directory", () => {
    const { first, second, resolve } = layout();
    const before = resolve("tool");
    expect(before.path).toBe(path.join(second, "tool"));
    expect(resolve("tool")).toBe(before);

    writeExecutable(path.join(first, "tool"), "\u007fELF tool\n");
    expect(resolve("tool").path).toBe(path.join(first, "tool"));
  });

  it("sees the program removed", () => {
    const { second, resolve } = layout();
    const before = resolve("tool");
    expect(resolve("tool")).toBe(before);

    renameSync(path.join(second, "tool"), path.join(second, "tool.old"));
    expect(() => resolve("tool")).toThrow(ExecutableNotFoundError);
  });

  it("sees the program made writable by others: it is refused", () => {
    const { second, resolve } = layout();
    const program = path.join(second, "tool");
    const before = resolve(program);
    expect(resolve(program)).toBe(before);

    chmodSync(program, 0o777);
    expect(() => resolve(program)).toThrow(ExecutableRefusedError);
  });

  it("sees the program's execute bits removed: it is no longer launched", () => {
    const { second, resolve } = layout();
    const program = path.join(second, "tool");
    const before = resolve(program);
    expect(resolve(program)).toBe(before);

    chmodSync(program, 0o644);
    // Root may execute a file with any execute bit only: with none left, `access(X_OK)` refuses it for everyone.
    expect(() => resolve(program)).toThrow(ExecutableRefusedError);
  });

  it("sees a link on PATH repointed into the working directory: the program there is refused", () => {
    const { top, second, resolve } = layout();
    const linked = path.join(top, "linked-bin");
    symlinkSync(second, linked);
    const before = resolve("tool", linked);
    expect(before.path).toBe(path.join(linked, "tool"));
    expect(resolve("tool", linked)).toBe(before);

    writeExecutable(path.join(top, "project", "bin", "tool"), "\u007fELF planted\n");
    const next = path.join(top, "linked-bin.next");
    symlinkSync(path.join(top, "project", "bin"), next);
    renameSync(next, linked);
    expect(() => resolve("tool", linked)).toThrow(ExecutableNotFoundError);
  });

  it("answers equal inputs only: another PATH is searched", () => {
    const { first, second, resolve } = layout();
    writeExecutable(path.join(first, "tool"), "\u007fELF tool\n");
    const before = resolve("tool", second);
    expect(before.path).toBe(path.join(second, "tool"));
    expect(resolve("tool", second)).toBe(before);
    expect(resolve("tool", `${first}:${second}`).path).toBe(path.join(first, "tool"));
  });
});

/**
 * Each input of a remembered resolution that is not the filesystem is part of its key, and the operator's trusted
 * directories are relied on by where they lead: one input changed, the same paths on disk, and the next call
 * resolves afresh (each test fails when that input is left out).
 */
posixOnly("an executable resolution keyed on every input that is not the filesystem", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** One call's resolution of `tool` through the second directory, with the places and trust inputs given. */
  function resolveWith(
    top: string,
    second: string,
    inputs: { cwd?: string; selfDir?: string; tmpdir?: string; trustedDirectories?: readonly string[] } = {},
  ): ResolvedExecutable {
    const trustedDirectories = inputs.trustedDirectories ?? [];
    const trust = searchTrust("linux", { trustedDirectories, env: inputs.tmpdir === undefined ? {} : { TMPDIR: inputs.tmpdir } });
    const options = {
      pathEnv: second,
      platform: "linux" as const,
      cwd: inputs.cwd ?? path.join(top, "project"),
      selfDir: inputs.selfDir ?? path.join(top, "torii"),
      trust,
    };
    return resolveRemembered("tool", options);
  }

  it.each([
    ["the working directory", "cwd"],
    ["Torii's own directory", "selfDir"],
    ["a shared temporary directory (TMPDIR)", "tmpdir"],
  ] as const)("%s: a PATH directory below the next call's is not searched", (_label, input) => {
    const { top, second } = layout();
    const before = resolveWith(top, second);
    expect(resolveWith(top, second)).toBe(before);

    expect(() => resolveWith(top, second, { [input]: top })).toThrow(ExecutableNotFoundError);
  });

  it("the operator's trusted directories: a group-writable PATH directory they no longer hold is not searched", () => {
    const { top, second } = layout();
    chmodSharedGroup(second, 0o775);
    const before = resolveWith(top, second, { trustedDirectories: [second] });
    expect(resolveWith(top, second, { trustedDirectories: [second] })).toBe(before);

    expect(() => resolveWith(top, second)).toThrow(ExecutableNotFoundError);
  });

  it("a trusted directory named through a link that is repointed: the group-writable PATH directory is no longer accepted", () => {
    const { top, second } = layout();
    chmodSharedGroup(second, 0o775);
    const trusted = path.join(top, "trusted");
    symlinkSync(second, trusted);
    const before = resolveWith(top, second, { trustedDirectories: [trusted] });
    expect(resolveWith(top, second, { trustedDirectories: [trusted] })).toBe(before);

    const next = path.join(top, "trusted.next");
    symlinkSync(path.join(top, "first-bin"), next);
    renameSync(next, trusted);
    expect(() => resolveWith(top, second, { trustedDirectories: [trusted] })).toThrow(ExecutableNotFoundError);
  });
});

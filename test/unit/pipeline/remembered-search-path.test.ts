/**
 * The PATH a planned child receives is remembered from one call to the next
 * (pipeline/remembered-search-path.ts, as childEnvOf asks) only while every path
 * the reduction touched is as it was. Each test first shows the unchanged call
 * answered from memory (not one entry inspected again), then makes one change
 * and expects the next call to see it.
 *
 * The clock runs a minute ahead so that the files written here count as settled
 * (nothing just written is remembered).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, renameSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { searchTrust } from "../../../src/config/search-trust.js";
import { rememberedChildPath } from "../../../src/pipeline/remembered-search-path.js";
import { FALLBACK_POSIX_PATH, type SearchTrust } from "../../../src/runtime/search-path.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

/** The inputs of one call's reduction besides PATH (a fresh search trust each call, as planChild makes). */
interface Inputs {
  readonly cwd?: string;
  readonly selfDir?: string;
  readonly tmpdir?: string;
}

/** Two PATH directories (the first not yet there), a project, Torii's directory; a reduction that counts its inspections. */
function layout() {
  const top = tempDirectory("torii-path-memo-");
  const first = path.join(top, "first-bin");
  const second = path.join(top, "second-bin");
  const project = path.join(top, "project");
  for (const directory of [second, project, path.join(top, "torii")]) mkdirSync(directory, { recursive: true });
  let inspections = 0;
  const counted = (trust: SearchTrust): SearchTrust => ({
    ...trust,
    realPath: (target) => trust.realPath(target),
    inspect: (target, kind) => {
      inspections += 1;
      return trust.inspect(target, kind);
    },
  });
  /** The reduced PATH and how many entries this call inspected. */
  const reduce = (pathEnv: string, inputs: Inputs = {}): { value: string; inspected: number } => {
    inspections = 0;
    const trust = counted(searchTrust("linux", { env: inputs.tmpdir === undefined ? {} : { TMPDIR: inputs.tmpdir } }));
    const value = rememberedChildPath(pathEnv, {
      platform: "linux",
      cwd: inputs.cwd ?? project,
      selfDir: inputs.selfDir ?? path.join(top, "torii"),
      trust,
    });
    return { value, inspected: inspections };
  };
  return { top, first, second, project, reduce };
}

posixOnly("a child's PATH remembered from one call to the next", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers an unchanged PATH without inspecting an entry again", () => {
    const { first, second, reduce } = layout();
    const before = reduce(`${first}:${second}`);
    expect(before).toEqual({ value: second, inspected: 2 });
    expect(reduce(`${first}:${second}`)).toEqual({ value: second, inspected: 0 });
  });

  it("sees a missing PATH directory created", () => {
    const { first, second, reduce } = layout();
    reduce(`${first}:${second}`);
    expect(reduce(`${first}:${second}`)).toEqual({ value: second, inspected: 0 });

    mkdirSync(first);
    expect(reduce(`${first}:${second}`).value).toBe(`${first}:${second}`);
  });

  it("sees a PATH directory made writable by others: it is dropped", () => {
    const { second, reduce } = layout();
    reduce(second);
    expect(reduce(second)).toEqual({ value: second, inspected: 0 });

    chmodSync(second, 0o777);
    expect(reduce(second).value).toBe(FALLBACK_POSIX_PATH);
  });

  it("sees a PATH link repointed into the working directory: it is dropped", () => {
    const { top, second, project, reduce } = layout();
    const linked = path.join(top, "linked-bin");
    symlinkSync(second, linked);
    reduce(linked);
    expect(reduce(linked)).toEqual({ value: linked, inspected: 0 });

    mkdirSync(path.join(project, "bin"));
    const next = path.join(top, "linked-bin.next");
    symlinkSync(path.join(project, "bin"), next);
    renameSync(next, linked);
    expect(reduce(linked).value).toBe(FALLBACK_POSIX_PATH);
  });

  it.skipIf(!existsSync("/proc/self/cwd"))(
    "sees a PATH entry through /proc (a process's working directory) moved into the project: it is dropped",
    async () => {
      const { second, project, reduce } = layout();
      const moves = `process.stdin.setEncoding("utf8").on("data", (line) => { process.chdir(line.trim()); process.stdout.write("moved\\n"); }); process.stdout.write("ready\\n");`;
      const mover = spawn(process.execPath, ["-e", moves], { cwd: second, stdio: ["pipe", "pipe", "inherit"] });
      const exited = once(mover, "exit");
      try {
        await once(mover.stdout, "data");
        const entry = `/proc/${String(mover.pid)}/cwd`;
        expect(reduce(entry).value).toBe(entry);
        // procfs's link keeps its lstat while it comes to lead elsewhere: judged afresh at every call.
        expect(reduce(entry)).toEqual({ value: entry, inspected: 1 });

        mkdirSync(path.join(project, "bin"));
        mover.stdin.write(`${path.join(project, "bin")}\n`);
        await once(mover.stdout, "data");
        expect(reduce(entry).value).toBe(FALLBACK_POSIX_PATH);
      } finally {
        mover.kill();
        await exited;
      }
    },
  );

  it("answers equal PATH values only: another PATH is reduced afresh", () => {
    const { first, second, reduce } = layout();
    mkdirSync(first);
    reduce(second);
    expect(reduce(second)).toEqual({ value: second, inspected: 0 });
    expect(reduce(`${first}:${second}`)).toEqual({ value: `${first}:${second}`, inspected: 2 });
  });

  it.each([
    ["the working directory", "cwd"],
    ["Torii's own directory", "selfDir"],
    ["a shared temporary directory (TMPDIR)", "tmpdir"],
  ] as const)("keyed on %s: a PATH directory below the next call's is dropped", (_label, input) => {
    const { top, second, reduce } = layout();
    reduce(second);
    expect(reduce(second)).toEqual({ value: second, inspected: 0 });

    expect(reduce(second, { [input]: top }).value).toBe(FALLBACK_POSIX_PATH);
  });
});

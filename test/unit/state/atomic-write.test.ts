/**
 * The atomic writer under injected faults (SQLite style): the step that fails
 * moves from the first call to the last, and after each run the target holds
 * exactly the old bytes or exactly the new ones.
 */
import { constants, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeAtomicFs, writeFileAtomic, type AtomicFs } from "../../../src/state/atomic-write.js";
import { FaultyFs, InjectedFault, snapshot, tempDir, tempFiles } from "./helpers.js";

const OLD = Buffer.from("old content\n");
const NEW = Buffer.from("new content, longer than the old one\n");
/** The calls of a successful POSIX write, in order. */
const POSIX_STEPS = ["open", "file.write", "file.sync", "file.close", "rename", "openDirectory", "dir.sync", "dir.close"];

function setup(): { dir: string; file: string } {
  const dir = tempDir();
  const file = path.join(dir, "state.yaml");
  writeFileSync(file, OLD, { mode: 0o600 });
  return { dir, file };
}

describe("writeFileAtomic", () => {
  it("makes exactly these calls on POSIX, and the new file is 0600", async () => {
    const { file } = setup();
    const fs = new FaultyFs(undefined);
    await writeFileAtomic(file, NEW, { fs, platform: "linux" });
    expect(fs.steps).toEqual(POSIX_STEPS);
    expect(snapshot(file)).toEqual(NEW);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("creates the temp file exclusively, 0600, never through a symlink, in the target's directory", async () => {
    const { dir, file } = setup();
    const opened: { file: string; flags: number; mode: number }[] = [];
    const spy: AtomicFs = {
      ...nodeAtomicFs,
      open: (target, flags, mode) => {
        opened.push({ file: target, flags, mode });
        return nodeAtomicFs.open(target, flags, mode);
      },
    };
    await writeFileAtomic(file, NEW, { fs: spy, platform: "linux" });
    const required = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;
    expect(opened).toHaveLength(1);
    expect(opened[0]!.flags & required).toBe(required);
    expect(opened[0]!.mode).toBe(0o600);
    expect(path.dirname(opened[0]!.file)).toBe(dir);
  });

  it.each(POSIX_STEPS.map((step, index) => [index + 1, step] as const))(
    "a failure at step %i (%s) leaves the old or the new bytes, never a mix, and no temp file",
    async (failAt, step) => {
      const { dir, file } = setup();
      const fs = new FaultyFs(failAt);
      await expect(writeFileAtomic(file, NEW, { fs, platform: "linux" })).rejects.toBeInstanceOf(InjectedFault);
      const committed = POSIX_STEPS.indexOf(step) > POSIX_STEPS.indexOf("rename");
      expect(snapshot(file)).toEqual(committed ? NEW : OLD);
      expect(tempFiles(dir)).toEqual([]);
    },
  );

  it.each(POSIX_STEPS.map((step, index) => [index + 1, step] as const))(
    "a crash at step %i (%s) leaves the old or the new bytes; a leftover temp file is never the target",
    async (failAt, step) => {
      const { dir, file } = setup();
      const fs = new FaultyFs(failAt, "crash");
      await expect(writeFileAtomic(file, NEW, { fs, platform: "linux" })).rejects.toBeInstanceOf(InjectedFault);
      const committed = POSIX_STEPS.indexOf(step) > POSIX_STEPS.indexOf("rename");
      expect(snapshot(file)).toEqual(committed ? NEW : OLD);
      const leftovers = tempFiles(dir);
      // Created but never renamed: the temp stays (a dead process cannot clean up), named so it is never taken for state.
      expect(leftovers.length).toBe(failAt > 1 && failAt <= 5 ? 1 : 0);
      for (const name of leftovers) expect(name).toMatch(new RegExp(`^\\.state\\.yaml\\.tmp-${process.pid}-[0-9a-f]{12}$`));
    },
  );

  it("fails the write on an fsync error without retrying it", async () => {
    const { dir, file } = setup();
    const fs = new FaultyFs(3, "error", "EIO");
    await expect(writeFileAtomic(file, NEW, { fs, platform: "linux" })).rejects.toMatchObject({ code: "EIO" });
    expect(fs.steps.filter((step) => step === "file.sync")).toHaveLength(1);
    expect(snapshot(file)).toEqual(OLD);
    expect(tempFiles(dir)).toEqual([]);
  });

  it("keeps the original on ENOSPC mid-write and on EXDEV at the rename (no retry on POSIX)", async () => {
    for (const [failAt, code] of [
      [2, "ENOSPC"],
      [5, "EXDEV"],
      [5, "EPERM"],
    ] as const) {
      const { dir, file } = setup();
      const fs = new FaultyFs(failAt, "error", code);
      await expect(writeFileAtomic(file, NEW, { fs, platform: "linux" })).rejects.toMatchObject({ code });
      expect(fs.steps.filter((step) => step === "rename").length).toBeLessThanOrEqual(1);
      expect(snapshot(file)).toEqual(OLD);
      expect(tempFiles(dir)).toEqual([]);
    }
  });

  it("surfaces the original error when the cleanup fails too", async () => {
    const { file } = setup();
    const failing: AtomicFs = {
      ...nodeAtomicFs,
      rename: () => Promise.reject(Object.assign(new Error("rename failed"), { code: "EIO" })),
      unlink: () => Promise.reject(Object.assign(new Error("unlink failed"), { code: "EACCES" })),
    };
    await expect(writeFileAtomic(file, NEW, { fs: failing, platform: "linux" })).rejects.toThrow("rename failed");
  });

  it("handles short writes by writing the rest", async () => {
    const { file } = setup();
    const trickle: AtomicFs = {
      ...nodeAtomicFs,
      async open(target, flags, mode) {
        const inner = await nodeAtomicFs.open(target, flags, mode);
        return { ...inner, write: (data, offset) => inner.write(data.subarray(0, Math.min(data.length, offset + 3)), offset) };
      },
    };
    await writeFileAtomic(file, NEW, { fs: trickle, platform: "linux" });
    expect(snapshot(file)).toEqual(NEW);
  });

  it("aborts before the rename when beforeCommit throws", async () => {
    const { dir, file } = setup();
    await expect(
      writeFileAtomic(file, NEW, {
        beforeCommit: () => {
          throw new Error("lock lost");
        },
      }),
    ).rejects.toThrow("lock lost");
    expect(snapshot(file)).toEqual(OLD);
    expect(tempFiles(dir)).toEqual([]);
  });

  describe("on Windows", () => {
    it("retries a rename refused with EPERM/EBUSY a bounded number of times, then succeeds", async () => {
      const { file } = setup();
      let refusals = 0;
      const fs: AtomicFs = {
        ...nodeAtomicFs,
        async rename(from, to) {
          if (refusals < 3) {
            refusals += 1;
            throw Object.assign(new Error("busy"), { code: refusals === 2 ? "EBUSY" : "EPERM" });
          }
          await nodeAtomicFs.rename(from, to);
        },
        openDirectory: () => Promise.reject(new Error("a directory is never opened on Windows")),
      };
      await writeFileAtomic(file, NEW, { fs, platform: "win32" });
      expect(refusals).toBe(3);
      expect(snapshot(file)).toEqual(NEW);
    });

    it("gives up after about 0.6 s of refusals, keeps the original and removes the temp file", async () => {
      const { dir, file } = setup();
      const steps: string[] = [];
      const fs: AtomicFs = {
        ...nodeAtomicFs,
        rename: () => {
          steps.push("rename");
          return Promise.reject(Object.assign(new Error("denied"), { code: "EPERM" }));
        },
      };
      const pause = (ms: number): Promise<void> => {
        steps.push(`pause ${ms}`);
        return Promise.resolve();
      };
      await expect(writeFileAtomic(file, NEW, { fs, platform: "win32", pause })).rejects.toMatchObject({ code: "EPERM" });
      // Ten attempts with a pause before each retry: 555 ms of pauses in all, counted rather than timed.
      const pauses = [5, 10, 20, 40, 80, 100, 100, 100, 100];
      expect(steps).toEqual(["rename", ...pauses.flatMap((ms) => [`pause ${ms}`, "rename"])]);
      expect(snapshot(file)).toEqual(OLD);
      expect(tempFiles(dir)).toEqual([]);
    });

    it("does not retry other errors", async () => {
      const { file } = setup();
      let attempts = 0;
      const fs: AtomicFs = {
        ...nodeAtomicFs,
        rename: () => {
          attempts += 1;
          return Promise.reject(Object.assign(new Error("cross-device"), { code: "EXDEV" }));
        },
      };
      await expect(writeFileAtomic(file, NEW, { fs, platform: "win32" })).rejects.toMatchObject({ code: "EXDEV" });
      expect(attempts).toBe(1);
    });
  });
});

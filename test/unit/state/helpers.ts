/**
 * Helpers for the state tests: a settable clock, a file system that fails at
 * a chosen step, and small file utilities. Everything runs on real temporary
 * directories.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { nodeAtomicFs, type AtomicFs, type WritableFile } from "../../../src/state/atomic-write.js";
import type { LockTiming } from "../../../src/state/lock.js";

export { tempDir } from "../config/temp-tree.js";

/** A short lock timing for tests (proper-lockfile's minimum stale is 2 s); every process in a test uses it. */
export const TEST_LOCK_TIMING: LockTiming = Object.freeze({ stale: 2_000, update: 1_000, waitMs: 3_000 });

export const T0 = Date.parse("2026-03-01T10:00:00.000Z");

/** A clock the test moves by hand. */
export class FakeClock {
  constructor(public ms: number = T0) {}
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A 64-hex binding for tests. */
export function hex64(seed: string | number): string {
  return String(seed)
    .padStart(64, "0")
    .replace(/[^0-9a-f]/g, "a")
    .slice(-64);
}

/** The bytes of a file, or undefined when it does not exist. */
export function snapshot(file: string): Buffer | undefined {
  return existsSync(file) ? readFileSync(file) : undefined;
}

/** Names in `dir` that look like temp files of the atomic writer. */
export function tempFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.includes(".tmp-"));
}

/** A deferred promise, for holding a step open from the test. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

export class InjectedFault extends Error {
  readonly code: string;
  constructor(step: string, code: string) {
    super(`injected ${code} at ${step}`);
    this.code = code;
  }
}

/** The real file system, except that each file's fsync first awaits `beforeSync()`. */
export function fsWithSlowSync(beforeSync: () => Promise<unknown>): AtomicFs {
  return {
    ...nodeAtomicFs,
    async open(file, flags, mode) {
      const inner = await nodeAtomicFs.open(file, flags, mode);
      return {
        ...inner,
        sync: async () => {
          await beforeSync();
          await inner.sync();
        },
      };
    },
  };
}

/**
 * The real file system with every call counted; call number `failAt` (1-based)
 * fails with `code`. In "crash" mode every later call fails too, as if the
 * process had died there (no cleanup runs).
 */
export class FaultyFs implements AtomicFs {
  readonly steps: string[] = [];
  private crashed = false;

  constructor(
    private readonly failAt: number | undefined,
    private readonly mode: "error" | "crash" = "error",
    private readonly code = "EIO",
  ) {}

  private step(name: string): void {
    if (this.crashed) throw new InjectedFault(`${name} (after the crash)`, "ECRASHED");
    this.steps.push(name);
    if (this.steps.length === this.failAt) {
      if (this.mode === "crash") this.crashed = true;
      throw new InjectedFault(name, this.code);
    }
  }

  private wrap(kind: string, file: WritableFile): WritableFile {
    return {
      write: async (data, offset) => {
        this.step(`${kind}.write`);
        return file.write(data, offset);
      },
      sync: async () => {
        this.step(`${kind}.sync`);
        await file.sync();
      },
      close: async () => {
        try {
          this.step(`${kind}.close`);
        } catch (error) {
          // A failed close still releases the descriptor (and a dead process's are closed by the OS).
          await file.close().catch(() => undefined);
          throw error;
        }
        await file.close();
      },
    };
  }

  async open(file: string, flags: number, mode: number): Promise<WritableFile> {
    this.step("open");
    return this.wrap("file", await nodeAtomicFs.open(file, flags, mode));
  }

  async rename(from: string, to: string): Promise<void> {
    this.step("rename");
    await nodeAtomicFs.rename(from, to);
  }

  async openDirectory(dir: string): Promise<WritableFile> {
    this.step("openDirectory");
    return this.wrap("dir", await nodeAtomicFs.openDirectory(dir));
  }

  async unlink(file: string): Promise<void> {
    this.step("unlink");
    await nodeAtomicFs.unlink(file);
  }
}

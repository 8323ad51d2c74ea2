/**
 * One YAML state file: a lock-free, fail-closed read and a locked,
 * atomic update. The lease and grant stores are built on it; they supply the
 * schema (a `StateCodec`) and the meaning.
 *
 * Reading never takes the lock: a write replaces the whole file with one
 * rename, so a reader sees the old file or the new one. Reading classifies
 * every way a file can be bad (see StateErrorKind) and never changes the file.
 * Only `preserveInvalid` plus a write (the stores' `clear`) replaces a bad
 * file, after copying it aside for the operator.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readSync, unlinkSync } from "node:fs";
import path from "node:path";
import { isAlias, LineCounter, parseDocument, stringify, visit, type Document, type Node } from "yaml";
import { yamlProblemText } from "../config/yaml-problem-text.js";
import type * as z from "zod";
import { exclusiveCreateFlags, nodeAtomicFs, tempFilePrefix, writeFileAtomic, type AtomicFs } from "./atomic-write.js";
import { LockCompromisedError, StateError, StateWrittenError } from "./errors.js";
import { withCheckedFileLock } from "./checked-lock.js";
import { STATE_LOCK_TIMING, withFileLock, withFileLockIfFree, type LockTiming } from "./lock.js";
import {
  checkLockPath,
  checkStateDirectory,
  checkStateFileStats,
  currentPathPolicy,
  ensureStateDirectory,
  lstatIfExists,
  type PathPolicy,
} from "./safe-path.js";

/** A state file larger than this is refused as invalid rather than parsed. */
export const MAX_STATE_FILE_BYTES = 1024 * 1024;

/** Options every store accepts, for tests and for platforms. */
export interface StateFileOptions {
  /** The file-system calls of the atomic writer (tests inject faults here). */
  readonly fs?: AtomicFs;
  /** `process.platform` by default: decides the POSIX owner/mode checks, O_NOFOLLOW, the directory fsync and the Windows rename retry. */
  readonly platform?: NodeJS.Platform;
  /** The lock's timing; every process using a file must pass the same one. STATE_LOCK_TIMING by default. */
  readonly lockTiming?: LockTiming;
  /**
   * Whether taking the lock may create the file's missing directory (true by default). False for a
   * write that must not bring back a directory the operator deleted (the server's grant for a target
   * `torii target remove` removed while the answer waited): a missing directory is then a StateError.
   */
  readonly createDirectory?: boolean;
}

/** How a store's file looks on disk. */
export interface StateCodec<S> {
  /** The `version` this build reads and writes. */
  readonly version: string;
  /** The whole-file schema (including `version`), strict at every level. */
  readonly schema: z.ZodType<S>;
  /** Finds what the schema cannot express: a duplicate entry. Returns its description, or undefined. */
  readonly findDuplicate: (state: S) => string | undefined;
  /** Recognises an older format this build no longer reads (Torii's tab-separated grants). */
  readonly isLegacy?: (text: string) => boolean;
  /** The first line(s) of every written file. */
  readonly header: string;
}

/**
 * What is on disk: nothing, a valid state, or a problem. `recoverable` problems
 * are in the content (torn, invalid, legacy…): `clear` may copy the file aside
 * and replace it. The others (unsafe path, I/O) are never touched. `bytes` are
 * the content when it was read.
 */
export type StateRead<S> =
  | { readonly kind: "missing" }
  | { readonly kind: "ok"; readonly state: S }
  | { readonly kind: "error"; readonly error: StateError; readonly recoverable: boolean; readonly bytes?: Buffer };

export class StateFile<S> {
  readonly lockPath: string;
  private readonly fs: AtomicFs | undefined;
  private readonly platform: NodeJS.Platform;
  private readonly policy: PathPolicy;
  private readonly timing: LockTiming;
  private readonly createDirectory: boolean;
  /** The last bytes read and what they decoded to (states are never mutated, so sharing them is safe). */
  private lastDecoded: { readonly bytes: Buffer; readonly read: StateRead<S> } | undefined;

  constructor(
    readonly file: string,
    private readonly codec: StateCodec<S>,
    options: StateFileOptions = {},
  ) {
    this.lockPath = `${file}.lock`;
    this.fs = options.fs;
    this.platform = options.platform ?? process.platform;
    this.policy = currentPathPolicy(this.platform);
    this.timing = options.lockTiming ?? STATE_LOCK_TIMING;
    this.createDirectory = options.createDirectory ?? true;
  }

  /** The file's directory, created when missing unless `createDirectory` is false (then a StateError). */
  private ensureDirectory(): void {
    if (this.createDirectory) {
      ensureStateDirectory(this.file, this.policy);
      return;
    }
    if (!checkStateDirectory(this.file, this.policy)) {
      throw new StateError(this.file, "io", `its directory ${path.dirname(this.file)} does not exist (removed meanwhile?), and this write does not create it`);
    }
  }

  /** Reads and validates the file without the lock. Never throws, never writes. */
  read(): StateRead<S> {
    let bytes: Buffer;
    try {
      if (!checkStateDirectory(this.file, this.policy)) return { kind: "missing" };
      checkLockPath(this.file, this.lockPath);
      const opened = this.openChecked();
      if (opened === undefined) return { kind: "missing" };
      const { fd, size } = opened;
      try {
        if (size > MAX_STATE_FILE_BYTES) {
          const error = new StateError(this.file, "invalid", `the file is larger than ${MAX_STATE_FILE_BYTES} bytes`);
          return { kind: "error", error, recoverable: true };
        }
        bytes = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      return { kind: "error", error: asStateError(this.file, error, "cannot read"), recoverable: false };
    }
    // Decoding is a function of the bytes alone: the same bytes as last time decode the same way.
    if (this.lastDecoded?.bytes.equals(bytes) === true) return this.lastDecoded.read;
    const decoded = decodeState(this.file, bytes, this.codec);
    const read: StateRead<S> = decoded instanceof StateError ? { kind: "error", error: decoded, recoverable: true, bytes } : { kind: "ok", state: decoded };
    this.lastDecoded = { bytes, read };
    return read;
  }

  /** `read()` for callers that treat a missing file as `missing` and only care whether the state is usable. */
  readOr(missing: S): { readonly ok: true; readonly state: S } | { readonly ok: false; readonly error: StateError } {
    const read = this.read();
    switch (read.kind) {
      case "missing":
        return { ok: true, state: missing };
      case "ok":
        return { ok: true, state: read.state };
      case "error":
        return { ok: false, error: read.error };
    }
  }

  /**
   * Runs `body` holding the file's lock, after checking the directory (created
   * 0700 when missing) and the lock path, and removing temp files a crashed
   * writer left behind. `body` reads with `read()` and writes with `write()`.
   */
  async locked<T>(body: (write: (state: S) => Promise<void>) => Promise<T>): Promise<T> {
    this.ensureDirectory();
    checkLockPath(this.file, this.lockPath);
    const progress = { entered: false, written: false };
    try {
      return await withFileLock(this.file, this.timing, async (held) => {
        progress.entered = true;
        checkLockPath(this.file, this.lockPath);
        this.removeLeftoverTemps();
        return body((state) =>
          this.write(
            state,
            () => {
              held.assertHeld();
            },
            () => {
              progress.written = true;
            },
          ),
        );
      });
    } catch (error) {
      // A lock found lost only at release, after a write was renamed into place: that write is in force.
      if (progress.written && error instanceof LockCompromisedError) {
        throw new StateWrittenError(this.file, `the lock was found lost afterwards (${error.reason})`, { cause: error });
      }
      // The body's errors keep their type; a file-system error taking the lock becomes a StateError.
      throw !progress.entered && isErrno(error) ? asStateError(this.file, error, "cannot lock") : error;
    }
  }

  /**
   * Runs the synchronous `body` holding the file's lock if it is free now
   * (`withFileLockIfFree`); `{held: false}` without running it when another
   * holder has the lock. For short read-only checks: `body` cannot write.
   */
  lockedIfFree<T>(body: () => T): { held: true; value: T } | { held: false } {
    this.ensureDirectory();
    checkLockPath(this.file, this.lockPath);
    try {
      return withFileLockIfFree(this.file, body);
    } catch (error) {
      throw isErrno(error) ? asStateError(this.file, error, "cannot lock") : error;
    }
  }

  /**
   * Runs the read-only `body`, which waits on something outside Torii (a process start), holding the
   * file's lock with its ownership checked (`withCheckedFileLock`): LockCompromisedError when `body`
   * resolved but the lock may have been lost meanwhile.
   */
  async lockedWhile<T>(body: () => Promise<T>): Promise<T> {
    this.ensureDirectory();
    checkLockPath(this.file, this.lockPath);
    // Only the lock's own failures are lock errors; what `body` throws (a launch error with its own code) passes as it is.
    const progress = { entered: false };
    try {
      return await withCheckedFileLock(this.file, this.timing, () => {
        progress.entered = true;
        return body();
      });
    } catch (error) {
      throw !progress.entered && isErrno(error) ? asStateError(this.file, error, "cannot lock") : error;
    }
  }

  /**
   * Copies the file as it is on disk aside, to `<file>.invalid-<UTC time>`
   * (0600, never overwriting an earlier copy), for the operator to inspect.
   * Call under the lock, after `read()` reported a recoverable problem.
   */
  async preserveInvalid(now: Date): Promise<string> {
    const stamp = now.toISOString().replace(/[-:]/g, "");
    const fd = this.openChecked()?.fd;
    if (fd === undefined) throw new StateError(this.file, "io", "the invalid file vanished while the lock was held");
    try {
      for (let attempt = 0; ; attempt += 1) {
        const copy = `${this.file}.invalid-${stamp}${attempt === 0 ? "" : `-${attempt}`}`;
        try {
          await copyExclusive(fd, copy, this.fs ?? nodeAtomicFs, this.platform);
          return copy;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 99) {
            throw asStateError(this.file, error, "cannot preserve the invalid file");
          }
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  private async write(state: S, assertHeld: () => void, committed: () => void): Promise<void> {
    const text = `${this.codec.header}${stringifyState(state)}`;
    const bytes = Buffer.from(text, "utf8");
    // Never write what this build would refuse to read.
    const check = decodeState(this.file, bytes, this.codec);
    if (check instanceof StateError) throw new Error(`refusing to write an invalid state: ${check.detail}`);
    const step = { renamed: false };
    try {
      await writeFileAtomic(this.file, bytes, {
        ...this.writeOptions(),
        beforeCommit: assertHeld,
        afterCommit: () => {
          step.renamed = true;
          committed();
        },
      });
    } catch (error) {
      // After the rename the new state is in force: say so, rather than "cannot write".
      if (step.renamed) {
        throw new StateWrittenError(this.file, `the step after it failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      throw isErrno(error) ? asStateError(this.file, error, "cannot write") : error;
    }
  }

  private writeOptions(): { fs?: AtomicFs; platform: NodeJS.Platform } {
    return this.fs === undefined ? { platform: this.platform } : { fs: this.fs, platform: this.platform };
  }

  /** Opens the state file without following a symlink and checks what was opened (its size with it); undefined when missing. */
  private openChecked(): { readonly fd: number; readonly size: number } | undefined {
    // O_NOFOLLOW refuses a symlink on POSIX (ELOOP, below); Windows has no such flag, so an lstat is the check there.
    if (this.platform === "win32" && lstatIfExists(this.file, this.file)?.isSymbolicLink() === true) {
      throw new StateError(this.file, "unsafe-path", "the state file is a symbolic link");
    }
    // O_NONBLOCK: a named pipe at the path opens at once (and is refused as no regular file below) instead of
    // waiting for a writer, which would freeze every synchronous read of the server; a regular file ignores it.
    const flags = constants.O_RDONLY | (this.platform === "win32" ? 0 : constants.O_NOFOLLOW | constants.O_NONBLOCK);
    let fd: number;
    try {
      fd = openSync(this.file, flags);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return undefined;
      if (code === "ELOOP" || code === "EMLINK") throw new StateError(this.file, "unsafe-path", "the state file is a symbolic link");
      throw error;
    }
    try {
      const stats = fstatSync(fd);
      checkStateFileStats(this.file, stats, this.policy);
      return { fd, size: stats.size };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Temp files exist only while a lock holder writes; under the lock, any left are a crashed writer's. */
  private removeLeftoverTemps(): void {
    const dir = path.dirname(this.file);
    const prefix = tempFilePrefix(this.file);
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(prefix)) continue;
      try {
        unlinkSync(path.join(dir, name));
      } catch {
        // Best effort: a leftover temp file is never read as state.
      }
    }
  }
}

/** Streams the open file `source` into a new file `copy` (exclusive create, 0600, fsynced). */
async function copyExclusive(source: number, copy: string, fs: AtomicFs, platform: NodeJS.Platform): Promise<void> {
  const target = await fs.open(copy, exclusiveCreateFlags(platform), 0o600);
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let position = 0; ;) {
      const length = readSync(source, chunk, 0, chunk.length, position);
      if (length === 0) break;
      for (let offset = 0; offset < length;) {
        const written = await target.write(chunk.subarray(0, length), offset);
        if (written <= 0) throw new Error("short write while copying");
        offset += written;
      }
      position += length;
    }
    await target.sync();
  } catch (error) {
    await target.close().catch(() => undefined);
    await fs.unlink(copy).catch(() => undefined);
    throw error;
  }
  await target.close();
}

/** YAML for a state object: block style, no line folding, no anchors. */
function stringifyState(state: unknown): string {
  return stringify(state, { aliasDuplicateObjects: false, lineWidth: 0 });
}

/**
 * Turns file bytes into a valid state or the StateError that says what is wrong.
 * A file that fails any check and lacks its final newline is reported as torn:
 * every file this build writes ends with one, so the likeliest cause is a cut.
 */
export function decodeState<S>(file: string, bytes: Buffer, codec: StateCodec<S>): S | StateError {
  const fail = (kind: StateError["kind"], detail: string): StateError => new StateError(file, kind, detail);
  if (bytes.length === 0) return fail("torn", "the file is empty");
  if (bytes.includes(0)) return fail("torn", "the file contains NUL bytes (damaged or cut short by a crash)");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return fail("torn", "the file is not valid UTF-8");
  }
  if (text.trim() === "") return fail("torn", "the file is blank");
  if (codec.isLegacy?.(text) === true) {
    return fail("legacy", "a legacy tab-separated file: it authorises nothing; `clear` replaces it and keeps a copy");
  }
  const result = decodeText(text, codec, fail);
  if (result instanceof StateError && !text.endsWith("\n") && result.kind !== "duplicate") {
    return fail("torn", `the file ends without a newline and does not validate, so it was probably cut short (${result.detail})`);
  }
  return result;
}

/**
 * Every problem found in the YAML or by the schema names the line and column
 * it is at (`line 4, column 11: …`), so the operator can find it in a file
 * Torii wrote and something else damaged; the YAML library's own words are
 * passed on only where they quote nothing of the file (yaml-problem-text.ts).
 */
function decodeText<S>(text: string, codec: StateCodec<S>, fail: (kind: StateError["kind"], detail: string) => StateError): S | StateError {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, strict: true, prettyErrors: false });
  const at = (offset: number | undefined): string => {
    if (offset === undefined) return "";
    const { line, col } = lineCounter.linePos(offset);
    return `line ${line}, column ${col}: `;
  };
  const duplicateKey = document.errors.find((error) => error.code === "DUPLICATE_KEY");
  if (duplicateKey !== undefined) return fail("duplicate", `${at(duplicateKey.pos[0])}a key appears twice`);
  const syntax = document.errors[0];
  if (syntax !== undefined) return fail("torn", `${at(syntax.pos[0])}unparseable YAML (damaged or cut short): ${yamlProblemText(syntax)}`);
  const alias = firstAlias(document);
  if (alias !== undefined) return fail("invalid", `${at(alias.range?.[0])}an alias (*name): state files hold none`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 0 });
  } catch {
    // The library's words may quote the file (which can hold a secret someone pasted): none of them.
    return fail("invalid", "unreadable YAML data");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return fail("invalid", `${at(document.contents?.range[0])}the file is not a YAML mapping`);
  if (!Object.hasOwn(value, "version")) return fail("missing-version", "the file has no version");
  const version = (value as { version: unknown }).version;
  if (version !== codec.version) {
    return fail("unknown-version", `${at(nodeAt(document, ["version"])?.range?.[0])}unsupported version (this build reads "${codec.version}")`);
  }
  const parsed = codec.schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `;
    // An unknown field is located at itself, not at the map it is in.
    const located = issue === undefined ? [] : issue.code === "unrecognized_keys" ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
    // zod's words for an unknown field quote its name, which is the file's text: say what it is, the position says where.
    const problem = issue === undefined ? "does not match the schema" : issue.code === "unrecognized_keys" ? "an unknown field" : issue.message;
    return fail("invalid", `${at(nodeAt(document, located)?.range?.[0])}${where}${problem}`);
  }
  const duplicate = codec.findDuplicate(parsed.data);
  if (duplicate !== undefined) return fail("duplicate", duplicate);
  return parsed.data;
}

/** The first alias of the document, if any. */
function firstAlias(document: Document): Node | undefined {
  let found: Node | undefined;
  visit(document, {
    Alias(_key, node) {
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}

/** The node at `path`, or its nearest ancestor that exists (a missing field: the map it is missing from). */
function nodeAt(document: Document, path: readonly PropertyKey[]): Node | undefined {
  for (let length = path.length; length >= 0; length -= 1) {
    const node: unknown = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
    if (node !== undefined && node !== null && typeof node === "object" && "range" in node && !isAlias(node)) return node as Node;
  }
  return undefined;
}

function isErrno(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}

function asStateError(file: string, error: unknown, action: string): StateError {
  if (error instanceof StateError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StateError(file, "io", `${action}: ${message}`, { cause: error });
}

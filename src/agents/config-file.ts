/**
 * Reading and replacing a client's configuration file: the previous bytes,
 * exactly as read, are kept as a backup before the new content is renamed
 * into place (state/atomic-write.ts), the file's mode and group are kept, and a symbolic
 * link (a dotfiles repository, say) is written through rather than replaced,
 * a dangling one included (config-target.ts).
 * A file that is not valid UTF-8 is refused (decoding would turn its bytes
 * into U+FFFD and the rewrite would lose them). A backup is never
 * overwritten: the first is `<file>.torii-backup`, later ones carry the time.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { chmod, chown, mkdir, open, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../config/errors.js";
import { exclusiveCreateFlags, writeFileAtomic } from "../state/atomic-write.js";
import { resolveConfigTarget } from "./config-target.js";

/** A configuration file as read: its resolved path, its text and bytes (undefined when it does not exist). */
export interface ConfigText {
  /** The file written to: `file` itself, or the target of the link it is. */
  readonly target: string;
  readonly text: string | undefined;
  /** The bytes `text` was decoded from: what the backup keeps. */
  readonly bytes?: Uint8Array | undefined;
}

/** UTF-8 that throws on an invalid byte and keeps a BOM in the text (so a rewrite keeps it too). */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Whether `prefix` can start a valid UTF-8 text (a character cut at its end is fine). */
function validPrefix(prefix: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(prefix, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** Whether `prefix` is valid UTF-8 that ends at a character's end. */
function completeText(prefix: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(prefix);
    return true;
  } catch {
    return false;
  }
}

/** The offset of the first byte that does not decode, found by halving (the decoder does not say where). */
function firstInvalidOffset(bytes: Uint8Array): number {
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 4) {
    const middle = Math.floor((good + bad) / 2);
    if (validPrefix(bytes.subarray(0, middle))) good = middle;
    else bad = middle;
  }
  for (let end = good + 1; end <= bad; end += 1) {
    if (validPrefix(bytes.subarray(0, end))) continue;
    // The byte that broke may continue a character begun earlier: report where that character starts.
    let start = end - 1;
    while (start > 0 && end - start < 4 && !completeText(bytes.subarray(0, start))) start -= 1;
    return start;
  }
  // Every prefix is valid: the text ends inside a character.
  return good;
}

/** `bytes` as text. @throws ConfigError naming the file, line, column and byte offset of the first invalid byte. */
function decodeStrict(file: string, bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    const offset = firstInvalidOffset(bytes);
    const before = bytes.subarray(0, offset);
    const line = before.filter((byte) => byte === 0x0a).length + 1;
    const column = offset - (before.lastIndexOf(0x0a) + 1) + 1;
    throw new ConfigError(file, `not valid UTF-8 (byte offset ${offset}); Torii does not rewrite a file it cannot read exactly`, { line, column });
  }
}

/**
 * Reads `file` (following a link, config-target.ts); a missing file, or a
 * dangling link's missing target, has undefined text.
 *
 * @throws ConfigError when it is not valid UTF-8, or its link cannot be written through.
 */
export async function readConfigText(file: string, options: ReadOptions = {}): Promise<ConfigText> {
  const target = await resolveConfigTarget(file);
  const bytes = await readRegularFile(target, options);
  if (bytes === undefined) return { target, text: undefined };
  return { target, text: decodeStrict(target, bytes), bytes };
}

/** How a file that is only read (never written) may differ from one Torii writes. */
export interface ReadOptions {
  /** Accept root as the owner too: a machine-wide file (/etc/…), read for status and never written. */
  readonly rootOwned?: boolean;
}

const MIB = 1024 * 1024;

/**
 * The most a client's file may hold. Status reads files in every folder above the working directory, which whoever
 * writes one may fill: a file of hundreds of MiB took minutes and gigabytes to read and parse. Far above any real
 * configuration (Claude Code's `~/.claude.json`, which keeps per-project history, included).
 */
const MAX_CONFIG_BYTES = 128 * MIB;

/**
 * Opens without blocking and without following a link (the target is already
 * resolved; a link swapped in since is refused), then reads only a regular file
 * with one name that this user owns: a FIFO would block the command forever and
 * a device (`/dev/zero`) never ends; a directory has no text; a second hard
 * link would keep the old bytes once the rename replaces this name, silently;
 * another user's file would become this user's; a huge one would hold the command (MAX_CONFIG_BYTES). Undefined when
 * there is none.
 *
 * @throws ConfigError naming the file for any of these.
 */
async function readRegularFile(target: string, options: ReadOptions): Promise<Uint8Array | undefined> {
  const windows = process.platform === "win32";
  const flags = constants.O_RDONLY | (windows ? 0 : constants.O_NONBLOCK | constants.O_NOFOLLOW);
  let handle;
  try {
    handle = await open(target, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new ConfigError(target, "became a symbolic link while Torii was reading it; nothing was written, run the command again");
    throw new ConfigError(target, `cannot be read: ${(error as Error).message}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new ConfigError(target, `is ${kindOf(stats)}, not a regular file; Torii reads and rewrites only regular files`);
    if (!windows && stats.nlink > 1) {
      throw new ConfigError(
        target,
        `has ${stats.nlink} hard links; Torii replaces the file by renaming a new one into place, which would leave the other names with the old content: edit it by hand, or make it a single file (a symbolic link is written through)`,
      );
    }
    if (stats.size > MAX_CONFIG_BYTES) {
      throw new ConfigError(target, `has ${stats.size} bytes, larger than Torii reads (${MAX_CONFIG_BYTES / MIB} MiB); no client's configuration is this big`);
    }
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid && !(options.rootOwned === true && stats.uid === 0)) {
      throw new ConfigError(target, `belongs to user id ${stats.uid}, not to you (${uid}); Torii does not rewrite another user's file`);
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

function kindOf(stats: import("node:fs").Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

/** The first backup `replaceConfigText` keeps of a file's previous content. */
export function backupPathOf(target: string): string {
  return `${target}.torii-backup`;
}

/**
 * Writes `bytes` to a backup file that did not exist: `<target>.torii-backup`,
 * or once that exists, `<target>.torii-backup-<time>` (with a counter when
 * that too exists). Returns its path.
 */
async function writeNewBackup(target: string, bytes: Uint8Array): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/gu, "").replace(/\.\d+/u, "");
  const candidates = [backupPathOf(target), ...Array.from({ length: 100 }, (_, n) => `${backupPathOf(target)}-${stamp}${n === 0 ? "" : `-${n}`}`)];
  for (const candidate of candidates) {
    let handle;
    try {
      handle = await open(candidate, exclusiveCreateFlags(process.platform), 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw error;
    }
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return candidate;
  }
  throw new Error(`too many backups of ${target}; remove old ${path.basename(backupPathOf(target))}* files`);
}

/**
 * Atomically replaces `current.target` with `text`, after writing the old
 * bytes (when there was a file) to a new backup; returns the backup's path.
 * Refuses when the file changed since it was read (the client may be writing it).
 * A new file's folder is created (0700 for the folders Torii creates).
 */
export async function replaceConfigText(current: ConfigText, text: string): Promise<string | undefined> {
  await mkdir(path.dirname(current.target), { recursive: true, mode: 0o700 });
  const now = await readConfigText(current.target);
  // Strict UTF-8 with the BOM kept decodes one way only, so equal text means equal bytes.
  if (now.text !== current.text) throw changedWhileEditing(current.target);
  let backup: string | undefined;
  let kept: { mode: number; gid: number } | undefined;
  if (current.text !== undefined) {
    const stats = await stat(current.target);
    kept = { mode: stats.mode & 0o777, gid: stats.gid };
    backup = await writeNewBackup(current.target, current.bytes ?? Buffer.from(current.text, "utf8"));
  }
  // Checked again just before the rename: the client may have written the file while the backup and the
  // new content were being written and synced, and the rename would throw that write away.
  await writeFileAtomic(current.target, Buffer.from(text, "utf8"), {
    beforeCommit: () => {
      if (!sameBytes(bytesNowSync(current.target), current)) throw changedWhileEditing(current.target);
    },
  });
  if (kept !== undefined) await keepModeAndGroup(current.target, kept);
  return backup;
}

/**
 * Gives the new file the previous one's group and mode. The rename put a file
 * of this process's group in place: with a group-readable mode (0640) kept,
 * the process's group (`users`, say) would read what only the file's group
 * could. The group goes first, so the mode is never applied to the wrong
 * group; when it cannot be set (not a member), the group's bits are dropped.
 */
async function keepModeAndGroup(target: string, kept: { mode: number; gid: number }): Promise<void> {
  const now = await stat(target);
  let mode = kept.mode;
  if (process.platform !== "win32" && now.gid !== kept.gid) {
    try {
      await chown(target, now.uid, kept.gid);
    } catch {
      mode &= ~0o070;
    }
  }
  if ((now.mode & 0o777) !== mode) await chmod(target, mode);
}

function changedWhileEditing(target: string): Error {
  return new Error(`${target} changed while Torii was editing it; nothing was written, run the command again`);
}

/** Whether `now` (undefined: no file) holds exactly the bytes `current` was read from. */
function sameBytes(now: Uint8Array | undefined, current: ConfigText): boolean {
  if (current.text === undefined || now === undefined) return current.text === undefined && now === undefined;
  return Buffer.from(now).equals(current.bytes ?? Buffer.from(current.text, "utf8"));
}

/** The file's bytes now (undefined when it is gone), read without blocking; anything but a regular file counts as changed. */
function bytesNowSync(target: string): Uint8Array | undefined {
  const windows = process.platform === "win32";
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | (windows ? 0 : constants.O_NONBLOCK | constants.O_NOFOLLOW));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw changedWhileEditing(target);
  }
  try {
    if (!fstatSync(fd).isFile()) throw changedWhileEditing(target);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

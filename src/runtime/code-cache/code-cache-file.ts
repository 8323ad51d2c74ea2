/**
 * The files of V8 code caches of Torii's bundles (code-cache.ts): bytecode that
 * V8 runs instead of compiling the bundle it was made from, so it is code and
 * is trusted exactly as far as that bundle is.
 *
 * A cache file is read only when it and its directory belong to the bundle's
 * owner (the user who installed Torii) and neither is writable by group or
 * others; it is opened without following a link and checked on the opened
 * descriptor. Its header names the key it was written for (the node binary and
 * the bundle's SHA-256) and the SHA-256 of its payload: V8 itself checks only
 * its version, its flags and the source's length, and runs the cached code of
 * another source of the same length. A file is written only by the bundle's
 * owner, to a temporary name then renamed, so a reader sees a whole file or none.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import path from "node:path";

const MAGIC = Buffer.from("torii-v8-code-cache 1\n", "latin1");
const DIGEST_BYTES = 32;
const HEADER_BYTES = MAGIC.length + 2 * DIGEST_BYTES;
/** Write permission for group or others. */
const SHARED_WRITE = 0o022;

function sha256(data: Buffer | string): Buffer {
  return createHash("sha256").update(data).digest();
}

/** Whether `stats` is owned by `owner` and writable by no one else. */
function ownedBy(stats: Stats, owner: number): boolean {
  return stats.uid === owner && (stats.mode & SHARED_WRITE) === 0;
}

/** Where the cache of `key` lives in `directory`: the bundle's name, the key, `.v8cache`. */
export function cacheFilePath(directory: string, bundleName: string, key: Buffer): string {
  return path.join(directory, `${bundleName}-${key.toString("hex")}.v8cache`);
}

/**
 * The payload of the cache file for `key`, or undefined when there is none or
 * it is not to be trusted (another owner, shared write access, a link, another
 * key, a payload that does not match its digest).
 */
export function readCacheFile(directory: string, bundleName: string, key: Buffer, owner: number): Buffer | undefined {
  try {
    const folder = lstatSync(directory);
    if (!folder.isDirectory() || !ownedBy(folder, owner)) return undefined;
    const fd = openSync(cacheFilePath(directory, bundleName, key), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile() || !ownedBy(stats, owner)) return undefined;
      const data = readFileSync(fd);
      if (data.length <= HEADER_BYTES || !data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
      const payload = data.subarray(HEADER_BYTES);
      const named = data.subarray(MAGIC.length, MAGIC.length + DIGEST_BYTES);
      const digest = data.subarray(MAGIC.length + DIGEST_BYTES, HEADER_BYTES);
      return named.equals(key) && digest.equals(sha256(payload)) ? payload : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * Stores what `payload` returns as the cache of `key`, when this process runs
 * as `owner` (the bundle's owner) and the directory is trusted (`payload` is not
 * called otherwise: making it costs), and removes the bundle's other caches (an
 * older node or bundle). Failing is harmless (the next run compiles again), so nothing is thrown.
 */
export function writeCacheFile(directory: string, bundleName: string, key: Buffer, owner: number, payload: () => Buffer): void {
  if (process.getuid?.() !== owner) return;
  const file = cacheFilePath(directory, bundleName, key);
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    mkdirSync(directory, { mode: 0o755, recursive: true });
    const stats = lstatSync(directory);
    if (!stats.isDirectory() || !ownedBy(stats, owner)) return;
    const data = payload();
    writeFileSync(temporary, Buffer.concat([MAGIC, key, sha256(data), data]), { flag: "wx", mode: 0o644 });
    renameSync(temporary, file);
    for (const name of readdirSync(directory)) {
      if (name.startsWith(`${bundleName}-`) && name.endsWith(".v8cache") && path.join(directory, name) !== file)
        rmSync(path.join(directory, name), { force: true });
    }
  } catch {
    // Only a slower next run: it compiles the bundle and tries again.
    rmSync(temporary, { force: true });
  }
}

/** The key of a bundle's cache: this node binary and the bundle's text (as a string, or its UTF-8 bytes: the same key). */
export function cacheKey(source: Buffer | string): Buffer {
  const node = [process.execPath, process.version, process.versions.v8, process.arch, process.platform].join("\0");
  return sha256(`${node}\0${sha256(source).toString("hex")}`);
}

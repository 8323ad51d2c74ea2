/**
 * Runs a CommonJS bundle of the operator CLI through V8's code cache, so a
 * short command does not compile the same code on every run: compiling the
 * `target activate` bundle (and, cold, each function it calls) was about a fifth
 * of the command's time. Node 20 has no compile cache of its own
 * (`module.enableCompileCache` came with Node 22).
 *
 * The cache is made after the command ran, so it holds the functions the
 * command called, compiled; it is stored beside the bundle, in a directory only
 * the bundle's owner writes, and read under code-cache-file.ts's rules. Any
 * doubt (no cache, a foreign or damaged one, V8 rejecting it, an operating
 * system without user ids) means compiling from source, as without a cache.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { Script } from "node:vm";
import { cacheKey, readCacheFile, writeCacheFile } from "./code-cache-file.js";

/** A bundle loaded by loadCachedBundle. */
export interface CachedBundle {
  /** What the bundle assigned to `module.exports`. */
  readonly exports: Record<string, unknown>;
  /** Whether V8 ran the stored cache (false: it compiled the bundle's source). */
  readonly cacheUsed: boolean;
  /**
   * Stores what V8 compiled so far as the bundle's cache: call it once the
   * command succeeded. Does nothing when the cache was used, when this process
   * does not run as the bundle's owner, or when writing fails.
   */
  saveCache(): void;
}

/**
 * The bundle's `require`: Node's built-in modules only, since the bundle is
 * self-contained. Not `module.createRequire`: loading `node:module` loads Node's
 * ES module loader with it, which a CommonJS command otherwise never needs.
 */
function requireBuiltin(specifier: string): unknown {
  const builtin = process.getBuiltinModule(specifier);
  if (builtin === undefined) throw new Error(`torii: a self-contained bundle required ${specifier}, which is not one of Node's built-in modules`);
  return builtin;
}

/** The CommonJS module scope the bundle's text is wrapped in (as Node's own loader does). */
const WRAPPER = ["(function (exports, require, module, __filename, __dirname) {", "\n})"] as const;

/**
 * Loads the CommonJS bundle `file` (self-contained: it may require only Node's
 * built-in modules) with the code cache kept in `cacheDirectory`.
 */
export function loadCachedBundle(file: string, cacheDirectory: string): CachedBundle {
  // Hashed as read: hashing the decoded string would encode it back to UTF-8 first.
  const bytes = readFileSync(file);
  const source = bytes.toString("utf8");
  // No user ids (Windows): no owner to trust, so no cache.
  const owner = process.getuid === undefined ? undefined : statSync(file).uid;
  const name = path.basename(file);
  const key = owner === undefined ? undefined : cacheKey(bytes);
  const cachedData = owner === undefined || key === undefined ? undefined : readCacheFile(cacheDirectory, name, key, owner);
  const script = new Script(`${WRAPPER[0]}${source}${WRAPPER[1]}`, { filename: file, ...(cachedData === undefined ? {} : { cachedData }) });
  const cacheUsed = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as Record<string, unknown> };
  const scope = script.runInThisContext() as (...args: unknown[]) => void;
  scope.call(module.exports, module.exports, requireBuiltin, module, file, path.dirname(file));
  return {
    exports: module.exports,
    cacheUsed,
    saveCache() {
      if (cacheUsed || owner === undefined || key === undefined) return;
      writeCacheFile(cacheDirectory, name, key, owner, () => script.createCachedData());
    },
  };
}

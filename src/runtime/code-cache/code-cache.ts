/**
 * Runs a self-contained CommonJS bundle through V8's code cache, so a process
 * does not compile the same code on every start: the MCP server's bundle
 * (`dist/server/serve.cjs`) and the operator's `target activate`
 * (`dist/activate/direct-activate.cjs`) both start through it. Compiling a
 * bundle (and, cold, each function its start runs) was a fifth or more of their
 * start. Node 20 has no compile cache of its own (`module.enableCompileCache`
 * came with Node 22).
 *
 * The cache is made after the bundle did its work (the command ran, the server
 * answered tools/list), so it holds the functions that work called, compiled;
 * it is stored beside the bundle, in a directory only the bundle's owner
 * writes, and read under code-cache-file.ts's rules. Any doubt (no cache, a
 * foreign or damaged one, V8 rejecting it, an operating system without user
 * ids) means compiling from source, as without a cache.
 *
 * `NODE_DEBUG=torii-code-cache` reports on stderr whether a bundle ran from its
 * cache and why not (Node's debuglog: nothing is written otherwise).
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { debuglog } from "node:util";
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
   * bundle did its work (a command succeeded, the server listed its tools).
   * Does nothing when the cache was used, when this process does not run as
   * the bundle's owner, or when writing fails.
   */
  saveCache(): void;
}

const report = debuglog("torii-code-cache");

/**
 * The bundle's `require`: Node's built-in modules, and the files the build put
 * beside the bundle (`./x.cjs`: the server's lazily required AWS SDK side), the
 * bundle being otherwise self-contained. Built-ins are served without
 * `module.createRequire`: loading `node:module` loads Node's ES module loader
 * with it, which a CommonJS command otherwise never needs; a file beside the
 * bundle is rare and late enough (the first AWS account check) to pay for it.
 */
function bundleRequire(file: string): (specifier: string) => unknown {
  let nodeRequire: NodeJS.Require | undefined;
  return (specifier) => {
    if (/^\.\/[\w.-]+\.cjs$/u.test(specifier)) {
      nodeRequire ??= process.getBuiltinModule("node:module").createRequire(file);
      return nodeRequire(specifier) as unknown;
    }
    const builtin = process.getBuiltinModule(specifier);
    if (builtin === undefined)
      throw new Error(`torii: a self-contained bundle required ${specifier}, which is neither one of Node's built-in modules nor a file beside it`);
    return builtin;
  };
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
  report("%s: %s", name, cacheUsed ? "ran from its code cache" : cachedData === undefined ? "compiled: no trusted cache" : "compiled: V8 rejected the cache");
  const module = { exports: {} as Record<string, unknown> };
  const scope = script.runInThisContext() as (...args: unknown[]) => void;
  scope.call(module.exports, module.exports, bundleRequire(file), module, file, path.dirname(file));
  return {
    exports: module.exports,
    cacheUsed,
    saveCache() {
      if (cacheUsed || owner === undefined || key === undefined) return;
      writeCacheFile(cacheDirectory, name, key, owner, () => script.createCachedData());
    },
  };
}

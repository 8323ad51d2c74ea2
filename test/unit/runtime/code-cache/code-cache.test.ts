/**
 * The V8 code cache of the operator CLI's CommonJS bundles
 * (src/runtime/code-cache/code-cache.ts, code-cache-file.ts): the second run uses
 * what the first stored, and a cache that is not the bundle owner's own, not
 * for this bundle, or damaged is never run. "Never run" is shown with foreign
 * code: a cache made from bundle A (exports "AAA") stored as the cache of bundle
 * B, whose text has the same length (exports "BBB"); V8 alone would run A's code.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Script } from "node:vm";
import { afterEach, describe, expect, test } from "vitest";
import { loadCachedBundle } from "../../../../src/runtime/code-cache/code-cache.js";
import { cacheFilePath, cacheKey, writeCacheFile } from "../../../../src/runtime/code-cache/code-cache-file.js";

const A = 'module.exports = { value: "AAA" };\n';
const B = 'module.exports = { value: "BBB" };\n';
const uid = process.getuid?.() ?? -1;
const scratch: string[] = [];

afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder with `bundle.cjs` holding `text`, and where its cache goes. */
function bundleOf(text: string): { file: string; cache: string; key: Buffer } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "torii-code-cache-"));
  scratch.push(dir);
  const file = path.join(dir, "bundle.cjs");
  writeFileSync(file, text);
  return { file, cache: path.join(dir, "v8-cache"), key: cacheKey(text) };
}

/** V8's cache of `text` wrapped as code-cache.ts wraps it, after running it. */
function v8CacheOf(text: string): Buffer {
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${text}\n})`);
  (script.runInThisContext() as (...args: unknown[]) => void)({}, undefined, { exports: {} });
  return script.createCachedData();
}

/** B's cache file, holding the code compiled from A under B's own key: what only the bundle's owner can write. */
function forgedCacheOfB(): { file: string; cache: string; cacheFile: string } {
  const b = bundleOf(B);
  writeCacheFile(b.cache, "bundle.cjs", b.key, uid, () => v8CacheOf(A));
  return { ...b, cacheFile: cacheFilePath(b.cache, "bundle.cjs", b.key) };
}

describe.skipIf(process.getuid === undefined)("loadCachedBundle", () => {
  test("V8 alone runs the cached code of another source of the same length (why the cache is keyed and guarded)", () => {
    expect(A.length).toBe(B.length);
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${B}\n})`, { cachedData: v8CacheOf(A) });
    const module = { exports: {} as { value?: string } };
    (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, undefined, module);
    expect(script.cachedDataRejected).toBe(false);
    expect(module.exports.value).toBe("AAA");
  });

  test("the first run compiles and stores the cache (owner-only writable); the next run uses it with the same exports", () => {
    const { file, cache, key } = bundleOf(B);
    const first = loadCachedBundle(file, cache);
    expect(first.cacheUsed).toBe(false);
    expect(first.exports.value).toBe("BBB");
    first.saveCache();
    const stored = statSync(cacheFilePath(cache, "bundle.cjs", key));
    expect(stored.uid).toBe(uid);
    expect(stored.mode & 0o022).toBe(0);
    expect(statSync(cache).mode & 0o022).toBe(0);
    const second = loadCachedBundle(file, cache);
    expect(second.cacheUsed).toBe(true);
    expect(second.exports.value).toBe("BBB");
  });

  test("a cache file its owner wrote runs as stored (the control for the tests below)", () => {
    const { file, cache } = forgedCacheOfB();
    const loaded = loadCachedBundle(file, cache);
    expect(loaded.cacheUsed).toBe(true);
    expect(loaded.exports.value).toBe("AAA");
  });

  test("a cache file or cache directory writable by group or others is never run", () => {
    const { file, cache, cacheFile } = forgedCacheOfB();
    chmodSync(cacheFile, 0o664);
    expect(loadCachedBundle(file, cache).exports.value).toBe("BBB");
    chmodSync(cacheFile, 0o644);
    chmodSync(cache, 0o777);
    expect(loadCachedBundle(file, cache).exports.value).toBe("BBB");
  });

  test("a cache file reached through a symbolic link is never run", () => {
    const { file, cache, cacheFile } = forgedCacheOfB();
    const elsewhere = path.join(path.dirname(file), "elsewhere.v8cache");
    writeFileSync(elsewhere, readFileSync(cacheFile));
    rmSync(cacheFile);
    symlinkSync(elsewhere, cacheFile);
    expect(loadCachedBundle(file, cache).exports.value).toBe("BBB");
  });

  test.skipIf(uid !== 0)("a cache owned by another user than the bundle's is never run, and a non-owner never writes one", () => {
    const { file, cache, cacheFile } = forgedCacheOfB();
    chownSync(cacheFile, 4242, 4242);
    expect(loadCachedBundle(file, cache).exports.value).toBe("BBB");
    rmSync(cacheFile);
    chownSync(file, 4242, 4242);
    const loaded = loadCachedBundle(file, cache);
    loaded.saveCache();
    expect(readdirSync(cache)).toEqual([]);
  });

  test("another bundle's cache copied under this bundle's name is never run: its header names another key", () => {
    const a = bundleOf(A);
    const fromA = loadCachedBundle(a.file, a.cache);
    fromA.saveCache();
    const b = bundleOf(B);
    mkdirSync(b.cache, { mode: 0o755 });
    writeFileSync(cacheFilePath(b.cache, "bundle.cjs", b.key), readFileSync(cacheFilePath(a.cache, "bundle.cjs", a.key)));
    const loaded = loadCachedBundle(b.file, b.cache);
    expect(loaded.cacheUsed).toBe(false);
    expect(loaded.exports.value).toBe("BBB");
  });

  test("a damaged cache is ignored and replaced by the next save; older caches of the bundle are removed", () => {
    const { file, cache, key } = bundleOf(B);
    loadCachedBundle(file, cache).saveCache();
    const cacheFile = cacheFilePath(cache, "bundle.cjs", key);
    const damaged = readFileSync(cacheFile);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 1) ^ 0xff, damaged.length - 1);
    writeFileSync(cacheFile, damaged);
    const older = path.join(cache, `bundle.cjs-${"0".repeat(64)}.v8cache`);
    writeFileSync(older, "old", { mode: 0o644 });
    const loaded = loadCachedBundle(file, cache);
    expect(loaded.cacheUsed).toBe(false);
    expect(loaded.exports.value).toBe("BBB");
    loaded.saveCache();
    expect(readdirSync(cache)).toEqual([path.basename(cacheFile)]);
    expect(loadCachedBundle(file, cache).cacheUsed).toBe(true);
  });

  test("the bundle's require serves Node's built-ins and a .cjs file beside the bundle, and refuses a package or a path out of its folder", () => {
    const { file } = bundleOf(
      [
        'const path = require("node:path");',
        'const beside = require("./beside.cjs");',
        "const refused = (specifier) => { try { require(specifier); return undefined; } catch (error) { return error.message; } };",
        'module.exports = { sep: path.sep, beside: beside.value, yaml: refused("yaml"), up: refused("../beside.cjs") };',
      ].join("\n"),
    );
    writeFileSync(path.join(path.dirname(file), "beside.cjs"), 'module.exports = { value: "beside" };\n');
    const { exports } = loadCachedBundle(file, path.join(path.dirname(file), "v8-cache"));
    expect(exports.sep).toBe(path.sep);
    expect(exports.beside).toBe("beside");
    expect(exports.yaml).toMatch(/required yaml, which is neither one of Node's built-in modules nor a file beside it/u);
    expect(exports.up).toMatch(/required \.\.\/beside\.cjs/u);
  });
});

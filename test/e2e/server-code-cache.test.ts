/**
 * The built server starts through V8's code cache (src/cli.ts runs
 * dist/server/serve.cjs through src/runtime/code-cache/code-cache.ts), and
 * starts just as well without one: each test starts a copy of the built
 * package through the real MCP client and lists its tools. A first start
 * compiles and stores the cache once tools/list is answered; the next start
 * runs from it. A missing, damaged, torn, V8-refused or untrusted
 * (group-writable) cache is never run: the server compiles from source and
 * answers the same tools/list. `NODE_DEBUG=torii-code-cache` makes the loader
 * say which it did (Node's debuglog, on stderr). A test that only needs a
 * good cache to begin with is given the one a real first start stored (the
 * first test's), as bytes, rather than compiling and storing one again.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { cacheFilePath, cacheKey, writeCacheFile } from "../../src/runtime/code-cache/code-cache-file.js";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { startSession } from "../support/mcp-session.js";
import { tempDirectory } from "../support/temp-dirs.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const RAN_FROM_CACHE = "serve.cjs: ran from its code cache";
const NO_TRUSTED_CACHE = "serve.cjs: compiled: no trusted cache";
const V8_REJECTED = "serve.cjs: compiled: V8 rejected the cache";

let configRoot: string;

beforeAll(() => {
  configRoot = makeConfigTree({ ...bundledProviderFiles("kubectl"), "providers/kubectl/rules.yaml": 'version: "1"\n' });
});

/** A copy of the built package (what the server loads of it), with no code cache yet. */
function installedCopy(): { cli: string; bundle: string; cacheDirectory: string } {
  const root = tempDirectory("torii-install-");
  for (const part of ["package.json", "providers", "dist/cli.js", "dist/cli.cjs", "dist/server"])
    cpSync(path.join(REPO, part), path.join(root, part), { recursive: true });
  return {
    cli: path.join(root, "dist", "cli.js"),
    bundle: path.join(root, "dist", "server", "serve.cjs"),
    cacheDirectory: path.join(root, "dist", "v8-cache"),
  };
}

/** The cache file of `bundle` (the name carries the key: this node and the bundle's bytes). */
function cacheFileOf(bundle: string, cacheDirectory: string): string {
  return cacheFilePath(cacheDirectory, "serve.cjs", cacheKey(readFileSync(bundle)));
}

/** Starts the server of `cli`, lists its tools and returns their names and the loader's report (stderr). */
async function listTools(cli: string): Promise<{ tools: string[]; stderr: string }> {
  const session = await startSession(configRoot, { NODE_DEBUG: "torii-code-cache" }, { entry: cli });
  try {
    const tools = (await session.client.listTools()).tools.map((tool) => tool.name);
    // Written before "serving …" (the loader runs before the server starts).
    await vi.waitFor(() => expect(session.stderr()).toContain("torii: serving 1 provider(s)"), { timeout: 30_000 });
    return { tools, stderr: session.stderr() };
  } finally {
    await session.close();
  }
}

/** Starts and lists once, and waits for the cache the server stores after answering tools/list. */
async function listAndStoreCache(cli: string, cacheFile: string): Promise<{ tools: string[]; stderr: string }> {
  const listed = await listTools(cli);
  await vi.waitFor(() => expect(existsSync(cacheFile), `${cacheFile} was stored`).toBe(true), { timeout: 30_000 });
  return listed;
}

/** The bytes of the cache a real first start stored: the first test's, or a start of its own when that test did not run. */
let storedCache: Promise<Buffer> | undefined;

function goodCache(): Promise<Buffer> {
  storedCache ??= (async () => {
    const { cli, bundle, cacheDirectory } = installedCopy();
    const cacheFile = cacheFileOf(bundle, cacheDirectory);
    await listAndStoreCache(cli, cacheFile);
    return readFileSync(cacheFile);
  })();
  return storedCache;
}

/**
 * A copy of the built package with a good cache in place, as a first start leaves it (the server's own modes; the
 * key in the name and header is this node and the bundle's bytes, the same in every copy): one compiling start fewer.
 */
async function installedCopyWithCache(): Promise<{ cli: string; cacheDirectory: string; cacheFile: string }> {
  const { cli, bundle, cacheDirectory } = installedCopy();
  const cacheFile = cacheFileOf(bundle, cacheDirectory);
  const bytes = await goodCache();
  mkdirSync(cacheDirectory, { mode: 0o755 });
  writeFileSync(cacheFile, bytes, { mode: 0o644 });
  return { cli, cacheDirectory, cacheFile };
}

describe.skipIf(process.getuid === undefined)("the server's code cache", () => {
  test("a first start compiles and stores the cache (owner-only writable); the next start runs from it and lists the same tools", async () => {
    const { cli, bundle, cacheDirectory } = installedCopy();
    const cacheFile = cacheFileOf(bundle, cacheDirectory);
    const first = await listAndStoreCache(cli, cacheFile);
    storedCache ??= Promise.resolve(readFileSync(cacheFile));
    expect(first.stderr).toContain(NO_TRUSTED_CACHE);
    expect(first.tools).toEqual(["kubectl", "torii_policy"]);
    expect(statSync(cacheFile).mode & 0o022).toBe(0);
    expect(statSync(cacheDirectory).mode & 0o022).toBe(0);
    const second = await listTools(cli);
    expect(second.stderr).toContain(RAN_FROM_CACHE);
    expect(second.tools).toEqual(first.tools);
  });

  test("a client that calls a tool before listing any: the cache is stored before the call's work (under start-up's V8 flags, so the next start runs from it)", async () => {
    const { cli, bundle, cacheDirectory } = installedCopy();
    const cacheFile = cacheFileOf(bundle, cacheDirectory);
    // A provider that needs no target; its empty rules deny the call, which still loads the call side.
    const root = makeConfigTree({
      "providers/run/provider.yaml": 'version: "1"\nname: run\ntool: run\ncommand: "true"\n',
      "providers/run/rules.yaml": 'version: "1"\n',
    });
    const session = await startSession(root, { NODE_DEBUG: "torii-code-cache" }, { entry: cli });
    try {
      await session.call("run", { args: ["go"] });
      expect(existsSync(cacheFile)).toBe(true);
    } finally {
      await session.close();
    }
    expect((await listTools(cli)).stderr).toContain(RAN_FROM_CACHE);
  });

  test.each([
    ["a damaged (one payload byte changed)", (data: Buffer): Buffer => Buffer.concat([data.subarray(0, -1), Buffer.from([data.at(-1)! ^ 0xff])])],
    ["a torn (cut in half)", (data: Buffer): Buffer => data.subarray(0, data.length >> 1)],
    ["an empty", (): Buffer => Buffer.alloc(0)],
  ])("%s cache is not run: the server compiles, lists its tools and stores a good cache again", async (_name, damage) => {
    const { cli, cacheFile } = await installedCopyWithCache();
    const damagedBytes = damage(readFileSync(cacheFile));
    writeFileSync(cacheFile, damagedBytes);
    const damaged = await listTools(cli);
    expect(damaged.stderr).toContain(NO_TRUSTED_CACHE);
    expect(damaged.tools).toEqual(["kubectl", "torii_policy"]);
    await vi.waitFor(() => expect(readFileSync(cacheFile).equals(damagedBytes), "the damaged cache was replaced").toBe(false), { timeout: 30_000 });
    expect((await listTools(cli)).stderr).toContain(RAN_FROM_CACHE);
  });

  test("a cache V8 refuses (its header names this bundle, its payload is no V8 cache) is not run: the server compiles and lists its tools", async () => {
    const { cli, bundle, cacheDirectory } = installedCopy();
    writeCacheFile(cacheDirectory, "serve.cjs", cacheKey(readFileSync(bundle)), statSync(bundle).uid, () => Buffer.from("not V8's code cache"));
    expect(existsSync(cacheFileOf(bundle, cacheDirectory))).toBe(true);
    const refused = await listTools(cli);
    expect(refused.stderr).toContain(V8_REJECTED);
    expect(refused.tools).toEqual(["kubectl", "torii_policy"]);
  });

  test("a group-writable cache directory is neither run from nor written to: the server compiles and lists its tools", async () => {
    const { cli, cacheDirectory, cacheFile } = await installedCopyWithCache();
    chmodSync(cacheDirectory, 0o775);
    const stored = readFileSync(cacheFile);
    const untrusted = await listTools(cli);
    expect(untrusted.stderr).toContain(NO_TRUSTED_CACHE);
    expect(untrusted.tools).toEqual(["kubectl", "torii_policy"]);
    // Nothing was written there (a server that compiled stores its cache right after tools/list, before the client closes).
    expect(readFileSync(cacheFile).equals(stored)).toBe(true);
    expect(readdirSync(cacheDirectory)).toEqual([path.basename(cacheFile)]);
  });

  test("a group-writable cache file is not run: the server compiles, lists its tools and replaces it with an owner-only one", async () => {
    const { cli, cacheFile } = await installedCopyWithCache();
    chmodSync(cacheFile, 0o664);
    const untrusted = await listTools(cli);
    expect(untrusted.stderr).toContain(NO_TRUSTED_CACHE);
    expect(untrusted.tools).toEqual(["kubectl", "torii_policy"]);
    await vi.waitFor(() => expect(statSync(cacheFile).mode & 0o022, "replaced by an owner-only file").toBe(0), { timeout: 30_000 });
    expect((await listTools(cli)).stderr).toContain(RAN_FROM_CACHE);
  });
});

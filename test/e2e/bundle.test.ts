/**
 * The built binary is a bundle (scripts/bundle.mjs): the `bin`, dist/cli.cjs
 * (a CommonJS entry, which dist/cli.js runs), the chunks it imports and the
 * server's one CommonJS file, dist/server/serve.cjs, load no module from
 * node_modules, the operator commands stay behind a dynamic import (the server
 * never loads them), the AWS SDK is a file of its own (required only for an
 * aws_profile account check), the server's call path runs with the first tool
 * call, not before tools/list, source maps
 * sit beside every file for readable stack traces, and every built file is
 * ASCII (V8 then keeps each module's source as a one-byte string).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "acorn";
import { describe, expect, test } from "vitest";

const dist = fileURLToPath(new URL("../../dist", import.meta.url));

/**
 * The specifiers of `import … from "x"`, `import "x"` and `import("x")` in a
 * built file, minified (`import{a}from"./x";import"./y"` on one line) or not.
 */
function importsOf(file: string): { static: string[]; dynamic: string[] } {
  const text = readFileSync(file, "utf8");
  return {
    static: [...text.matchAll(/(?:^|[;}])\s*(?:import|export)\b(?:[^;"()]*?\bfrom)?\s*"([^"]+)"/gm)].map((match) => match[1]!),
    dynamic: [...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((match) => match[1]!),
  };
}

/** The specifiers of `require("x")` in a built CommonJS file. */
function requiredBy(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1]!);
}

/** Every built file reachable from `entry` through static imports only. */
function staticClosure(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of importsOf(file).static) {
      if (specifier.startsWith(".")) visit(path.resolve(path.dirname(file), specifier));
    }
  };
  visit(entry);
  return [...seen];
}

/** The server's code, one CommonJS file (cli.ts runs it through V8's code cache), and its AWS SDK side, required with the first AWS account check. */
const SERVER = path.join(dist, "server", "serve.cjs");
const STS_PROBE = path.join(dist, "server", "sts-probe.cjs");

/** An ESTree node as acorn returns it. */
interface AstNode {
  readonly type: string;
  readonly [key: string]: unknown;
}

function childNodes(node: AstNode): AstNode[] {
  return Object.values(node)
    .flatMap((value: unknown) => (Array.isArray(value) ? (value as unknown[]) : [value]))
    .filter((value): value is AstNode => typeof value === "object" && value !== null && typeof (value as AstNode).type === "string");
}

/** `Promise.resolve().then(…)`: what esbuild makes of a dynamic import in a CommonJS build (its initialiser runs later). */
function isLazyImport(node: AstNode): boolean {
  const callee = node.callee as AstNode | undefined;
  const resolved = callee?.type === "MemberExpression" ? (callee.object as AstNode) : undefined;
  const resolve = resolved?.type === "CallExpression" ? (resolved.callee as AstNode) : undefined;
  return (
    node.type === "CallExpression" &&
    (callee?.property as AstNode | undefined)?.name === "then" &&
    resolve?.type === "MemberExpression" &&
    (resolve.object as AstNode).name === "Promise" &&
    (resolve.property as AstNode).name === "resolve"
  );
}

/** The module initialisers (`init_x()`, `require_x()`) that `node` calls, leaving out the lazy imports'. */
function initialisersCalled(node: AstNode, found = new Set<string>()): Set<string> {
  if (isLazyImport(node)) return found;
  const callee = node.type === "CallExpression" ? (node.callee as AstNode) : undefined;
  if (callee?.type === "Identifier" && /^(?:init|require)_\w+$/u.test(callee.name as string)) found.add(callee.name as string);
  for (const child of childNodes(node)) initialisersCalled(child, found);
  return found;
}

/**
 * The modules of a CommonJS bundle that run when the file does, among those
 * esbuild wrapped in an initialiser (`var init_x = __esm({ "src/x.ts"() {…} })`,
 * or `__commonJS`), by their path: the initialisers the file's top level calls,
 * directly or through other initialisers, leaving out the calls that are a
 * dynamic import made lazy (`Promise.resolve().then(() => (init_x(), …))`).
 * Every call anywhere at the top level counts, even inside a function not yet
 * called: the set can only be too large.
 */
function modulesRunAtLoad(file: string): { atLoad: Set<string>; wrapped: Set<string> } {
  const program = parse(readFileSync(file, "utf8"), { ecmaVersion: "latest", sourceType: "script" }) as unknown as AstNode;
  const initialisers = new Map<string, { module: string; body: AstNode }>();
  const topLevel: AstNode[] = [];
  for (const statement of program.body as AstNode[]) {
    for (const part of statement.type === "VariableDeclaration" ? (statement.declarations as AstNode[]) : [statement]) {
      const init = part.init as AstNode | undefined;
      const wrapper = init?.type === "CallExpression" ? ((init.callee as AstNode).name as string | undefined) : undefined;
      if (wrapper !== "__esm" && wrapper !== "__commonJS") {
        topLevel.push(part);
        continue;
      }
      const [property] = (init!.arguments as AstNode[])[0]!.properties as AstNode[];
      initialisers.set((part.id as AstNode).name as string, { module: (property!.key as AstNode).value as string, body: property!.value as AstNode });
    }
  }
  const reached = new Set<string>();
  const visit = (name: string): void => {
    const initialiser = initialisers.get(name);
    if (reached.has(name) || initialiser === undefined) return;
    reached.add(name);
    for (const next of initialisersCalled(initialiser.body)) visit(next);
  };
  for (const node of topLevel) for (const name of initialisersCalled(node)) visit(name);
  return {
    atLoad: new Set([...reached].map((name) => initialisers.get(name)!.module)),
    wrapped: new Set([...initialisers.values()].map(({ module }) => module)),
  };
}

/** The files a built file was made from, as its source map names them (relative to the repository). */
function sourcesOf(file: string): string[] {
  const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
  return map.sources.map((source) => path.relative(path.join(dist, ".."), path.resolve(path.dirname(file), source)));
}

describe("dist/cli.cjs is a bundle", () => {
  const entry = path.join(dist, "cli.cjs");
  /** What the server's files were built from. */
  const serverSources = (): string[] => [SERVER, STS_PROBE].flatMap(sourcesOf);

  test("neither the entry nor the server's files load a package: only node: built-ins, and the server only the STS probe beside it", () => {
    expect(readFileSync(entry, "utf8")).toContain('"./server/serve.cjs"');
    for (const specifier of requiredBy(entry)) expect(isBuiltin(specifier), `cli.cjs requires ${specifier}`).toBe(true);
    for (const file of staticClosure(entry)) {
      for (const specifier of importsOf(file).static) expect(specifier, `${file} imports ${specifier}`).toMatch(/^(node:|\.\.?\/)/);
    }
    // A vm.Script has no import(): the build turned the server's dynamic imports into require().
    for (const file of [SERVER, STS_PROBE]) expect(importsOf(file), file).toEqual({ static: [], dynamic: [] });
    // (The STS probe's text names an optional AWS package in its error messages: Node's own require loads that file.)
    for (const specifier of requiredBy(SERVER).filter((required) => required !== "./sts-probe.cjs"))
      expect(isBuiltin(specifier), `serve.cjs requires ${specifier}`).toBe(true);
  });

  test("the operator commands are reached only through a dynamic import, never from the server's files", () => {
    const program = importsOf(entry).dynamic.find((specifier) => /program/.test(specifier));
    expect(program).toBe("./chunks/program.js");
    expect(sourcesOf(SERVER)).toContain("src/mcp/serve.ts");
    expect(serverSources().filter((source) => source.startsWith("src/commands/"))).toEqual([]);
  });

  test("the AWS SDK sits in a file of its own: the server requires it only with the STS probe's first use", () => {
    const server = readFileSync(SERVER, "utf8");
    expect(server).not.toContain("GetCallerIdentityCommand");
    expect(requiredBy(SERVER)).toContain("./sts-probe.cjs");
    expect(server).toMatch(/Promise\.resolve\(\)\.then\(\(\) ?=> ?__toESM\(require\("\.\/sts-probe\.cjs"\)/u);
    expect(readFileSync(STS_PROBE, "utf8")).toContain("GetCallerIdentityCommand");
  });

  test("the server's files leave out the SDK's default validator, Ajv (Torii passes its own)", () => {
    // (The SDK ships source maps: its files are named by its TypeScript sources.)
    expect(serverSources()).toContain("node_modules/@modelcontextprotocol/sdk/src/server/index.ts");
    expect(serverSources().filter((source) => source.startsWith("node_modules/ajv/"))).toEqual([]);
  });

  test("the call path (pipeline, launcher, audit writer, approval page server) runs with the first call, not before tools/list", () => {
    const { atLoad, wrapped } = modulesRunAtLoad(SERVER);
    expect(atLoad, "the start-up modules are found").toContain("src/mcp/serve-lifecycle.ts");
    expect(atLoad).toContain("src/pipeline/call-audit.ts");
    for (const module of [
      "src/mcp/call-path.ts",
      "src/pipeline/invoke.ts",
      "src/runtime/launcher.ts",
      "src/audit/audit-log.ts",
      "src/approval/page-server.ts",
      "src/state/lease-store.ts",
    ]) {
      expect(wrapped.has(module), `${module} is in the file, in an initialiser`).toBe(true);
      expect(atLoad.has(module), `${module} runs at start-up`).toBe(false);
    }
  });

  test("zod is tree-shaken (src imports it as a namespace): the server leaves out what it never calls, such as fromJSONSchema", () => {
    expect(serverSources()).toContain("node_modules/zod/v4/core/schemas.js");
    expect(serverSources()).not.toContain("node_modules/zod/v4/classic/from-json-schema.js");
  });

  test("every built chunk has its source map", () => {
    const built = (folder: string): string[] =>
      readdirSync(path.join(dist, folder))
        .filter((name) => name.endsWith(".js") || name.endsWith(".cjs"))
        .map((name) => `${folder}/${name}`);
    const chunks = [...built("chunks"), ...built("server")];
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const name of ["cli.cjs", ...chunks]) expect(existsSync(path.join(dist, `${name}.map`)), name).toBe(true);
  });

  test("`target activate` runs from one CommonJS file of its own: no chunk, no commander, only Node's built-ins required", () => {
    const direct = path.join(dist, "activate", "direct-activate.cjs");
    // The entry names the file; code-cache.ts runs it as a vm.Script, which has no import() (no dynamic import callback).
    expect(readFileSync(entry, "utf8")).toContain('"./activate/direct-activate.cjs"');
    const text = readFileSync(direct, "utf8");
    expect(importsOf(direct)).toEqual({ static: [], dynamic: [] });
    expect(text).not.toMatch(/\bimport\(/);
    const required = [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1]!);
    expect(required.length).toBeGreaterThan(0);
    for (const specifier of required) expect(isBuiltin(specifier), `direct-activate.cjs requires ${specifier}`).toBe(true);
    // Minified without renaming: the functions keep their names.
    expect(text.includes("function runTargetActivate("), "runTargetActivate is in the file").toBe(true);
    expect(text.includes("CommanderError"), "commander is not in the file").toBe(false);
  });

  test("every built JavaScript file is ASCII", () => {
    const built = ["", "chunks", "server", "activate"].flatMap((folder) =>
      readdirSync(path.join(dist, folder))
        .filter((name) => name.endsWith(".js") || name.endsWith(".cjs"))
        .map((name) => path.join(dist, folder, name)),
    );
    expect(built.length).toBeGreaterThanOrEqual(4);
    for (const file of built) {
      const offset = readFileSync(file, "utf8").search(/[\u0080-\uFFFF]/);
      expect(offset, `${file} has a non-ASCII character at offset ${offset}`).toBe(-1);
    }
  });
});

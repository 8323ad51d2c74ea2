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

/**
 * The modules of a CommonJS bundle that run before its first lazy load, by the
 * `// src/…` path esbuild names them with: every module it left unwrapped (run
 * when the file is), and the wrapped ones (`var init_x = __esm({ "src/x.ts"() {…} })`,
 * `var require_x = __commonJS(…)`) whose initialiser that code calls, directly or
 * through other initialisers, leaving out the calls that are a dynamic import
 * made lazy (`Promise.resolve().then(() => (init_x(), …))`).
 */
function modulesRunAtLoad(file: string): { atLoad: Set<string>; wrapped: Map<string, string> } {
  const lines = readFileSync(file, "utf8").split("\n");
  const bodies = new Map<string, string[]>();
  const wrapped = new Map<string, string>();
  const topLevel: string[] = [];
  const unwrappedModules = new Set<string>();
  for (let index = 0; index < lines.length; index += 1) {
    const opening = /^var ((?:init|require)_\w+) = __(?:esm|commonJS)\(\{$/u.exec(lines[index]!);
    if (opening === null) {
      topLevel.push(lines[index]!);
      const named = /^\/\/ (src\/\S+\.ts)$/u.exec(lines[index]!);
      if (named !== null) unwrappedModules.add(named[1]!);
      continue;
    }
    const body: string[] = [];
    for (index += 1; lines[index] !== "});"; index += 1) body.push(lines[index]!);
    bodies.set(opening[1]!, body);
    const module = /^ {2}"([^"]+)"/u.exec(body[0] ?? "");
    if (module !== null) wrapped.set(opening[1]!, module[1]!);
  }
  const calledBy = (code: string[]): string[] =>
    [
      ...code
        .join("\n")
        .replace(/Promise\.resolve\(\)\.then\(\(\) => \(?(?:__toESM\()?(?:init|require)_\w+\(\)/gu, "")
        .matchAll(/\b((?:init|require)_\w+)\(\)/gu),
    ].map((match) => match[1]!);
  const reached = new Set<string>();
  const visit = (name: string): void => {
    if (reached.has(name) || !bodies.has(name)) return;
    reached.add(name);
    for (const next of calledBy(bodies.get(name)!)) visit(next);
  };
  for (const name of calledBy(topLevel)) visit(name);
  const atLoad = new Set([...unwrappedModules].filter((module) => ![...wrapped.values()].includes(module)));
  for (const name of reached) if (wrapped.has(name)) atLoad.add(wrapped.get(name)!);
  return { atLoad, wrapped };
}

describe("dist/cli.cjs is a bundle", () => {
  const entry = path.join(dist, "cli.cjs");
  /** Everything the server may load: its file and the STS probe's. */
  const serverText = (): string => [SERVER, STS_PROBE].map((file) => readFileSync(file, "utf8")).join("\n");

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
    expect(serverText()).not.toMatch(/^\/\/ src\/commands\//mu);
  });

  test("the AWS SDK sits in a file of its own: the server requires it only with the STS probe's first use", () => {
    const server = readFileSync(SERVER, "utf8");
    expect(server).not.toContain("GetCallerIdentityCommand");
    expect(requiredBy(SERVER)).toContain("./sts-probe.cjs");
    expect(server).toMatch(/Promise\.resolve\(\)\.then\(\(\) => __toESM\(require\("\.\/sts-probe\.cjs"\)/u);
    expect(readFileSync(STS_PROBE, "utf8")).toContain("GetCallerIdentityCommand");
  });

  test("the server's files leave out the SDK's default validator, Ajv (Torii passes its own)", () => {
    expect(serverText()).toContain("@modelcontextprotocol/sdk/dist/esm/server/index.js");
    expect(serverText()).not.toMatch(/node_modules\/ajv\//);
  });

  test("the call path (pipeline, launcher, audit writer, approval page server) runs with the first call, not before tools/list", () => {
    const { atLoad, wrapped } = modulesRunAtLoad(SERVER);
    expect(atLoad, "the start-up modules are found").toContain("src/mcp/serve-lifecycle.ts");
    expect(atLoad).toContain("src/pipeline/server-configuration.ts");
    for (const module of [
      "src/mcp/call-path.ts",
      "src/pipeline/invoke.ts",
      "src/runtime/launcher.ts",
      "src/audit/audit-log.ts",
      "src/approval/page-server.ts",
      "src/state/lease-store.ts",
    ]) {
      expect([...wrapped.values()], `${module} is in the file`).toContain(module);
      expect(atLoad.has(module), `${module} runs at start-up`).toBe(false);
    }
  });

  test("zod is tree-shaken (src imports it as a namespace): the server leaves out what it never calls, such as fromJSONSchema", () => {
    expect(serverText()).toContain("// node_modules/zod/v4/core/schemas.js");
    expect(serverText()).not.toContain("// node_modules/zod/v4/classic/from-json-schema.js");
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

/**
 * The built binary is a bundle (scripts/bundle.mjs): the `bin`, dist/cli.cjs
 * (a CommonJS entry, which dist/cli.js runs), and the chunks it imports load no
 * module from node_modules, the operator commands
 * stay behind a dynamic import (the server never loads them), so does the AWS
 * SDK (loaded only for an aws_profile account check), the server's call path
 * (loaded with the first tool call, not before tools/list), source maps
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

/** The chunk `from` reaches through a dynamic import whose name matches `name`. */
function lazyChunk(from: string, name: RegExp): string {
  const specifier = importsOf(from).dynamic.find((candidate) => name.test(candidate));
  expect(specifier, `${from} imports no ${String(name)} chunk`).toBeDefined();
  return path.resolve(path.dirname(from), specifier!);
}

describe("dist/cli.cjs is a bundle", () => {
  const entry = path.join(dist, "cli.cjs");
  /** What the server loads before answering tools/list. */
  const startupFiles = (): string[] => staticClosure(lazyChunk(entry, /serve/));
  /** Everything the server may load: its start-up files and the call path it loads with the first call. */
  const serverFiles = (): string[] => [...new Set([...startupFiles(), ...staticClosure(lazyChunk(lazyChunk(entry, /serve/), /call-path/))])];

  test("neither the entry nor the server's chunks import a package: only node: built-ins and chunks", () => {
    const serve = importsOf(entry).dynamic.find((specifier) => /serve/.test(specifier));
    expect(serve).toBe("./server/serve.js");
    for (const specifier of requiredBy(entry)) expect(isBuiltin(specifier), `cli.cjs requires ${specifier}`).toBe(true);
    const files = [...staticClosure(entry), ...serverFiles()];
    for (const file of files) {
      for (const specifier of importsOf(file).static) expect(specifier, `${file} imports ${specifier}`).toMatch(/^(node:|\.\.?\/)/);
    }
  });

  test("the operator commands are reached only through a dynamic import, never from the server's chunks", () => {
    const program = importsOf(entry).dynamic.find((specifier) => /program/.test(specifier));
    expect(program).toBe("./chunks/program.js");
    expect(serverFiles()).not.toContain(path.resolve(dist, program!));
  });

  test("the AWS SDK sits in a lazy chunk: the server reaches it only through the STS probe's dynamic import", () => {
    const files = serverFiles();
    for (const file of files) expect(readFileSync(file, "utf8"), file).not.toContain("GetCallerIdentityCommand");
    const importer = files.find((file) => importsOf(file).dynamic.some((specifier) => /sts-probe/.test(specifier)));
    expect(importer).toBeDefined();
    const probe = lazyChunk(importer!, /sts-probe/);
    expect(path.basename(probe)).toMatch(/^sts-probe-[\w-]+\.js$/);
    expect(readFileSync(probe, "utf8")).toContain("GetCallerIdentityCommand");
  });

  test("the server's chunks leave out the SDK's default validator, Ajv (Torii passes its own)", () => {
    const serverText = serverFiles()
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    expect(serverText).toContain("@modelcontextprotocol/sdk/dist/esm/server/index.js");
    expect(serverText).not.toMatch(/node_modules\/ajv\//);
  });

  test("the call path (pipeline, launcher, audit writer, approval page server) is loaded with the first call, not before tools/list", () => {
    const startupText = startupFiles()
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    const callPathText = serverFiles()
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    for (const module of [
      "src/pipeline/invoke.ts",
      "src/runtime/launcher.ts",
      "src/audit/audit-log.ts",
      "src/approval/page-server.ts",
      "src/state/lease-store.ts",
    ]) {
      expect(startupText, module).not.toContain(`// ${module}`);
      expect(callPathText, module).toContain(`// ${module}`);
    }
  });

  test("zod is tree-shaken (src imports it as a namespace): the server leaves out what it never calls, such as fromJSONSchema", () => {
    const serverText = serverFiles()
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    expect(serverText).toContain("// node_modules/zod/v4/core/schemas.js");
    expect(serverText).not.toContain("// node_modules/zod/v4/classic/from-json-schema.js");
  });

  test("the server is a build of its own: its start-up loads a few files of dist/server/, none shared with the operator commands", () => {
    const files = startupFiles();
    for (const file of files) expect(path.dirname(file), file).toBe(path.join(dist, "server"));
    expect(files.length).toBeLessThanOrEqual(4);
  });

  test("every built chunk has its source map", () => {
    const built = (folder: string): string[] =>
      readdirSync(path.join(dist, folder))
        .filter((name) => name.endsWith(".js"))
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

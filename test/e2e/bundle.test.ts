/**
 * The built binary is a bundle (scripts/bundle.mjs): dist/cli.js and the
 * chunks it imports load no module from node_modules, the operator commands
 * stay behind a dynamic import (the server never loads them), so does the AWS
 * SDK (loaded only for an aws_profile account check), and source maps
 * sit beside every file for readable stack traces.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const dist = fileURLToPath(new URL("../../dist", import.meta.url));

/** The specifiers of `import … from "x"` and `import("x")` in a built file. */
function importsOf(file: string): { static: string[]; dynamic: string[] } {
  const text = readFileSync(file, "utf8");
  return {
    static: [...text.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s*"([^"]+)"/gm)].map((match) => match[1]!),
    dynamic: [...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((match) => match[1]!),
  };
}

/** Every built file reachable from dist/cli.js through static imports only. */
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

describe("dist/cli.js is a bundle", () => {
  const entry = path.join(dist, "cli.js");

  test("neither the entry nor the server's chunks import a package: only node: built-ins and chunks", () => {
    const serve = importsOf(entry).dynamic.find((specifier) => /serve/.test(specifier));
    expect(serve).toMatch(/^\.\/chunks\/serve-[\w-]+\.js$/);
    const files = [...staticClosure(entry), ...staticClosure(path.resolve(dist, serve!))];
    for (const file of files) {
      for (const specifier of importsOf(file).static) expect(specifier, `${file} imports ${specifier}`).toMatch(/^(node:|\.\.?\/)/);
    }
  });

  test("the operator commands are reached only through a dynamic import, never from the server's chunks", () => {
    const program = importsOf(path.join(dist, "cli.js")).dynamic.find((specifier) => /program/.test(specifier));
    expect(program).toMatch(/^\.\/chunks\/program-[\w-]+\.js$/);
    const serve = importsOf(entry).dynamic.find((specifier) => /serve/.test(specifier))!;
    const serverFiles = staticClosure(path.resolve(dist, serve));
    expect(serverFiles).not.toContain(path.resolve(dist, program!));
  });

  test("the AWS SDK sits in a lazy chunk: the server reaches it only through the STS probe's dynamic import", () => {
    const serve = importsOf(entry).dynamic.find((specifier) => /serve/.test(specifier))!;
    const serverFiles = staticClosure(path.resolve(dist, serve));
    for (const file of serverFiles) expect(readFileSync(file, "utf8"), file).not.toContain("GetCallerIdentityCommand");
    const probe = serverFiles.flatMap((file) => importsOf(file).dynamic).find((specifier) => /sts-probe/.test(specifier));
    expect(probe).toMatch(/^\.\/sts-probe-[\w-]+\.js$/);
    expect(readFileSync(path.join(dist, "chunks", path.basename(probe!)), "utf8")).toContain("GetCallerIdentityCommand");
  });

  test("the server's chunks leave out the SDK's default validator, Ajv (Torii passes its own)", () => {
    const serve = importsOf(entry).dynamic.find((specifier) => /serve/.test(specifier))!;
    const serverText = staticClosure(path.resolve(dist, serve))
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    expect(serverText).toContain("@modelcontextprotocol/sdk/dist/esm/server/index.js");
    expect(serverText).not.toMatch(/node_modules\/ajv\//);
  });

  test("every built chunk has its source map", () => {
    const chunks = readdirSync(path.join(dist, "chunks")).filter((name) => name.endsWith(".js"));
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const name of ["cli.js", ...chunks.map((chunk) => `chunks/${chunk}`)]) expect(existsSync(path.join(dist, `${name}.map`)), name).toBe(true);
  });
});

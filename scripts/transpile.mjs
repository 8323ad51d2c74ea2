#!/usr/bin/env node
// Writes dist/: every src/**/*.ts as its own ES module with a source map, the
// per-module output the tests and benchmarks import (dist/cli.js is then replaced
// by the bundle, scripts/bundle.mjs). esbuild only strips types, one file at a
// time, in well under a second; `tsc` emitting the same files took about 20 s of
// CPU and type-checked src/ a second time, which `npm run typecheck` already does
// for src/, test/ and bench/ together.
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const repo = fileURLToPath(new URL("..", import.meta.url));

// A fresh dist/: a module whose source was removed must not linger for a test to import.
rmSync(path.join(repo, "dist"), { recursive: true, force: true });

const sources = readdirSync(path.join(repo, "src"), { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
  .map((file) => path.join("src", file));

await build({
  absWorkingDir: repo,
  entryPoints: sources,
  outdir: "dist",
  outbase: "src",
  bundle: false,
  format: "esm",
  platform: "node",
  target: "node20.19",
  sourcemap: true,
  tsconfig: "tsconfig.build.json",
  logLevel: "warning",
});

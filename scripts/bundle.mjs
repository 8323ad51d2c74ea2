#!/usr/bin/env node
// Bundles the `torii` binary after `tsc` has built dist/: src/cli.ts becomes
// dist/cli.cjs, a small CommonJS entry (the package's `bin`; dist/cli.js runs it
// for the command lines that name that file); the operator program, the shell
// guard and what they import (commander, zod, yaml, …) become dist/chunks/, with
// one chunk per lazily imported operator command; the MCP server is a build of
// its own, one CommonJS file, dist/server/serve.cjs, that cli.ts runs through
// V8's code cache (its call path is in the file, evaluated with the first call),
// with the AWS SDK apart in dist/server/sts-probe.cjs, required with the first
// AWS account check. Node then loads a handful of files instead of several
// hundred modules, which is most of the start-up time. With source maps: stack traces stay readable
// (node --enable-source-maps maps them back to src/). The operator CLI's and the
// server's builds are minified in whitespace and syntax only (names are kept, so a trace without
// source maps still names functions): a short-lived command spends much of its
// time parsing what it loads, and the smaller text parses faster. The other
// files tsc wrote to dist/ stay for the tests and benchmarks that import them.
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { keepOutputAscii } from "./ascii-output.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));

/**
 * zod re-exports its 64 message locales as `z.locales`, so a bundler cannot drop
 * them; Torii uses only the English messages zod installs by default.
 */
const englishOnlyZodLocales = {
  name: "english-only-zod-locales",
  setup(on) {
    on.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core|mini)$/.test(args.resolveDir)
        ? { path: path.join(args.resolveDir, "../locales/en.js"), namespace: "zod-en" }
        : undefined,
    );
    on.onLoad({ filter: /.*/, namespace: "zod-en" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};
/**
 * The SDK's Server imports Ajv as its default JSON Schema validator, used only
 * for form elicitation answers; Torii passes its own (src/mcp/no-elicitation-validator.ts),
 * so the default is never constructed. Its module is replaced by one that
 * throws if it ever were, which leaves Ajv (60-odd modules) out of the bundle.
 */
const withoutAjv = {
  name: "without-ajv",
  setup(on) {
    on.onResolve({ filter: /^\.\.\/validation\/ajv-provider\.js$/ }, (args) =>
      /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server$/.test(args.resolveDir) ? { path: "ajv-provider", namespace: "without-ajv" } : undefined,
    );
    on.onLoad({ filter: /.*/, namespace: "without-ajv" }, () => ({
      contents:
        'export class AjvJsonSchemaValidator { constructor() { throw new Error("torii: the bundle has no Ajv; pass a jsonSchemaValidator to the Server"); } }',
    }));
  },
};
/**
 * What `src/cli.ts` imports lazily, as the CommonJS entry finds it: the operator
 * program and the shell guard are ES module builds of their own, loaded by a
 * real `import()`; the server and the direct `target activate` are CommonJS
 * builds (cli.ts runs them through V8's code cache; the import is its fallback
 * for a checkout without them).
 */
const BUILT_APART = new Map([
  ["./mcp/serve.js", "./server/serve.cjs"],
  ["./commands/program.js", "./chunks/program.js"],
  ["./commands/guard/guard.js", "./chunks/guard.js"],
  ["./commands/target/direct-activate.js", "./activate/direct-activate.cjs"],
]);
const builtApart = {
  name: "built-apart",
  setup(on) {
    on.onResolve({ filter: /^\.\/(mcp\/serve|commands\/program|commands\/guard\/guard|commands\/target\/direct-activate)\.js$/ }, (args) =>
      args.importer === path.join(repo, "src", "cli.ts") ? { path: BUILT_APART.get(args.path), external: true } : undefined,
    );
  },
};
const common = {
  absWorkingDir: repo,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
  // jsonc-parser's `main` is a UMD build whose require() calls a bundler cannot follow; its ES build is the same code.
  alias: { "jsonc-parser": "./node_modules/jsonc-parser/lib/esm/main.js" },
  // CommonJS dependencies (proper-lockfile, commander) call require() for Node built-ins.
  banner: { js: 'import { createRequire as __toriiCreateRequire } from "node:module";\nconst require = __toriiCreateRequire(import.meta.url);' },
};
for (const folder of ["chunks", "server", "activate", "v8-cache"]) rmSync(new URL(`../dist/${folder}`, import.meta.url), { recursive: true, force: true });
// The operator commands: the program (commander and the command groups) and the shell guard, each
// an entry of its own that the CommonJS entry imports by name, and one chunk per lazily imported command.
await build({
  ...common,
  entryPoints: { program: "src/commands/program.ts", guard: "src/commands/guard/guard.ts" },
  outdir: "dist/chunks",
  chunkNames: "[name]-[hash]",
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [englishOnlyZodLocales, withoutAjv],
});
// The `bin`, dist/cli.cjs: CommonJS, so `torii --version` and a plain `target activate` never start
// Node's ES module loader (7-20 ms of CPU per command); `"type": "module"` makes a `.js` an ES module,
// hence `.cjs`. What src/cli.ts imports lazily and is not built apart (the code cache loader, the
// server's V8 tuning) is in the file, evaluated only when imported.
await build({
  ...common,
  format: "cjs",
  splitting: false,
  entryPoints: { cli: "src/cli.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  banner: { js: '"use strict";\nconst __toriiImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__toriiImportMetaUrl" },
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [builtApart],
});
// dist/cli.js, what `torii agent install` registered (`node <package>/dist/cli.js`, for the server and
// the shell guard) and what a checkout runs: an ES module that runs the CommonJS entry.
writeFileSync(
  path.join(repo, "dist", "cli.js"),
  [
    "#!/usr/bin/env node",
    "// The ES module entry of registrations and checkouts: runs the CommonJS entry, dist/cli.cjs (scripts/bundle.mjs).",
    'import { createRequire } from "node:module";',
    'createRequire(import.meta.url)("./cli.cjs");',
    "",
  ].join("\n"),
);
rmSync(path.join(repo, "dist", "cli.js.map"), { force: true });
// The MCP server: one CommonJS file, run by cli.ts as a vm.Script through V8's code cache
// (src/runtime/code-cache/code-cache.ts), which Node 20 offers for scripts only. A vm.Script has no
// import(), so the dynamic imports become require(): the call path's, of a module in the file (esbuild
// evaluates it then), and the STS probe's, of a file of its own (serveApart), so that start-up neither
// reads nor compiles the AWS SDK.
const commonJs = {
  format: "cjs",
  splitting: false,
  outExtension: { ".js": ".cjs" },
  supported: { "dynamic-import": false },
  banner: { js: '"use strict";\nconst __toriiImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__toriiImportMetaUrl" },
  // As the operator CLI's build, for the same reasons: less text to read, hash and keep (V8 holds a script's
  // source for its life: ~1 MiB of idle RSS), and a start without its cache parses less.
  minifyWhitespace: true,
  minifySyntax: true,
};
/** The server's STS probe (the AWS SDK), required from the server's file as the file beside it. */
const stsProbeApart = {
  name: "sts-probe-apart",
  setup(on) {
    on.onResolve({ filter: /^\.\/sts-probe\.js$/ }, (args) =>
      args.importer === path.join(repo, "src", "pipeline", "identity", "aws-identity.ts") ? { path: "./sts-probe.cjs", external: true } : undefined,
    );
  },
};
await build({
  ...common,
  ...commonJs,
  entryPoints: { serve: "src/mcp/serve.ts" },
  outdir: "dist/server",
  plugins: [englishOnlyZodLocales, withoutAjv, stsProbeApart],
});
await build({
  ...common,
  ...commonJs,
  entryPoints: { "sts-probe": "src/pipeline/identity/sts-probe.ts" },
  outdir: "dist/server",
  plugins: [englishOnlyZodLocales, withoutAjv],
});
// The server's child host (src/runtime/child-host/child-host.ts): a file of its own with only the
// launcher in it, shared with nothing, so the host process loads one small file.
await build({
  ...common,
  splitting: false,
  entryPoints: { "child-host": "src/runtime/child-host/child-host.ts" },
  outdir: "dist/server",
});
// `target activate` without commander (src/commands/target/direct-activate.ts): one file, since
// its thirty-odd shared chunks cost a module load each; the code it shares with the CLI's build is on disk twice.
// CommonJS, because cli.ts runs it as a vm.Script with V8's code cache (src/runtime/code-cache/code-cache.ts),
// which Node 20 offers for scripts only; the cache, dist/v8-cache/, is written at run time.
await build({
  ...common,
  format: "cjs",
  banner: {},
  splitting: false,
  entryPoints: { "direct-activate": "src/commands/target/direct-activate.ts" },
  outdir: "dist/activate",
  outExtension: { ".js": ".cjs" },
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [englishOnlyZodLocales, withoutAjv],
});
// Comments keep only ASCII, so V8 can hold each module's source as a one-byte string (ascii-output.mjs).
keepOutputAscii(["dist", "dist/chunks", "dist/server", "dist/activate"].map((folder) => path.join(repo, folder)));

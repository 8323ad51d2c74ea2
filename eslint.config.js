// Type-aware lint: floating promises around locks and spawns are bugs, and
// stdout belongs to JSON-RPC, so console.log is banned outside the operator CLI.
// The layering of src/ (docs/architecture.md, "Layering") is enforced below with
// per-folder no-restricted-imports.
import eslint from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/** A relative import that reaches into one of `folders` of src/, from any depth. */
const into = (folders, why) => ({ regex: `^(\\.\\./)+(${folders.join("|")})(/|$)`, message: why });
/** A relative import that climbs `levels` folders up, i.e. leaves a folder that must stay self-contained. */
const outOf = (levels, why) => ({ regex: `^(\\.\\./){${levels}}`, message: why });

const FRONT_DOORS = ["mcp", "commands", "cli\\.js"];
const BELOW_FRONT_DOORS = into(
  FRONT_DOORS,
  "the layers below the front doors (pipeline, approval, agents, config, state, audit, policy, runtime) never import mcp/, commands/ or cli.ts",
);
const SELF_CONTAINED = "policy/ and runtime/ import nothing else from src/ (they are pure or only wrap Node)";

/** no-restricted-imports for `files`, with these patterns (one config per file: ESLint replaces, not merges, a rule's options). */
const layer = (files, ...patterns) => ({ files, rules: { "no-restricted-imports": ["error", { patterns }] } });

/** The layering rules of src/, exported so a test can prove they report a violating import. */
export const layering = [
  layer(
    ["src/pipeline/**/*.ts", "src/config/**/*.ts", "src/state/**/*.ts", "src/audit/**/*.ts", "src/agents/**/*.ts", "src/approval/**/*.ts"],
    BELOW_FRONT_DOORS,
  ),
  layer(["src/policy/*.ts", "src/runtime/*.ts"], BELOW_FRONT_DOORS, outOf(1, SELF_CONTAINED)),
  layer(["src/policy/*/**/*.ts", "src/runtime/*/**/*.ts"], BELOW_FRONT_DOORS, outOf(2, SELF_CONTAINED)),
  layer(["src/mcp/**/*.ts"], into(["commands", "cli\\.js"], "mcp/ is a front door: it never imports the other front door (commands/) or cli.ts")),
  layer(["src/commands/**/*.ts"], into(["mcp", "cli\\.js"], "commands/ is a front door: it never imports the other front door (mcp/) or cli.ts")),
];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**"] },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      // One program for the files linted with types (src/ and the scripts' declarations), from tsconfig.eslint.json:
      // a whole-tree lint took ~15% less CPU than with projectService (paired runs). tsconfig.json's program also holds
      // test/ and what it imports (vitest, playwright-core, fast-check: 1809 files instead of 1132), which no typed rule
      // reads here (tests are linted without types, below): ~5% of a cold lint's CPU.
      parserOptions: { project: "./tsconfig.eslint.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/explicit-module-boundary-types": "error",
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/cli.ts", "src/commands/**"],
    rules: {
      "no-console": ["error", { allow: ["error", "warn"] }],
      "no-restricted-properties": ["error", { object: "process", property: "stdout", message: "stdout belongs to JSON-RPC; write to stderr." }],
    },
  },
  {
    // zod's named `z` is its whole API as one object, which esbuild must then keep in
    // full; the members of a namespace import are tree-shaken (a third of zod stays
    // out of the server's bundle).
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
          message: 'write import * as z from "zod": a named z keeps all of zod in the bundle',
        },
      ],
    },
  },
  ...layering,
  // tsc reports unused locals and parameters in every .ts file (tsconfig.json: noUnusedLocals, noUnusedParameters;
  // `npm run typecheck`), so ESLint's scope walk repeats it there (~7% of a cold lint's CPU); it stays for the
  // JavaScript below, which no type-check reads. What tsc does not report: an unused `catch (error)` binding.
  { files: ["**/*.ts"], rules: { "@typescript-eslint/no-unused-vars": "off" } },
  {
    files: [
      "test/**/*.ts",
      "bench/**/*.ts",
      "vitest.config.ts",
      "vitest.browser.config.ts",
      "vitest.clients.config.ts",
      "vitest.real-cli.config.ts",
      "eslint.config.js",
    ],
    rules: {
      "@typescript-eslint/explicit-module-boundary-types": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  // Tests are linted without type information: type-aware rules over test/ cost a second,
  // larger type-check (lint took ~70 s of CPU instead of ~45 s); `npm run typecheck`
  // still checks test/. What is lost there: the floating-promise, misused-promise and
  // no-unsafe-* rules (vitest itself reports an un-awaited `expect(…).rejects`).
  {
    files: ["test/**/*.ts", "vitest.config.ts", "vitest.browser.config.ts", "vitest.clients.config.ts", "vitest.real-cli.config.ts"],
    ...tseslint.configs.disableTypeChecked,
  },
  // Plain JavaScript run by Node (scripts, benchmarks, this file): no type information, Node's globals.
  {
    files: ["**/*.mjs", "**/*.cjs", "eslint.config.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
  },
  { files: ["**/*.mjs"], rules: { "@typescript-eslint/explicit-module-boundary-types": "off" } },
);

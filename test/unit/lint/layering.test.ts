/**
 * The layering of src/ is enforced by eslint.config.js: each case lints a
 * one-line module as if it lived at `file`, through ESLint's Node API with the
 * project's real configuration, and checks whether no-restricted-imports fires.
 * Type-aware rules are switched off: layering needs no type information, and
 * building a TypeScript program per lint would only make the test slow.
 */
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: fileURLToPath(new URL("../../..", import.meta.url)), overrideConfig: tseslint.configs.disableTypeChecked });

async function layeringErrors(file: string, specifier: string): Promise<string[]> {
  const code = `import * as other from "${specifier}";\nexport const used: unknown = other;\n`;
  const [result] = await eslint.lintText(code, { filePath: file });
  return (result?.messages ?? []).filter((message) => message.ruleId === "no-restricted-imports").map((message) => message.message);
}

const violations: readonly (readonly [string, string])[] = [
  ["src/policy/compile.ts", "../config/registry.js"],
  ["src/policy/compile.ts", "../state/lease-store.js"],
  ["src/policy/grammar/pflag.ts", "../../config/errors.js"],
  ["src/policy/grammar/pflag.ts", "../../runtime/launcher.js"],
  ["src/runtime/launcher.ts", "../audit/audit-log.js"],
  ["src/runtime/launcher.ts", "../policy/types.js"],
  ["src/mcp/server.ts", "../commands/program.js"],
  ["src/mcp/server.ts", "../cli.js"],
  ["src/commands/program.ts", "../mcp/server.js"],
  ["src/commands/target/target.ts", "../../mcp/result.js"],
  ["src/pipeline/invoke.ts", "../mcp/result.js"],
  ["src/pipeline/invoke.ts", "../commands/shared/operator-context.js"],
  ["src/config/registry.ts", "../commands/shared/selection.js"],
  ["src/state/lease-store.ts", "../mcp/server.js"],
  ["src/audit/audit-log.ts", "../cli.js"],
];

const allowed: readonly (readonly [string, string])[] = [
  ["src/policy/grammar/pflag.ts", "../types.js"],
  ["src/policy/compile.ts", "./grammar/types.js"],
  ["src/state/lease-store.ts", "../config/common-fields.js"],
  ["src/pipeline/invoke.ts", "../policy/evaluate.js"],
  ["src/commands/program.ts", "../pipeline/policy-cache.js"],
  ["src/commands/target/target.ts", "../shared/operator-output.js"],
  ["src/mcp/server.ts", "../pipeline/invoke.js"],
  ["src/cli.ts", "./commands/program.js"],
];

describe("eslint.config.js enforces the layering of src/", () => {
  it.each(violations)("%s may not import %s", async (file, specifier) => {
    expect(await layeringErrors(file, specifier)).toHaveLength(1);
  });

  it.each(allowed)("%s may import %s", async (file, specifier) => {
    expect(await layeringErrors(file, specifier)).toEqual([]);
  });
});

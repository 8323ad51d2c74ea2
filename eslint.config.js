// Type-aware lint: floating promises around locks and spawns are bugs, and
// stdout belongs to JSON-RPC, so console.log is banned outside the operator CLI.
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "bench/**/*.mjs", "scripts/**"] },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
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
      "no-restricted-properties": [
        "error",
        { object: "process", property: "stdout", message: "stdout belongs to JSON-RPC; write to stderr." },
      ],
    },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts", "vitest.config.ts", "eslint.config.js"],
    rules: {
      "@typescript-eslint/explicit-module-boundary-types": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  { files: ["eslint.config.js"], ...tseslint.configs.disableTypeChecked },
);

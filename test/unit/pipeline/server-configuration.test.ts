/**
 * The start-up load the server and `torii doctor` share: a configuration loads
 * only when every part does (rules files included, shared and per target), and
 * a failure carries the ConfigError text and its first place.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import path from "node:path";
import { appendServerLog, serverLogPath } from "../../../src/config/server-log.js";
import { loadServerConfiguration, renderStartupFailure } from "../../../src/pipeline/server-configuration.js";
import { tempDir, writeTree, yaml } from "../config/temp-tree.js";

const PROVIDER = yaml('version: "1"', "name: rec", "tool: rec", "command: recorder", "targeting:", "  mode: credentials");
const where = (root: string) => ({ env: { TORII_CONFIG_DIR: root }, platform: process.platform, homedir: "/nonexistent" });

describe("loadServerConfiguration", () => {
  test("a valid tree loads, with every policy already compiled", () => {
    const root = tempDir();
    writeTree(root, { "providers/rec/provider.yaml": PROVIDER, "providers/rec/rules.yaml": yaml('version: "1"', 'accept: ["get"]') });
    const load = loadServerConfiguration(where(root));
    expect(load.ok).toBe(true);
    if (load.ok) expect([...load.configuration.registry.providers.keys()]).toEqual(["rec"]);
  });

  test("a target's own rules file that does not parse fails the start-up, with its place", () => {
    const root = tempDir();
    writeTree(root, {
      "providers/rec/provider.yaml": PROVIDER,
      "providers/rec/rules.yaml": yaml('version: "1"'),
      "providers/rec/targets/dev/target.yaml": yaml('version: "1"', "name: dev", "identity: {provider: rec}"),
      "providers/rec/targets/dev/rules.yaml": yaml('version: "1"', "acept: []"),
    });
    const load = loadServerConfiguration(where(root));
    expect(load.ok).toBe(false);
    if (load.ok) return;
    const file = path.join(root, "providers/rec/targets/dev/rules.yaml");
    expect(load.failure).toMatchObject({ root, file, line: 2, column: 1 });
    expect(load.failure.message).toMatch(new RegExp(`^${file}:2:1: .*acept`, "u"));
  });

  test("a broken shared rule is reported once, though every target's policy includes it", () => {
    const root = tempDir();
    writeTree(root, {
      "providers/rec/provider.yaml": PROVIDER,
      "providers/rec/rules.yaml": yaml('version: "1"', "deny:", '  - "/(/"'),
      "providers/rec/targets/dev/target.yaml": yaml('version: "1"', "name: dev", "identity: {provider: rec}"),
      "providers/rec/targets/dev/rules.yaml": yaml('version: "1"'),
    });
    const load = loadServerConfiguration(where(root));
    if (load.ok) throw new Error("expected a failure");
    expect(load.failure.message.split("\n")).toHaveLength(1);
    expect(load.failure).toMatchObject({ file: path.join(root, "providers/rec/rules.yaml"), line: 3, column: 5 });
  });

  test.each([
    ["V8 refuses", '"/^s3 cp --sse-c-key hunter2SECRETVALUE (/"', /rules\.yaml:3:5: accept rule: invalid regular expression: Unterminated group$/mu],
    [
      "the linear-time engine refuses",
      '"/--sse-c-key hunter2SECRETVALUE(?!x)/"',
      /rules\.yaml:3:5: accept rule: invalid regular expression: .*a negative lookahead.*\(error parsing regexp: /mu,
    ],
  ])("a rule that does not compile (%s) is named by place and list, not by text, in the start-up failure and the server log", (_label, rule, named) => {
    const root = tempDir();
    writeTree(root, { "providers/rec/provider.yaml": PROVIDER, "providers/rec/rules.yaml": yaml('version: "1"', "accept:", `  - ${rule}`) });
    const load = loadServerConfiguration(where(root));
    if (load.ok) throw new Error("expected a failure");
    const text = renderStartupFailure(load.failure);
    // As serveConfigurationError does: the same text goes to stderr, the MCP instructions and the error tool.
    appendServerLog(root, `start-up failed: ${text}`);
    expect(text).toMatch(named);
    expect(text).not.toContain("hunter2SECRETVALUE");
    expect(readFileSync(serverLogPath(root), "utf8")).not.toContain("hunter2SECRETVALUE");
  });

  // A rules file holds rules the page's "Always allow" wrote from a call's whole argv, option values included: a
  // rules file that does not load is located and described, never quoted (config/yaml-problem-text.ts).
  test.each([
    ["a misplaced rule line read as a key", ["accept:", "  - get pods", "get secret --token=hunter2SECRETVALUE: x"], 4, 1],
    ["a misplaced token line read as a lowercase-free key", ["hunter2SECRETVALUE: x"], 2, 1],
    ["an alias naming no anchor", ["accept:", "  - *hunter2SECRETVALUE"], 3, 5],
    ["an anchor whose alias comes first", ["accept:", "  - *hunter2SECRETVALUE", "  - &hunter2SECRETVALUE get"], 3, 5],
    ["a tag", ["accept:", "  - !hunter2SECRETVALUE get pods"], 3, 5],
    ["a block scalar header with extra characters", ["accept:", "  - |2hunter2SECRETVALUE", "    get"], 3, 7],
    ["an escape YAML does not define", ["accept:", '  - "get \\qhunter2SECRETVALUE"'], 3, 10],
    ["a map under a rule", ["accept:", "  - get:", "      hunter2SECRETVALUE: 1"], 3, 5],
    ["a regular expression with an unknown flag", ["accept:", '  - "/get hunter2SECRETVALUE/Z"'], 3, 5],
  ])("a rules file that does not load (%s) is located, never quoted, in the start-up failure", (_label, lines, line, column) => {
    const root = tempDir();
    writeTree(root, { "providers/rec/provider.yaml": PROVIDER, "providers/rec/rules.yaml": yaml('version: "1"', ...lines) });
    const load = loadServerConfiguration(where(root));
    if (load.ok) throw new Error("expected a failure");
    const text = renderStartupFailure(load.failure);
    expect(load.failure).toMatchObject({ file: path.join(root, "providers/rec/rules.yaml"), line, column });
    expect(text).not.toMatch(/hunter2|SECRETVALUE/u);
  });

  test("no provider and a relative TORII_CONFIG_DIR are failures too; the rendering names the root and the restart", () => {
    const empty = tempDir();
    const none = loadServerConfiguration(where(empty));
    if (none.ok) throw new Error("expected a failure");
    expect(renderStartupFailure(none.failure)).toMatch(/configuration root [\s\S]*no providers installed[\s\S]*restart the Torii MCP server/u);
    const relative = loadServerConfiguration({ env: { TORII_CONFIG_DIR: "relative/dir" }, platform: "linux", homedir: "/nonexistent" });
    if (relative.ok) throw new Error("expected a failure");
    expect(relative.failure.root).toBeUndefined();
    expect(relative.failure.message).toContain("TORII_CONFIG_DIR: must be an absolute path");
  });
});

import path from "node:path";
import { describe, expect, it } from "vitest";
import { isContainedRelativePath, loadProviderDocument, toGrammarSpec, toPolicySettings } from "../../../src/config/provider-schema.js";
import type { ProviderConfig } from "../../../src/config/provider-schema.js";
import { expectConfigErrorAt, tempDir, writeTree, yaml } from "./temp-tree.js";

/** The four required lines; tests append from line 5 on. */
const BASE = ['version: "1"', "name: aws", "tool: aws", "command: aws"];

function writeProvider(text: string): string {
  const root = tempDir();
  writeTree(root, { "provider.yaml": text });
  return path.join(root, "provider.yaml");
}

function load(...extra: string[]): ProviderConfig {
  return loadProviderDocument(writeProvider(yaml(...BASE, ...extra))).value;
}

/** Expects the provider built from BASE + `extra` to fail at `line:column`. */
function expectProviderError(extra: readonly string[], line: number, column: number, detail: RegExp): void {
  const file = writeProvider(yaml(...BASE, ...extra));
  expectConfigErrorAt(() => loadProviderDocument(file), file, line, column, detail);
}

/** Like expectProviderError, for a file written out in full. */
function expectFileError(lines: readonly string[], line: number, column: number, detail: RegExp): void {
  const file = writeProvider(yaml(...lines));
  expectConfigErrorAt(() => loadProviderDocument(file), file, line, column, detail);
}

describe("provider.yaml: required fields and defaults", () => {
  it("applies the defaults of a minimal file", () => {
    const config = load();
    expect(config).toEqual({ version: "1", name: "aws", tool: "aws", command: "aws", description: "", expose: true, args_prefix: [] });
    expect(toPolicySettings(config)).toEqual({ minimumAcceptTokens: 1, forbiddenArgs: [], ignoreArgs: { leading: [], flags: [] } });
    expect(toGrammarSpec(config)).toEqual({ parser: "plain", options: [], commands: [], forbiddenValuePrefixes: [] });
  });

  it("applies section defaults", () => {
    const config = load("targeting: {}", "policy: {}", "auth: {}", "argv: {}", "runtime: {}");
    expect(config.targeting).toEqual({ locked_options: [] });
    expect(config.policy).toEqual({ minimum_accept_tokens: 1, forbidden_args: [], ignore_args: { leading: [], flags: [] } });
    expect(config.auth).toEqual({ strategy: "inherited", fields: [], removed_env: [], cache_ttl_seconds: 300 });
    expect(config.argv).toEqual({ parser: "plain", forbidden_value_prefixes: [], options: [], commands: [] });
    expect(config.runtime).toEqual({ allow_batch_wrapper: false });
  });

  it("accepts an unquoted version 1 as Torii did", () => {
    expect(loadProviderDocument(writeProvider(yaml("version: 1", ...BASE.slice(1)))).value.version).toBe(1);
  });

  it("refuses another version at the value", () => {
    expectFileError(['version: "2"', ...BASE.slice(1)], 1, 10, /version: must be "1"/);
  });

  it("points a missing required field at the root map", () => {
    expectFileError(['version: "1"', "name: aws", "command: aws"], 1, 1, /missing required field "tool"/);
  });

  it("refuses an unknown top-level field at its key", () => {
    expectProviderError(["descripton: typo"], 5, 1, /unknown field "descripton"/);
  });

  it("refuses an unknown nested field at its key (line 6, column 3)", () => {
    expectProviderError(["targeting:", "  locks: []"], 6, 3, /targeting: unknown field "locks"/);
  });
});

describe("provider.yaml: tool and command", () => {
  it.each(["aws cli", "aws/cli", "", "é"])("refuses the tool name %j", (tool) => {
    expectFileError(['version: "1"', "name: aws", `tool: ${JSON.stringify(tool)}`, "command: aws"], 3, 7, /tool: must be non-empty and contain only ASCII/);
  });

  it("refuses a tool name over 128 characters", () => {
    expectFileError(['version: "1"', "name: aws", `tool: ${"a".repeat(129)}`, "command: aws"], 3, 7, /tool: must be at most 128/);
  });

  it("accepts a tool name of 128 characters", () => {
    expect(loadProviderDocument(writeProvider(yaml('version: "1"', "name: aws", `tool: ${"a".repeat(128)}`, "command: aws"))).value.tool).toHaveLength(128);
  });

  it("refuses the reserved tool torii_policy", () => {
    expectFileError(['version: "1"', "name: aws", "tool: torii_policy", "command: aws"], 3, 7, /tool: "torii_policy" is reserved/);
  });

  it.each(["bin/aws", "./aws", "..\\aws", "\\aws", "C:aws", "", ".."])("refuses the command %j", (command) => {
    expectFileError(
      [...BASE.slice(0, 3), `command: ${JSON.stringify(command)}`],
      4,
      10,
      /command: must (be a bare program name or an absolute path|not be empty)/,
    );
  });

  it.each(["aws", "/usr/local/bin/aws", "C:\\Tools\\aws.exe", "C:/Tools/aws.exe", "\\\\server\\share\\aws.exe"])("accepts the command %j", (command) => {
    expect(loadProviderDocument(writeProvider(yaml(...BASE.slice(0, 3), `command: ${JSON.stringify(command)}`))).value.command).toBe(command);
  });
});

describe("provider.yaml: targeting", () => {
  it.each(["--context=x", "-c", "--", "--a b", "--ñ", "context"])("refuses the locked option %j at its list item", (option) => {
    expectProviderError(
      ["targeting:", "  mode: credentials", "  locked_options:", "    - --ok", `    - ${JSON.stringify(option)}`],
      9,
      7,
      /targeting\.locked_options\[1\]: a locked option must be "--"/,
    );
  });

  it("refuses an unknown mode", () => {
    expectProviderError(["targeting:", "  mode: kube"], 6, 9, /targeting\.mode: Invalid option/);
  });

  it("requires auth.strategy inherited for aws_profile", () => {
    expectProviderError(
      ["targeting:", "  mode: aws_profile", "auth:", "  strategy: environment"],
      8,
      13,
      /auth\.strategy: must be inherited when targeting\.mode is aws_profile/,
    );
  });

  it("accepts aws_profile with the default strategy", () => {
    expect(load("targeting:", "  mode: aws_profile", "auth:", "  removed_env: [AWS_ACCESS_KEY_ID]").auth?.strategy).toBe("inherited");
  });
});

describe("provider.yaml: policy", () => {
  it("refuses minimum_accept_tokens below 1", () => {
    expectProviderError(["policy:", "  minimum_accept_tokens: 0"], 6, 26, /policy\.minimum_accept_tokens: must be a whole number of at least 1/);
  });

  it("accepts the legacy grant_rule and ignores it", () => {
    const config = load("policy:", "  grant_rule: { anything: [1, 2] }", "  forbidden_args: [--debug]", "  ignore_args:", "    leading: [--no-cli-pager]");
    expect(toPolicySettings(config)).toEqual({
      minimumAcceptTokens: 1,
      forbiddenArgs: ["--debug"],
      ignoreArgs: { leading: ["--no-cli-pager"], flags: [] },
    });
  });

  it("refuses an empty forbidden arg", () => {
    expectProviderError(["policy:", '  forbidden_args: ["--ok", ""]'], 6, 28, /policy\.forbidden_args\[1\]: a forbidden arg must not be empty/);
  });
});

describe("provider.yaml: auth", () => {
  const FIELD = ["auth:", "  strategy: environment", "  fields:", "    - name: TOKEN", "      label: Token", "      secret: true"];

  it("applies field defaults", () => {
    expect(load(...FIELD).auth?.fields).toEqual([{ name: "TOKEN", label: "Token", secret: true, required: true, multiline: false }]);
  });

  it("refuses a field name that is not an environment variable name", () => {
    expectProviderError(
      ["auth:", "  fields:", "    - name: 1TOKEN", "      label: Token"],
      7,
      13,
      /auth\.fields\[0\]\.name: must be an environment variable name/,
    );
  });

  it("refuses a field without a label at the field's map", () => {
    expectProviderError(["auth:", "  fields:", "    - name: TOKEN"], 7, 7, /auth\.fields\[0\]: missing required field "label"/);
  });

  it("refuses a duplicate field name", () => {
    expectProviderError([...FIELD, "    - name: TOKEN", "      label: Again"], 11, 13, /auth\.fields\[1\]\.name: duplicate auth field TOKEN/);
  });

  it("accepts inject values that name a declared field", () => {
    expect(load(...FIELD, "  inject:", "    environment:", "      API_TOKEN: ${TOKEN}").auth?.inject?.environment).toEqual({ API_TOKEN: "${TOKEN}" });
  });

  it("refuses an inject value that names no declared field", () => {
    expectProviderError(
      [...FIELD, "  inject:", "    environment:", "      API_TOKEN: ${TOKN}"],
      13,
      18,
      /auth\.inject\.environment\.API_TOKEN: \$\{TOKN\} is not a declared auth field/,
    );
  });

  it.each(["KUBECONFIG", "PATH", "Path", "LD_PRELOAD", "AWS_CONFIG_FILE"])(
    "refuses %s as an inject name: a session may not choose the program or a file the CLI reads",
    (name) => {
      expectProviderError(
        [...FIELD, "  inject:", "    environment:", `      ${name}: \${TOKEN}`],
        13,
        9 + name.length,
        new RegExp(`auth\\.inject\\.environment\\.${name}: ${name} names a program or a file the CLI reads, which a stored session may not set`),
      );
    },
  );

  it("refuses KUBECONFIG as a field name when the fields are injected by their own names (no inject)", () => {
    expectProviderError(
      ["auth:", "  strategy: environment", "  fields:", "    - name: KUBECONFIG", "      label: Kubeconfig"],
      8,
      13,
      /auth\.fields\[0\]\.name: KUBECONFIG names a program or a file the CLI reads/,
    );
    expect(load(...FIELD, "    - name: PATH", "      label: Path", "  inject:", "    environment:", "      API_TOKEN: ${PATH}").auth?.fields).toHaveLength(2);
  });

  it.each(["Bearer ${TOKEN}", "$TOKEN", "${TOKEN}x", "literal"])("refuses the inject value %j, which is not exactly ${FIELD}", (value) => {
    expectProviderError([...FIELD, "  inject:", "    environment:", `      API_TOKEN: ${JSON.stringify(value)}`], 13, 18, /must be exactly "\$\{FIELD\}"/);
  });

  it("refuses an inject variable name that is not an environment variable name", () => {
    expectProviderError([...FIELD, "  inject:", "    environment:", "      API-TOKEN: ${TOKEN}"], 13, 7, /auth\.inject\.environment: invalid key "API-TOKEN"/);
  });

  it("applies validate and identity defaults", () => {
    const auth = load(
      "auth:",
      "  validate: { command: aws }",
      "  identity:",
      "    command: aws",
      "    args: [sts, get-caller-identity]",
      "    field: Account",
    ).auth;
    expect(auth?.validate).toEqual({ command: "aws", args: [] });
    expect(auth?.identity).toEqual({ command: "aws", args: ["sts", "get-caller-identity"], field: "Account", cache_ttl_seconds: 300 });
  });

  it("refuses a relative validate command with a separator", () => {
    expectProviderError(["auth:", "  validate:", "    command: ./check"], 7, 14, /auth\.validate\.command: must be a bare program name/);
  });

  it("refuses a removed_env entry that is not an environment variable name", () => {
    expectProviderError(["auth:", "  removed_env: [AWS_PROFILE, AWS-REGION]"], 6, 30, /auth\.removed_env\[1\]: must be an environment variable name/);
  });

  it("accepts a removed_env prefix entry NAME_* and refuses other wildcards", () => {
    expect(load("auth:", "  removed_env: [AWS_PROFILE, CLOUDSDK_*]").auth?.removed_env).toEqual(["AWS_PROFILE", "CLOUDSDK_*"]);
    expectProviderError(["auth:", "  removed_env: [AWS*]"], 6, 17, /auth\.removed_env\[0\]: must be an environment variable name .* or a prefix NAME_\*/);
  });

  it("refuses an invalid strategy and profile_env", () => {
    expectProviderError(["auth:", "  strategy: oauth"], 6, 13, /auth\.strategy: Invalid option/);
    expectProviderError(["auth:", "  profile_env: AWS PROFILE"], 6, 16, /auth\.profile_env: must be an environment variable name/);
  });
});

describe("provider.yaml: environment.file", () => {
  it.each(["../x.env", "/etc/x.env", "a/../../x.env", "C:\\x.env", "..\\x.env", "\\x.env", ".", "sub/..", ""])(
    "refuses %j, which does not stay inside the provider directory",
    (file) => {
      expectProviderError(
        ["environment:", `  file: ${JSON.stringify(file)}`],
        6,
        9,
        /environment\.file: must be a relative path that stays inside the provider directory/,
      );
    },
  );

  it.each([".env", "env/prod.env", "a/../b.env", "./x.env"])("accepts %j", (file) => {
    expect(isContainedRelativePath(file)).toBe(true);
    expect(load("environment:", `  file: ${JSON.stringify(file)}`).environment?.file).toBe(file);
  });
});

describe("provider.yaml: argv", () => {
  const OPTIONS = ["argv:", "  parser: pflag", "  options:", "    - { name: --namespace, short: -n, value: required }"];

  it("maps file_writes rows (an operand, or an option with its short form) into the grammar", () => {
    const grammar = toGrammarSpec(
      load(
        "argv:",
        "  parser: argparse",
        "  file_writes:",
        "    - { command: [s3, cp], operand: destination }",
        "    - { command: [storage, blob, download], option: --file, short: -f }",
        '    - { command: [aks, get-credentials], default_path: "~/.kube/config" }',
        '    - { command: [vm, create], option: --generate-ssh-keys, default_path: "~/.ssh/id_rsa" }',
      ),
    );
    expect(grammar.fileWrites).toEqual([
      { command: ["s3", "cp"], operand: "destination" },
      { command: ["storage", "blob", "download"], option: "--file", short: "-f" },
      { command: ["aks", "get-credentials"], defaultPath: "~/.kube/config" },
      { command: ["vm", "create"], option: "--generate-ssh-keys", defaultPath: "~/.ssh/id_rsa" },
    ]);
  });

  it("maps a file_reads option's default_path (what the command reads when the option is left out) into the grammar", () => {
    const grammar = toGrammarSpec(
      load("argv:", "  parser: argparse", "  file_reads:", '    - { command: [deploy, push], option: --source, default_path: "." }'),
    );
    expect(grammar.fileReads).toEqual([{ command: ["deploy", "push"], option: "--source", defaultPath: "." }]);
  });

  it("refuses a default_path in file_reads without its option: an operand row already holds every call", () => {
    expectProviderError(
      ["argv:", "  parser: argparse", "  file_reads:", '    - { command: [webapp, up], default_path: ".azure/config" }'],
      8,
      7,
      /argv\.file_reads\[0\]: a file read's default path goes with its option/,
    );
  });

  it.each([
    ["an unknown field", "{ command: [cp], operand: dest, mode: w }", 8, 45, /argv\.file_writes\[0\]\.mode: unknown field "mode"/],
    ["an empty command path", "{ command: [], operand: dest }", 8, 18, /argv\.file_writes\[0\]\.command: a command path needs at least one word/],
    ["a command word that starts with -", "{ command: [cp, -x], operand: dest }", 8, 23, /argv\.file_writes\[0\]\.command\[1\]: a command path word must be/],
    ["a bad option name", "{ command: [cp], option: -file }", 8, 32, /argv\.file_writes\[0\]\.option: an option name must be/],
    ["a bad short form", "{ command: [cp], option: --file, short: --f }", 8, 47, /argv\.file_writes\[0\]\.short: a short option must be/],
    [
      "both an operand and an option",
      "{ command: [cp], operand: dest, option: --file }",
      8,
      7,
      /argv\.file_writes\[0\]: a file write names either an operand or an option/,
    ],
    ["no operand, option or default path", "{ command: [cp] }", 8, 7, /argv\.file_writes\[0\]: a file write names an operand, an option or a default path/],
    [
      "a default path with an operand",
      '{ command: [cp], operand: dest, default_path: "~/x" }',
      8,
      7,
      /argv\.file_writes\[0\]: a default path goes with an option or with the command alone/,
    ],
    ["a default path on two lines", '{ command: [cp], default_path: "a\\nb" }', 8, 38, /argv\.file_writes\[0\]\.default_path: a default path is one line/],
    [
      "a short form without its option",
      "{ command: [cp], operand: dest, short: -f }",
      8,
      7,
      /argv\.file_writes\[0\]: a file write's short form goes with its option/,
    ],
    ["a row that is not a mapping", "cp", 8, 7, /argv\.file_writes\[0\]: a file write must be a mapping/],
  ])("refuses a file_writes row with %s, naming line and column", (_what, row, line, column, detail) => {
    expectProviderError(["argv:", "  parser: argparse", "  file_writes:", `    - ${row}`], line, column, detail);
  });

  it("maps the grammar for the policy engine", () => {
    const config = load(
      ...OPTIONS,
      "    - { name: --all-namespaces, short: -A, value: none, repeatable: false }",
      "  forbidden_value_prefixes: [file://]",
      "  commands:",
      "    - path: [logs]",
      "      options:",
      "        - { name: --follow, short: -f, value: none }",
    );
    const grammar = toGrammarSpec(config);
    expect(grammar).toEqual({
      parser: "pflag",
      options: [
        { name: "--namespace", short: "-n", value: "required", repeatable: false },
        { name: "--all-namespaces", short: "-A", value: "none", repeatable: false },
      ],
      commands: [{ path: ["logs"], options: [{ name: "--follow", short: "-f", value: "none", repeatable: false }] }],
      forbiddenValuePrefixes: ["file://"],
    });
    expect("short" in (toGrammarSpec(load("argv:", "  options: [{ name: --x, value: none }]")).options[0] ?? {})).toBe(false);
  });

  it.each(["-namespace", "--", "--_x", "--a b", "--ñ", "namespace"])("refuses the option name %j", (name) => {
    expectProviderError(
      ["argv:", "  options:", `    - name: ${JSON.stringify(name)}`, "      value: none"],
      7,
      13,
      /argv\.options\[0\]\.name: an option name must be/,
    );
  });

  it.each(["-ab", "--a", "a", "-é", "-"])("refuses the short %j", (short) => {
    expectProviderError(
      ["argv:", "  options:", "    - name: --all", `      short: ${JSON.stringify(short)}`, "      value: none"],
      8,
      14,
      /argv\.options\[0\]\.short: a short option must be/,
    );
  });

  it("refuses an unknown value arity", () => {
    expectProviderError(["argv:", "  options:", "    - name: --all", "      value: maybe"], 8, 14, /argv\.options\[0\]\.value: Invalid option/);
  });

  // Option tables are read by a plain check first (plain-rows.ts); a row it cannot vouch for gets zod's own error.
  it("refuses an unknown field of an option row, after valid rows, at its key", () => {
    expectProviderError([...OPTIONS, "    - { name: --all, value: none, hidden: true }"], 9, 35, /argv\.options\[1\]: unknown field "hidden"/);
  });

  it.each([
    ["a quoted repeatable", "{ name: --all, value: none, repeatable: 'yes' }", 9, 47, /argv\.options\[1\]\.repeatable: Invalid input: expected boolean/],
    ["an empty short", "{ name: --all, short: null, value: none }", 9, 29, /argv\.options\[1\]\.short: Invalid input: expected string/],
    ["a row that is a list", "[--all, none]", 9, 7, /argv\.options\[1\]: Invalid input: expected object/],
  ])("refuses %s in a command scope's table and the global one", (_, row, line, column, detail) => {
    expectProviderError([...OPTIONS, `    - ${row}`], line, column, detail);
    const scoped = detail.source.replace("argv\\.options", "argv\\.commands\\[0\\]\\.options");
    expectProviderError(
      ["argv:", "  commands:", "    - path: [logs]", "      options:", "        - { name: --follow, value: none }", `        - ${row}`],
      10,
      column + 4,
      new RegExp(scoped),
    );
  });

  it("reads option tables row by row, defaults applied, shorts kept only where written", () => {
    const rows = Array.from(
      { length: 40 },
      (_, index) =>
        `    - { name: --o${index}, ${index % 3 === 0 ? `short: -${"abcdefghij"[index % 10] ?? "a"}, ` : ""}value: ${index % 2 === 0 ? "none" : "required"} }`,
    );
    const options = load("argv:", "  commands:", ...rows.flatMap((row, index) => [`  - path: [c${index}]`, "    options:", `  ${row}`])).argv?.commands;
    expect(options).toHaveLength(40);
    expect(options?.[3]?.options).toEqual([{ name: "--o3", short: "-d", value: "required", repeatable: false }]);
    expect(options?.[4]?.options).toEqual([{ name: "--o4", value: "none", repeatable: false }]);
    expect(options?.[4]?.options[0] && "short" in options[4].options[0]).toBe(false);
  });

  it("refuses a duplicate global long name", () => {
    expectProviderError(
      [...OPTIONS, "    - { name: --namespace, value: none }"],
      9,
      15,
      /argv\.options\[1\]\.name: duplicate option --namespace \(already declared at options\[0\]\.name\)/,
    );
  });

  it("refuses a duplicate global short", () => {
    expectProviderError([...OPTIONS, "    - { name: --node, short: -n, value: none }"], 9, 30, /argv\.options\[1\]\.short: duplicate option -n/);
  });

  it("refuses a duplicate inside a command scope", () => {
    expectProviderError(
      [
        ...OPTIONS,
        "  commands:",
        "    - path: [logs]",
        "      options:",
        "        - { name: --follow, value: none }",
        "        - { name: --follow, value: none }",
      ],
      13,
      19,
      /argv\.commands\[0\]\.options\[1\]\.name: duplicate option --follow/,
    );
  });

  it("refuses a command scope that redeclares a global name", () => {
    expectProviderError(
      [...OPTIONS, "  commands:", "    - path: [logs]", "      options:", "        - { name: --namespace, value: none }"],
      12,
      19,
      /argv\.commands\[0\]\.options\[0\]\.name: --namespace is a global option; a command scope must not redeclare it/,
    );
  });

  it("refuses a command scope that redeclares a global short", () => {
    expectProviderError(
      [...OPTIONS, "  commands:", "    - path: [logs]", "      options:", "        - { name: --node, short: -n, value: none }"],
      12,
      34,
      /argv\.commands\[0\]\.options\[0\]\.short: -n is a global option/,
    );
  });

  it("allows the same local option in two different scopes", () => {
    const config = load(
      ...OPTIONS,
      "  commands:",
      "    - { path: [logs], options: [{ name: --follow, short: -f, value: none }] }",
      "    - { path: [apply], options: [{ name: --filename, short: -f, value: required }] }",
    );
    expect(toGrammarSpec(config).commands).toHaveLength(2);
  });

  it("refuses two scopes with the same path", () => {
    expectProviderError(
      [...OPTIONS, "  commands:", "    - path: [rollout, status]", "    - path: [rollout, status]"],
      11,
      13,
      /argv\.commands\[1\]\.path: command path "rollout status" is already declared at commands\[0\]/,
    );
  });

  it.each([["-f"], [""]])("refuses the command path word %j", (word) => {
    expectProviderError(["argv:", "  commands:", `    - path: [ok, ${JSON.stringify(word)}]`], 7, 18, /argv\.commands\[0\]\.path\[1\]: a command path word/);
  });

  it("refuses an empty command path", () => {
    expectProviderError(["argv:", "  commands:", "    - path: []"], 7, 13, /argv\.commands\[0\]\.path: a command path needs at least one word/);
  });

  it("refuses _ in option names for pflag, globally and in scopes", () => {
    expectProviderError(
      ["argv:", "  parser: pflag", "  options:", "    - { name: --dry_run, value: optional }"],
      8,
      15,
      /argv\.options\[0\]\.name: pflag reads "_" as "-"; write --dry_run with "-"/,
    );
    expectProviderError(
      ["argv:", "  parser: pflag", "  commands:", "    - path: [get]", "      options: [{ name: --show_kind, value: none }]"],
      9,
      25,
      /argv\.commands\[0\]\.options\[0\]\.name: pflag reads "_"/,
    );
  });

  it("accepts _ in option names for argparse", () => {
    expect(toGrammarSpec(load("argv:", "  parser: argparse", "  options: [{ name: --dry_run, value: none }]")).options[0]?.name).toBe("--dry_run");
  });

  it("refuses an empty forbidden value prefix", () => {
    expectProviderError(
      ["argv:", '  forbidden_value_prefixes: [""]'],
      6,
      30,
      /argv\.forbidden_value_prefixes\[0\]: a forbidden value prefix must not be empty/,
    );
  });
});

describe("provider.yaml: runtime", () => {
  it.each([0, 86_401, 1.5])("refuses timeout_seconds %s", (value) => {
    expectProviderError(["runtime:", `  timeout_seconds: ${String(value)}`], 6, 20, /runtime\.timeout_seconds: must be a whole number from 1 to 86400/);
  });

  it("reads runtime.fixed_env and refuses PATH, PATHEXT, bad names and multi-line values", () => {
    expect(load("runtime:", "  fixed_env: {PYTHONSAFEPATH: '1'}").runtime?.fixed_env).toEqual({ PYTHONSAFEPATH: "1" });
    for (const entry of ["{PATH: /bin}", "{Pathext: .EXE}", "{'A=B': x}", "{'-A': x}", "{'A{USER}B': x}", "{'{USER}': x}", '{A: "x\\ny"}']) {
      expect(() => load("runtime:", `  fixed_env: ${entry}`), entry).toThrow(/fixed_env/);
    }
  });

  it("reads runtime.fixed_env names with `-` (knack's AZURE_DEFAULTS_SQL-SERVER) or ending in {USER}, and empty values", () => {
    const fixed = { "AZURE_DEFAULTS_SQL-SERVER": "", "AZURE_LOCAL_CONTEXT_{USER}": "off", AZURE_DEFAULTS_GROUP: "" };
    expect(load("runtime:", `  fixed_env: ${JSON.stringify(fixed)}`).runtime?.fixed_env).toEqual(fixed);
  });

  it("reads runtime.working_directory_config and refuses absolute or escaping paths", () => {
    expect(load("runtime:", "  working_directory_config: [.azure/config]").runtime?.working_directory_config).toEqual([".azure/config"]);
    for (const entry of ["/etc/config", "../config", "a/../../config"]) {
      expect(() => load("runtime:", `  working_directory_config: ["${entry}"]`), entry).toThrow(/working_directory_config/);
    }
  });

  it("reads runtime.home_config: paths inside HOME or $NAME/ and one inside the variable's directory; refuses the rest", () => {
    const entries = [".aws/cli/alias", "$AZURE_CONFIG_DIR/alias"];
    expect(load("runtime:", `  home_config: ${JSON.stringify(entries)}`).runtime?.home_config).toEqual(entries);
    for (const entry of ["/etc/alias", "../alias", "$AZURE_CONFIG_DIR/../alias", "$AZURE_CONFIG_DIR/", "$/alias", "$1X/alias", "$X"]) {
      expect(() => load("runtime:", `  home_config: ["${entry}"]`), entry).toThrow(/home_config/);
    }
  });

  it("reads timeout_seconds and allow_batch_wrapper", () => {
    expect(load("runtime:", "  timeout_seconds: 60", "  allow_batch_wrapper: true").runtime).toEqual({ timeout_seconds: 60, allow_batch_wrapper: true });
  });

  it("refuses a non-boolean allow_batch_wrapper", () => {
    expectProviderError(["runtime:", "  allow_batch_wrapper: yes"], 6, 24, /runtime\.allow_batch_wrapper: .*expected boolean/);
  });
});

describe("provider.yaml: argv.remote_arguments", () => {
  it("reads a tail row and an option row into the grammar", () => {
    const config = load("argv:", "  parser: pflag", "  remote_arguments:", "    - {command: [exec], tail: true}", "    - {command: [get], option: --raw}");
    expect(toGrammarSpec(config).remoteArguments).toEqual([
      { command: ["exec"], tail: true },
      { command: ["get"], option: "--raw" },
    ]);
  });

  it.each([["{command: [exec]}"], ["{command: [exec], tail: true, option: --raw}"]])("refuses %s: a row is the tail or one option", (row) => {
    expectProviderError(["argv:", "  parser: pflag", "  remote_arguments:", `    - ${row}`], 8, 7, /either the tail/u);
  });
});

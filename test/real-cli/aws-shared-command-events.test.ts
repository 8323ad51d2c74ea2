/**
 * awscli customizations attach commands through events named after a command's
 * name, not its path: CodeDeploy's `install`, `uninstall`, `register`,
 * `deregister` and `push` hang on `building-command-table.deploy`, which fires
 * for `deploy`, `cloudformation deploy` and `ecs deploy` alike, so `aws
 * cloudformation deploy --template-file t --stack-name s install` runs the
 * CodeDeploy agent installer. A locked command or a file read listed for one
 * path must hold at every path the same command is reached at, also with the
 * parent's own options (and their values) before the sub-command.
 *
 * The installed CLI is scanned (scripts/providers/aws_command_tree.py): every
 * name event more than one command emits, with a handler of its own, must be
 * reviewed here, so a CLI upgrade that adds one fails this test.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { toGrammarSpec } from "../../src/config/provider-schema.js";
import { compilePolicy } from "../../src/policy/compile.js";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { bundledPolicyContext, bundledProviderConfig, ruleList } from "../support/policy-helpers.js";
import { testPython } from "../support/test-python.js";

/** Each shared name event of the installed CLI, with what its handler attaches and where that is checked. */
const REVIEWED_SHARED_EVENTS: Readonly<Record<string, string>> = {
  "building-command-table.deploy":
    "CodeDeploy's install, uninstall, register, deregister and push under every `deploy`: locked and file-read rows at every path (checked below)",
};

interface CommandTree {
  readonly shared_events: readonly { readonly event: string; readonly paths: readonly string[][] }[];
  readonly same_command_paths: Readonly<Record<string, readonly string[][]>>;
  readonly parent_options: readonly { readonly command: string[]; readonly values: string[]; readonly switches: string[] }[];
}

const SCRIPT = fileURLToPath(new URL("../../scripts/providers/aws_command_tree.py", import.meta.url));
const HELP_ORACLE = fileURLToPath(new URL("../support/awscli_help_oracle.py", import.meta.url));
// .ci/run exports TORII_TEST_PYTHON: a python3 that can import awscli.
const PYTHON = testPython();
const policy = compilePolicy(bundledPolicyContext("aws"), { shared: ruleList([], ["/.*/"]) });
const decide = (argv: readonly string[]) => evaluatePolicy(policy, argv).decision;

/** The path as typed, and with an option of the parent and its value before the last word. */
function spellings(path: readonly string[]): string[][] {
  const spelled = [[...path]];
  if (path.length > 2) spelled.push([...path.slice(0, -1), "--template-file", "t.yaml", "--stack-name", "s", ...path.slice(-1)]);
  return spelled;
}

const lockedAt = (path: readonly string[]): boolean => spellings(path).every((argv) => decide([...argv, "--probe", "x"]).result === "deny");

/** What CodeDeploy's install page says (`aws deploy install help`). */
const INSTALLER = "Configures and installs the AWS CodeDeploy Agent";

/** Argvs whose `help` the installed CLI is asked about: the installer's page, or no page, shows where it puts install. */
const ASKED = {
  installAfterParentOptions: ["cloudformation", "deploy", "--template-file", "t.yaml", "--stack-name", "s", "install"],
  valuesNamedInstall: [
    ["cloudformation", "deploy", "--template-file", "t.yaml", "--stack-name", "install"],
    ["cloudformation", "deploy", "--template-file", "t.yaml", "--stack", "install"],
    ["cloudformation", "deploy", "--stack-name", "uninstall", "--no-execute-changeset", "--template-file", "t.yaml"],
  ],
  installAfterValues: [
    ["cloudformation", "deploy", "--template-file", "t.yaml", "--stack-name", "install", "install"],
    ["cloudformation", "deploy", "--template-file", "t.yaml", "--stack-name", "s", "--no-execute-changeset", "install"],
  ],
};

let tree: CommandTree;
/** What the installed CLI printed for `aws <argv> help`, by the argv's words. */
const helpPages = new Map<string, string>();
const installedHelp = (argv: readonly string[]): string => {
  const page = helpPages.get(argv.join(" "));
  if (page === undefined) throw new Error(`not asked: ${argv.join(" ")}`);
  return page;
};

/** Runs a Python script with `input` on its stdin to its end, without blocking the worker: the scan and the help pages run side by side. */
function runPython(script: string, input: string, env?: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [script], { shell: false, ...(env === undefined ? {} : { env }) });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => {
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

beforeAll(async () => {
  // No configuration or credentials are read; the page goes to stdout through `cat`.
  const scratch = { AWS_CONFIG_FILE: "/nonexistent/config", AWS_SHARED_CREDENTIALS_FILE: "/nonexistent/credentials", AWS_PAGER: "", PAGER: "cat" };
  const argvs = [ASKED.installAfterParentOptions, ...ASKED.valuesNamedInstall, ...ASKED.installAfterValues];
  const [run, help] = await Promise.all([
    runPython(SCRIPT, ""),
    runPython(HELP_ORACLE, JSON.stringify(argvs), { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/", ...scratch }),
  ]);
  if (run.status !== 0) throw new Error(`aws_command_tree.py failed: ${run.stderr}`);
  tree = JSON.parse(run.stdout) as CommandTree;
  if (help.status !== 0) throw new Error(`awscli_help_oracle.py failed: ${help.stderr}`);
  (JSON.parse(help.stdout) as string[]).forEach((page, at) => helpPages.set(argvs[at]?.join(" ") ?? "", page));
}, 180_000);

describe("awscli commands attached through an event that more than one command emits", () => {
  it("every shared name event of the installed CLI is reviewed (a CLI upgrade that adds one fails here)", () => {
    expect(tree.shared_events.map((shared) => shared.event).sort()).toEqual(Object.keys(REVIEWED_SHARED_EVENTS).sort());
    expect(tree.shared_events.find((shared) => shared.event === "building-command-table.deploy")?.paths).toEqual([
      ["cloudformation", "deploy"],
      ["deploy"],
      ["ecs", "deploy"],
    ]);
  });

  it("a command locked at one of its paths is locked at every path, also after its parent's options", () => {
    const groups = Object.values(tree.same_command_paths);
    const withLocked = groups.filter((paths) => paths.some(lockedAt));
    // install, uninstall (run the agent installer) and register (prints a new access key), at least.
    expect(withLocked.length).toBeGreaterThanOrEqual(3);
    for (const paths of withLocked) {
      for (const path of paths) expect(lockedAt(path), path.join(" ")).toBe(true);
    }
  });

  it.each(["fileReads", "fileWrites"] as const)("an argument listed in %s at one of its command's paths is listed at every path", (table) => {
    const rows = toGrammarSpec(bundledProviderConfig("aws"))[table] ?? [];
    const listedAt = (path: readonly string[]): string[] =>
      rows.filter((row) => row.command.join(" ") === path.join(" ")).map((row) => row.option ?? `operand ${row.operand ?? ""}`);
    let checked = 0;
    for (const paths of Object.values(tree.same_command_paths)) {
      const expected = listedAt(paths[0] ?? []);
      for (const path of paths) expect(listedAt(path), path.join(" ")).toEqual(expected);
      checked += expected.length === 0 ? 0 : 1;
    }
    // deploy push --source is a read; no shared command writes a path the caller names today.
    expect(checked).toBeGreaterThanOrEqual(table === "fileReads" ? 1 : 0);
  });
});

describe("CodeDeploy's local commands under every deploy", () => {
  const INSTALL = ["install", "--config-file", "/tmp/c.yml"];

  it.each([
    ["deploy", ["deploy", ...INSTALL]],
    ["cloudformation deploy, sub-command first", ["cloudformation", "deploy", ...INSTALL, "--template-file", "t.yaml", "--stack-name", "s"]],
    ["cloudformation deploy, after its required options", ["cloudformation", "deploy", "--template-file", "t.yaml", "--stack-name", "s", ...INSTALL]],
    ["cloudformation deploy, options glued", ["cloudformation", "deploy", "--template-file=t.yaml", "--stack-name=s", ...INSTALL]],
    [
      "ecs deploy, after its required options",
      ["ecs", "deploy", "--service", "a", "--task-definition", "td.json", "--codedeploy-appspec", "as.yml", "uninstall"],
    ],
    ["ecs deploy, uninstall", ["ecs", "deploy", "uninstall"]],
  ])("%s: refused under accept /.*/ with the installer's reason", (_name, argv) => {
    const decision = decide(argv);
    expect(decision.result).toBe("deny");
    expect(decision.reason).toMatch(/CodeDeploy agent (installer|uninstaller) on this machine/u);
    expect(decision.reason).not.toContain("t.yaml");
  });

  it("the installed CLI reaches CodeDeploy's install under cloudformation deploy, and Torii refuses that argv", () => {
    // `help` prints the sub-command's page (groff overstrikes only its headings) and runs nothing.
    const argv = ASKED.installAfterParentOptions;
    expect(installedHelp(argv)).toContain(INSTALLER);
    expect(decide([...argv, "help"]).result).toBe("deny");
  });

  it("register prints a new access key under every deploy", () => {
    for (const parent of [["deploy"], ["cloudformation", "deploy", "--template-file", "t", "--stack-name", "s"], ["ecs", "deploy"]]) {
      const decision = decide([...parent, "register", "--instance-name", "i"]);
      expect(decision.result, parent.join(" ")).toBe("deny");
      expect(decision.reason).toContain("credential usable outside Torii");
    }
  });

  it("a value of a parent option equal to install is no sub-command, as for the installed CLI; a second install still is", () => {
    // `help` after the sub-command prints its page; after a value it is an invalid sub-command. Nothing runs either way.
    for (const argv of ASKED.valuesNamedInstall) {
      expect(installedHelp(argv), argv.join(" ")).not.toContain(INSTALLER);
      expect(decide(argv).result, argv.join(" ")).not.toBe("deny");
    }
    expect(decide(["ecs", "deploy", "--service", "install", "--task-definition", "td.json"]).result).not.toBe("deny");
    for (const argv of ASKED.installAfterValues) {
      expect(installedHelp(argv), argv.join(" ")).toContain(INSTALLER);
      expect(decide(argv).result, argv.join(" ")).toBe("deny");
    }
    // An ambiguous abbreviation (--s3-bucket, --s3-prefix, --stack-name) or a list option's second value skips nothing: refused.
    expect(decide(["cloudformation", "deploy", "--template-file", "t.yaml", "--s", "install"]).result).toBe("deny");
    expect(decide(["cloudformation", "deploy", "--template-file", "t.yaml", "--stack-name", "s", "--tags", "a=b", "install"]).result).toBe("deny");
  });

  it("the bundled parent options are the installed CLI's", () => {
    expect(bundledProviderConfig("aws").argv?.parent_options).toEqual(tree.parent_options);
  });

  it("the deploy operations themselves stay with the rules", () => {
    expect(decide(["cloudformation", "deploy", "--stack-name", "s", "--template-file", "t.yaml"]).result).not.toBe("deny");
    expect(decide(["deploy", "list-applications"]).result).toBe("accept");
    expect(decide(["cloudformation", "describe-stacks", "--stack-name", "install"]).result).toBe("accept");
  });
});

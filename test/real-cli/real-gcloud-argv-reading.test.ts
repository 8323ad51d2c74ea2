/**
 * The real gcloud against Torii's grammar for the same argv
 * (test/unit/policy/gcloud-argv-reading.test.ts covers every position):
 *
 * - gcloud acts on `--flags-file` after `--` (it tries to read the file, and
 *   fails with its own error before argparse runs), while a longer flag name
 *   there is only an argument argparse refuses: Torii refuses the first as the
 *   locked option and leaves the second to the rules;
 * - gcloud reads no abbreviated flag (`--verb=debug` is an unrecognised
 *   argument): Torii's canonical argv keeps it in the body, not as --verbosity.
 *
 * Then through the built server with broad rules: a prescanned flag after `--`
 * and an IAP tunnel on every interface are denied and gcloud never starts,
 * while `info` runs.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { canonicalise } from "../../src/policy/grammar/canonicalise.js";
import { compileGrammar } from "../../src/policy/grammar/option-table.js";
import { flattenCanonical } from "../../src/policy/grammar/types.js";
import { bundledPolicyContext } from "../support/policy-helpers.js";
import { makeConfigTree } from "../support/config-tree.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { GCLOUD_CHILD_PATH, gcloudProviderWithoutTargets } from "../support/real-gcloud.js";

interface GcloudRun {
  readonly code: number | null;
  readonly stderr: string;
}

/** Runs the real gcloud with `home` as HOME, no shell; resolves to its exit code and stderr. */
function runGcloud(args: readonly string[], home: string): Promise<GcloudRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("gcloud", args, { env: { PATH: GCLOUD_CHILD_PATH, HOME: home }, stdio: ["ignore", "ignore", "pipe"], shell: false });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stderr });
    });
  });
}

const context = bundledPolicyContext("gcloud");
const grammar = compileGrammar(context.grammar, context.lockedOptions);
let home: string;
let missing: string;

beforeAll(() => {
  // No usage reporting: gcloud must not reach the network from a test.
  home = makeConfigTree({ ".config/gcloud/properties": "[core]\ndisable_usage_reporting = true\n" });
  missing = path.join(home, "no-such-flags.yaml");
});

describe("real gcloud and Torii read the same argv alike", () => {
  test("gcloud acts on --flags-file after --; Torii refuses it as the locked option", async () => {
    const argv = ["info", "--", `--flags-file=${missing}`];
    const run = await runGcloud(argv, home);
    expect(run.stderr).toContain(`--flags-file [${missing}] not found`);
    expect(canonicalise(argv, grammar)).toMatchObject({ ok: false, rejection: { kind: "locked-option", option: "--flags-file" } });
  }, 90_000);

  test("a longer name after -- is only an argument to gcloud; Torii does not refuse it", async () => {
    const argv = ["info", "--", `--flags-filex=${missing}`];
    const run = await runGcloud(argv, home);
    expect(run.stderr).toContain("unrecognized arguments");
    expect(run.stderr).not.toContain("not found");
    expect(canonicalise(argv, grammar).ok).toBe(true);
  }, 90_000);

  test("gcloud refuses an abbreviated flag; Torii keeps it in the body, unexpanded", async () => {
    const argv = ["info", "--verb=debug"];
    const run = await runGcloud(argv, home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unrecognized arguments: --verb=debug");
    const result = canonicalise(argv, grammar);
    expect(result.ok && flattenCanonical(result.canonical)).toEqual(["info", "--verb=debug"]);
  }, 90_000);
});

describe("through the server, under rules that accept the commands", () => {
  let session: McpSession;

  beforeAll(async () => {
    const root = makeConfigTree({
      ...gcloudProviderWithoutTargets(),
      "providers/gcloud/rules.yaml": `version: "1"\naccept:\n  - info\n  - compute\n  - dataproc\n`,
    });
    session = await startSession(root, { HOME: home, PATH: GCLOUD_CHILD_PATH });
  });

  afterAll(async () => {
    await session.close();
  });

  test.each([
    ["a configuration after --", ["dataproc", "jobs", "submit", "spark", "--cluster=c", "--region=r", "--class=M", "--", "--configuration=other"]],
    ["a flags file after --", ["info", "--", `--flags-file=${missing}`]],
    ["an IAP tunnel on every interface", ["compute", "start-iap-tunnel", "vm1", "22", "--zone=z", "--local-host-port=0.0.0.0:2222"]],
  ])("%s is denied and gcloud never starts", async (_what, args) => {
    const outcome = outcomeOf(await session.call("gcloud", { args }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(outcome.execution).toBeUndefined();
  });

  test("info runs", async () => {
    const outcome = outcomeOf(await session.call("gcloud", { args: ["info", "--format=value(basic.version)"] }, { timeout: 90_000 }));
    expect(outcome.decision.result).toBe("allow");
    expect(outcome.execution?.exit_code).toBe(0);
  }, 90_000);
});

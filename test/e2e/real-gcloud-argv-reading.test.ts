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
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { canonicalise } from "../../src/policy/grammar/canonicalise.js";
import { compileGrammar } from "../../src/policy/grammar/option-table.js";
import { flattenCanonical } from "../../src/policy/grammar/types.js";
import { bundledPolicyContext } from "../support/policy-helpers.js";
import { GCLOUD_CHILD_PATH } from "../support/real-gcloud.js";
import { makeConfigTree } from "../support/config-tree.js";

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

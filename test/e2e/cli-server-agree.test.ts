/**
 * The operator's CLI and the MCP server must not be able to disagree: on
 * whether a target's lease is active (they share state/lease-status.ts), and on
 * which grant would allow an unresolved call (they share
 * policy/grant-suggestion.ts, fed the canonical argv, and load rules through
 * one PolicyCache). Each case asks the built server over MCP and the CLI (in-process)
 * about the same files and compares the answers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { jsonOutput, runChecked } from "../support/cli-expect.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const ARGPARSE = `version: "1"
name: awsish
tool: awsish
command: must-not-run
argv:
  parser: argparse
  options:
    - {name: --output, value: required}
    - {name: --debug, value: none}
`;

const PFLAG = `version: "1"
name: kube
tool: kube
command: must-not-run
targeting: {mode: kubectl_context}
argv:
  parser: pflag
  options: [{name: --output, short: -o, value: required}, {name: --namespace, short: -n, value: required}]
`;

const PLAIN = `version: "1"
name: tf
tool: tf
command: must-not-run
`;

const RULES = 'version: "1"\ndeny: [delete]\naccept: []\n';

let bin: FakeBin;
let root: string;
let env: Record<string, string>;
let session: McpSession;

beforeAll(async () => {
  bin = makeFakeBin({}, ["must-not-run"]);
  root = makeConfigTree({
    "providers/awsish/provider.yaml": ARGPARSE,
    "providers/awsish/rules.yaml": RULES,
    "providers/kube/provider.yaml": PFLAG,
    "providers/kube/rules.yaml": RULES,
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: plainidp}\n',
    "providers/plainidp/provider.yaml": 'version: "1"\nname: plainidp\ntool: plainidp\ncommand: must-not-run\n',
    "providers/plainidp/rules.yaml": 'version: "1"\n',
    "providers/tf/provider.yaml": PLAIN,
    "providers/tf/rules.yaml": RULES,
  });
  env = { TORII_CONFIG_DIR: root, PATH: `${bin.dir}:${process.env.PATH ?? ""}` };
  session = await startSession(root, { PATH: env.PATH ?? "" });
});

afterAll(async () => {
  await session.close();
});

describe("one grant suggestion for the pipeline, torii_policy and torii policy check", () => {
  const cases: readonly (readonly [string, string | undefined, readonly string[]])[] = [
    ["awsish", undefined, ["ec2", "describe-instances", "--instance-ids", "i-1"]],
    ["awsish", undefined, ["--debug", "s3", "ls", "--recursive", "--output", "json", "s3://b"]],
    ["awsish", undefined, ["sts", "get-caller-identity"]],
    ["kube", "prod", ["-n", "x", "get", "pods", "web-1", "-o", "json"]],
    ["kube", "prod", ["logs", "web", "--", "sh", "-c", "ls"]],
    ["tf", undefined, ["state", "show", "-", "-no-color", "x"]],
    ["tf", undefined, ["-chdir=x", "plan"]],
  ];

  beforeAll(async () => {
    await runChecked(["target", "activate", "kube", "prod", "--for", "30"], env);
  });

  test.each(cases)("%s %s %j", async (tool, target, args) => {
    const denial = outcomeOf(await session.call(tool, { ...(target === undefined ? {} : { target }), args: [...args] }));
    expect(denial.decision).toMatchObject({ result: "deny", source: "headless" });
    const policy = await session.call("torii_policy", { provider: tool, ...(target === undefined ? {} : { target }), args: [...args] });
    const explained = (policy.structuredContent as { explain: { grants: unknown } }).explain;
    const checked = await runCli(["policy", "check", tool, ...(target === undefined ? [] : [target]), "--", ...args], env);
    expect(checked.status, checked.stderr).toBe(2);
    const cli = JSON.parse(checked.stdout) as Record<string, unknown>;
    expect(denial.decision.grants).toBeDefined();
    expect(explained.grants).toEqual(denial.decision.grants);
    expect(cli.grants).toEqual(denial.decision.grants);
    expect(bin.ran("must-not-run")).toBe(false);
  });

  test("the prefix suggested for an AWS operation ends at the operation, before its options", async () => {
    const denial = outcomeOf(await session.call("awsish", { args: ["ec2", "describe-instances", "--instance-ids", "i-1"] }));
    expect(denial.decision.grants?.prefix.command).toBe("torii grant add awsish --prefix 2 -- ec2 describe-instances");
  });
});

describe("one lease status for the server's gate and torii target list|show|status", () => {
  const leaseFile = (): string => path.join(root, "providers", "kube", ".target-authorizations.yaml");
  const MINUTE = 60_000;

  /** Rewrites the expiry of prod's lease (keeping its binding) to `offsetMs` from now. */
  function setExpiry(offsetMs: number): void {
    const state = parse(readFileSync(leaseFile(), "utf8")) as { authorizations: { target: string; expires_at: string }[] };
    for (const entry of state.authorizations) entry.expires_at = new Date(Date.now() + offsetMs).toISOString();
    writeFileSync(leaseFile(), stringify(state));
  }

  /** Whether the server lets a call to prod past its lease gate (an unresolved call is then denied headless, not target-inactive). */
  async function serverActive(): Promise<boolean> {
    const outcome = outcomeOf(await session.call("kube", { target: "prod", args: ["logs", "web"] }));
    expect(["headless", "target-inactive"]).toContain(outcome.decision.source);
    return outcome.decision.source === "headless";
  }

  async function cliViews(): Promise<{ show: boolean; list: boolean; status: boolean }> {
    const show = jsonOutput(await runChecked(["target", "show", "kube", "prod", "--json"], env)) as { lease: { active: boolean } };
    const list = jsonOutput(await runChecked(["target", "list", "kube", "--json"], env)) as { targets: { name: string; active: boolean }[] };
    const status = jsonOutput(await runChecked(["target", "status", "kube", "--json"], env)) as { leases: { target: string; current: boolean }[] };
    return {
      show: show.lease.active,
      list: list.targets.some((entry) => entry.name === "prod" && entry.active),
      status: status.leases.some((entry) => entry.target === "prod" && entry.current),
    };
  }

  const offsets: readonly (readonly [string, number, boolean])[] = [
    ["expired a minute ago", -MINUTE, false],
    ["expires in 10 minutes", 10 * MINUTE, true],
    ["expires in a day (the longest lease)", 1440 * MINUTE - 5_000, true],
    ["expires beyond a day plus the skew allowance", 1442 * MINUTE, false],
    ["expires in two days", 2880 * MINUTE, false],
    ["expires in ten years", 10 * 365 * 1440 * MINUTE, false],
  ];

  beforeAll(async () => {
    await runChecked(["target", "activate", "kube", "prod", "--for", "30"], env);
  });

  test.each(offsets)("a lease that %s", async (_name, offset, expected) => {
    setExpiry(offset);
    const server = await serverActive();
    expect(server).toBe(expected);
    expect(await cliViews()).toEqual({ show: server, list: server, status: server });
  });
});

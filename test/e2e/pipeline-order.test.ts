/**
 * The order of the pipeline is a security property: a denied call must stop
 * before any .env read, lifecycle command or spawn. Each provider here points
 * at sentinels: its command is `must-not-run`, its validate command is
 * `validate-sentinel` (both write a marker when run). The `envguard` and
 * target-aware providers' `.env` files are directories, so reading one fails the
 * call with an error instead of the expected deny. The `awsguard` provider's
 * account check goes to a local STS stub, which must see no request from a
 * denied call. The `environment`-strategy
 * providers guard the session store: `sessguard`'s session file is a directory
 * (reading it denies `session-invalid` instead of the expected deny), and
 * `sessfresh` has no `identities/` directory, which the scope lock would create.
 * Positive controls prove the sentinels fire when a call is allowed.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";
import { startStsStub, type StsStub } from "../support/sts-stub.js";

function sentinelProvider(name: string, extra = ""): string {
  return `version: "1"
name: ${name}
tool: ${name}
command: must-not-run
auth:
  strategy: inherited
  validate: {command: validate-sentinel, args: []}
policy:
  forbidden_args: [--raw]
argv:
  parser: pflag
  options:
    - {name: --namespace, short: -n, value: required}
    - {name: --server, short: -s, value: required}
    - {name: --raw, value: required}
${extra}`;
}

/** An environment-strategy sentinel: its session must not be read, nor its scope locked, on a denied path. */
function sessionProvider(name: string): string {
  return sentinelProvider(name, "targeting:\n  locked_options: [--server]\n").replace(
    "  strategy: inherited\n",
    "  strategy: environment\n  fields:\n    - {name: TOKEN, label: Token, secret: true}\n",
  );
}

const RULES = 'version: "1"\ndeny: [delete]\naccept: [get pods]\n';

/** An aws_profile provider whose account check goes to the STS stub through the profile in the server's HOME. */
const AWS_GUARD = `version: "1"
name: awsguard
tool: awsguard
command: recorder
targeting:
  mode: aws_profile
auth:
  strategy: inherited
  identity: {command: must-not-run, args: [], field: Account}
argv:
  parser: pflag
  options:
    - {name: --profile, value: required}
    - {name: --region, value: required}
    - {name: --endpoint-url, value: required}
    - {name: --no-sign-request, value: none}
    - {name: --ca-bundle, value: required}
    - {name: --no-verify-ssl, value: none}
`;

let bin: FakeBin;
let session: McpSession;
let root: string;
let sts: StsStub;

beforeAll(async () => {
  sts = await startStsStub({ identities: { AKIAGUARD: { account: "111122223333" } } });
  const home = makeConfigTree({
    ".aws/config": `[profile guard]\nregion = eu-west-1\nendpoint_url = ${sts.url}\n`,
    ".aws/credentials": "[guard]\naws_access_key_id = AKIAGUARD\naws_secret_access_key = guard-secret\n",
  });
  bin = makeFakeBin({}, ["must-not-run", "validate-sentinel"]);
  root = makeConfigTree({
    "providers/sentinel/provider.yaml": sentinelProvider("sentinel", "targeting:\n  locked_options: [--server]\n"),
    "providers/sentinel/rules.yaml": RULES,
    "providers/kube/provider.yaml": sentinelProvider("kube", "targeting:\n  mode: kubectl_context\n"),
    "providers/kube/rules.yaml": RULES,
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: plainidp}\n',
    "providers/plainidp/provider.yaml": 'version: "1"\nname: plainidp\ntool: plainidp\ncommand: must-not-run\n',
    "providers/plainidp/rules.yaml": 'version: "1"\n',
    "providers/envguard/provider.yaml": sentinelProvider("envguard", "targeting:\n  locked_options: [--server]\n"),
    "providers/envguard/rules.yaml": RULES,
    "providers/sessguard/provider.yaml": sessionProvider("sessguard"),
    "providers/sessguard/rules.yaml": RULES,
    "providers/sessfresh/provider.yaml": sessionProvider("sessfresh"),
    "providers/sessfresh/rules.yaml": RULES,
    "providers/control/provider.yaml": sentinelProvider("control"),
    "providers/control/rules.yaml": RULES,
    "providers/awsguard/provider.yaml": AWS_GUARD,
    "providers/awsguard/rules.yaml": RULES,
    "providers/awsguard/targets/prod/target.yaml": 'version: "1"\nname: prod\nidentity: {provider: awsguard, profile: guard, expect: "111122223333"}\n',
    "providers/awsguard/targets/idle/target.yaml": 'version: "1"\nname: idle\nidentity: {provider: awsguard, profile: guard, expect: "111122223333"}\n',
  });
  expect((await runCli(["target", "activate", "awsguard", "prod"], { TORII_CONFIG_DIR: root })).status).toBe(0);
  // A .env that fails if anything reads it.
  mkdirSync(path.join(root, "providers/envguard/.env"));
  mkdirSync(path.join(root, "providers/kube/.env"));
  mkdirSync(path.join(root, "providers/kube/targets/prod/.env"));
  mkdirSync(path.join(root, "providers/plainidp/.env"));
  // A session store that fails if anything reads it.
  mkdirSync(path.join(root, "providers/sessguard/identities/sessguard/session.yaml"), { recursive: true });
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, HOME: home });
});

afterAll(async () => {
  await session.close();
  await sts.close();
});

function expectNothingTouched(): void {
  expect(bin.ran("must-not-run"), "the provider command ran").toBe(false);
  expect(bin.ran("validate-sentinel"), "the validate command ran").toBe(false);
}

describe("denied paths stop before .env, lifecycle and spawn", () => {
  test("explicit_deny_does_not_load_environment_or_authentication", async () => {
    const result = await session.call("sentinel", { args: ["delete", "pod", "x"] });
    expect(result.isError).toBe(true);
    expect(outcomeOf(result).decision).toMatchObject({ result: "deny", source: "explicit-deny", rule: "delete" });
    expectNothingTouched();
  });

  test("denied_calls_never_read_the_env_file", async () => {
    for (const args of [
      ["delete", "pod", "x"],
      ["get", "pods", "--raw=/x"],
      ["get", "pods", "-shttps://evil"],
      ["logs", "x"],
    ]) {
      const outcome = outcomeOf(await session.call("envguard", { args }));
      expect(outcome.decision.result, args.join(" ")).toBe("deny");
      expect(outcome.error, args.join(" ")).toBeUndefined();
    }
  });

  test("forbidden_argument_is_denied_before_environment_or_spawn", async () => {
    const outcome = outcomeOf(await session.call("sentinel", { args: ["get", "pods", "--raw=/api"] }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "forbidden-arg" });
    expectNothingTouched();
  });

  test("locked_option_is_rejected_before_environment_or_spawn", async () => {
    for (const args of [
      ["get", "pods", "--server=https://evil"],
      ["get", "pods", "-shttps://evil"],
      ["-nx", "-s", "https://evil", "get", "pods"],
    ]) {
      const outcome = outcomeOf(await session.call("sentinel", { args }));
      expect(outcome.decision, args.join(" ")).toMatchObject({ result: "deny", source: "locked-option" });
    }
    expectNothingTouched();
  });

  test("headless_unresolved_is_default_deny_before_session_loading", async () => {
    const outcome = outcomeOf(await session.call("sentinel", { args: ["logs", "web-1"] }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "headless" });
    expect(outcome.decision.grants?.exact.tokens).toEqual(["logs", "web-1"]);
    expect(outcome.decision.grants?.exact.command).toBe("torii grant add sentinel --exact -- logs web-1");
    expectNothingTouched();
  });

  test("inactive_target_is_denied_before_environment_authentication_or_spawn", async () => {
    const outcome = outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" }));
    expect(outcome).toMatchObject({ provider: "kube", target: "prod", decision: { result: "deny", source: "target-inactive" } });
    expectNothingTouched();
  });

  test("denied_aws_calls_make_no_sts_request", async () => {
    for (const [args, target, source] of [
      [["delete", "pod", "x"], "prod", "explicit-deny"],
      [["get", "pods", "--profile=other"], "prod", "locked-option"],
      [["get", "pods"], "idle", "target-inactive"],
      [["logs", "x"], "prod", "headless"],
    ] as const) {
      const outcome = outcomeOf(await session.call("awsguard", { args, target }));
      expect(outcome.decision, args.join(" ")).toMatchObject({ result: "deny", source });
    }
    expect(sts.requests).toEqual([]);
    expectNothingTouched();
  });

  test("denied_calls_never_read_the_session_store_or_take_the_scope_lock", async () => {
    for (const tool of ["sessguard", "sessfresh"]) {
      for (const [args, source] of [
        [["delete", "pod", "x"], "explicit-deny"],
        [["get", "pods", "--raw=/x"], "forbidden-arg"],
        [["get", "pods", "-shttps://evil"], "locked-option"],
        [["logs", "x"], "headless"],
      ] as const) {
        const outcome = outcomeOf(await session.call(tool, { args: [...args] }));
        expect(outcome.decision, `${tool} ${args.join(" ")}`).toMatchObject({ result: "deny", source });
      }
    }
    expect(existsSync(path.join(root, "providers/sessfresh/identities")), "the scope lock was taken").toBe(false);
    expectNothingTouched();
  });

  test("explicit_deny_reports_the_selected_target_without_a_lease_question", async () => {
    const outcome = outcomeOf(await session.call("kube", { args: ["delete", "pod", "x"], target: "prod" }));
    expect(outcome).toMatchObject({ target: "prod", decision: { source: "explicit-deny" } });
    expectNothingTouched();
  });
});

describe("positive control: the sentinels do fire on an allowed call", () => {
  test("an allowed call reads the .env (here: fails on it) before it would spawn", async () => {
    const result = await session.call("envguard", { args: ["get", "pods"] });
    const outcome = outcomeOf(result);
    expect(result.isError).toBe(true);
    expect(outcome.decision).toMatchObject({ result: "allow", source: "rules" });
    expect(outcome.error).toMatch(/\.env/u);
    expect(bin.ran("must-not-run")).toBe(false);
  });

  test("an allowed call reads the session store (here: fails on it) and takes the scope lock", async () => {
    const guarded = outcomeOf(await session.call("sessguard", { args: ["get", "pods"] }));
    expect(guarded.decision).toMatchObject({ result: "deny", source: "session-invalid" });
    expect(guarded.decision.reason).toContain("cannot be used (unsafe-path)");
    const fresh = outcomeOf(await session.call("sessfresh", { args: ["get", "pods"] }));
    expect(fresh.decision.reason).toContain("`torii auth login sessfresh`");
    expect(existsSync(path.join(root, "providers/sessfresh/identities/sessfresh"))).toBe(true);
    expect(bin.ran("must-not-run")).toBe(false);
  });

  test("an allowed aws_profile call makes the STS request, then runs the program", async () => {
    const outcome = outcomeOf(await session.call("awsguard", { args: ["get", "pods"], target: "prod" }));
    expect(outcome.decision).toMatchObject({ result: "allow", source: "rules" });
    expect(outcome.execution?.exit_code).toBe(0);
    expect(sts.requests).toEqual([expect.objectContaining({ action: "GetCallerIdentity", accessKeyId: "AKIAGUARD" })]);
  });

  test("an allowed call runs the validate command, then the program", async () => {
    const outcome = outcomeOf(await session.call("control", { args: ["get", "pods", "-n", "web"] }));
    expect(outcome.decision).toMatchObject({ result: "allow", source: "rules", rule: "get pods" });
    expect(outcome.execution?.exit_code).toBe(0);
    expect(bin.ran("validate-sentinel")).toBe(true);
    expect(bin.ran("must-not-run")).toBe(true);
  });
});

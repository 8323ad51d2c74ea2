/**
 * Commands that print a credential usable outside Torii (docs/policy.md,
 * "Credential issuers") are locked commands of the bundled providers: generated
 * for aws, az and gcloud from the CLIs' own data and a reviewed verdict table
 * (scripts/providers/*_credential_issuers.py), reviewed by hand for kubectl. No
 * accept rule, however broad, lets one through; the decision is a deny, so the
 * pipeline never asks a grant or a human. The reads a target needs stay with
 * the policy. That the listings agree with the installed CLIs is checked by
 * test/real-cli/credential-issuers-listings.test.ts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { rowsPerTrack } from "../../../src/config/release-tracks.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { LockedCommand } from "../../../src/policy/grammar/types.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const at = (file: string): string => fileURLToPath(new URL(`../../../${file}`, import.meta.url));
const ISSUER = "it prints a credential usable outside Torii";
const PROVIDERS = ["aws", "az", "gcloud"] as const;
const contexts = Object.fromEntries(["aws", "az", "gcloud", "kubectl"].map((name) => [name, bundledPolicyContext(name)])) as Record<
  string,
  ProviderPolicyContext
>;

const decide = (ctx: ProviderPolicyContext, accept: readonly string[], argv: readonly string[]) =>
  evaluatePolicy(compilePolicy(ctx, { shared: ruleList([], accept) }), argv).decision;

/** The generated issuer rows of a provider, as the server reads them (provider.generated.json), one per release track. */
function generatedRows(name: string): LockedCommand[] {
  const json = JSON.parse(readFileSync(at(`providers/${name}/provider.generated.json`), "utf8")) as {
    document: { targeting: { locked_commands: { command: string[]; except?: string[]; why: string; tracks?: string[] }[] } };
  };
  const rows = rowsPerTrack(json.document.targeting.locked_commands);
  return rows.filter((row) => row.why.startsWith(ISSUER)).map((row) => ({ ...row, except: row.except ?? [] }));
}

/** The commands the generator's listing marks `issues` (release track and output path dropped). */
function listedIssuers(name: string): string[] {
  const lines = readFileSync(at(`scripts/providers/${name}-credential-issuers.txt`), "utf8").split("\n");
  const words = (line: string): string[] => line.split("  # ")[0]!.split(" ");
  return (
    lines
      .filter((line) => line.endsWith("# issues"))
      // An aws model line is `service command output.path`; a custom line names a whole path (`cloudformation deploy register (custom)`).
      .map((line) =>
        (name === "aws" && !line.includes("(custom)") ? words(line).slice(0, 2) : words(line).filter((word) => word !== "(extra)" && word !== "(custom)")).join(
          " ",
        ),
      )
      .filter((path, index, all) => all.indexOf(path) === index)
  );
}

describe.each(PROVIDERS)("%s: every generated credential issuer is refused whatever the rules", (name) => {
  const ctx = contexts[name]!;
  const rows = generatedRows(name);

  it("the provider lists every issuer of the listing, in every release track for gcloud", () => {
    const locked = new Set(rows.map((row) => row.command.join(" ")));
    for (const path of listedIssuers(name)) {
      expect(locked.has(path), path).toBe(true);
      if (name === "gcloud") for (const track of ["alpha", "beta", "preview"]) expect(locked.has(`${track} ${path}`), `${track} ${path}`).toBe(true);
    }
    expect(rows.length).toBeGreaterThan(name === "gcloud" ? 100 : 50);
  });

  it("under accept /.*/, under an accept of its first word and under an accept of its whole path", () => {
    for (const row of rows) {
      const argv = [...row.command, "x"];
      for (const accept of [["/.*/"], [row.command[0]!], [row.command.join(" ")]]) {
        expect(decide(ctx, accept, argv), `${argv.join(" ")} under ${accept[0]!}`).toMatchObject({ result: "deny", source: "locked-command" });
      }
    }
  });
});

describe("spellings the CLIs read as the same command are refused alike", () => {
  it.each([
    ["aws", ["iam", "create-access-key", "--user-name", "u"]],
    ["aws", ["--output", "json", "iam", "create-access-key"]],
    ["aws", ["iam", "--output=json", "create-access-key"]],
    ["aws", ["iam", "--", "create-access-key"]],
    ["aws", ["--", "sso", "--", "get-role-credentials", "--role-name", "r", "--account-id", "1", "--access-token", "t"]],
    ["aws", ["ecr", "get-login-password"]],
    ["aws", ["eks", "get-token", "--cluster-name", "c"]],
    ["aws", ["rds", "generate-db-auth-token", "--hostname", "h", "--port", "5432", "--username", "u"]],
    ["aws", ["s3", "presign", "s3://b/k"]],
    ["aws", ["redshift", "get-cluster-credentials", "--db-user", "u", "--cluster-identifier", "c"]],
    ["aws", ["lightsail", "get-instance-access-details", "--instance-name", "i"]],
    // Members botocore marks sensitive under names no credential word covers (red team 11 F4).
    ["aws", ["ec2", "create-key-pair", "--key-name", "k"]],
    ["aws", ["mwaa", "create-cli-token", "--name", "env"]],
    [
      "aws",
      ["grafana", "create-workspace-service-account-token", "--workspace-id", "w", "--name", "t", "--seconds-to-live", "60", "--service-account-id", "s"],
    ],
    ["aws", ["iotsecuretunneling", "open-tunnel"]],
    ["aws", ["bedrock-agentcore", "get-workload-access-token", "--workload-name", "w"]],
    ["aws", ["chime-sdk-meetings", "create-attendee", "--meeting-id", "m", "--external-user-id", "u"]],
    ["aws", ["connect", "start-web-rtc-contact", "--instance-id", "i", "--contact-flow-id", "f", "--participant-details", "DisplayName=x"]],
    ["aws", ["finspace", "get-kx-connection-string", "--user-arn", "u", "--environment-id", "e", "--cluster-name", "c"]],
    ["aws", ["cognito-idp", "associate-software-token", "--session", "s"]],
    ["aws", ["route53globalresolver", "create-access-token", "--dns-view-id", "d"]],
    // An SSM hybrid activation: any machine registers with it and then receives the named role's credentials.
    ["aws", ["ssm", "create-activation", "--iam-role", "AmazonSSMRoleForInstancesQuickSetup", "--registration-limit", "1000"]],
    ["aws", ["eks", "register-cluster", "--name", "c", "--connector-config", "roleArn=arn:aws:iam::1:role/r,provider=OTHER"]],
    // AWS CLI v2 only (the generator reads the v1 CLI): an Aurora DSQL password, valid up to a week.
    ["aws", ["dsql", "generate-db-connect-auth-token", "--hostname", "c.dsql.us-east-1.on.aws"]],
    ["aws", ["dsql", "generate-db-connect-admin-auth-token", "--hostname", "c.dsql.us-east-1.on.aws", "--expires-in", "604800"]],
    ["aws", ["--output", "text", "dsql", "--", "generate-db-connect-admin-auth-token"]],
    ["az", ["account", "get-access-token"]],
    ["az", ["--only-show-errors", "account", "get-access-token", "--resource", "https://vault.azure.net"]],
    ["az", ["ad", "sp", "credential", "reset", "--id", "x"]],
    ["az", ["storage", "account", "keys", "list", "-n", "a", "-g", "g"]],
    ["az", ["acr", "login", "-n", "r", "--expose-token"]],
    ["az", ["storage", "blob", "generate-sas", "-c", "c", "-n", "b"]],
    ["gcloud", ["auth", "print-access-token"]],
    ["gcloud", ["beta", "auth", "print-identity-token"]],
    ["gcloud", ["auth", "application-default", "print-access-token"]],
    ["gcloud", ["--quiet", "config", "config-helper", "--format=json"]],
    ["gcloud", ["alpha", "iam", "service-accounts", "keys", "create", "k.json", "--iam-account=sa"]],
    ["gcloud", ["container", "clusters", "get-credentials", "c"]],
    ["gcloud", ["sql", "generate-login-token"]],
    ["kubectl", ["create", "token", "default"]],
    ["kubectl", ["-n", "kube-system", "create", "token", "admin", "--duration=8760h"]],
  ])("%s %j", (name, argv) => {
    expect(decide(contexts[name]!, ["/.*/"], argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it.each([
    [["config", "view", "--raw"]],
    [["config", "view", "--raw=true", "-o", "json"]],
    [["config", "view", "--flatten"]],
    [["config", "view", "--raw=false", "--flatten", "--minify"]],
    // Plain view redacts tokens and keys but prints an auth-provider's config and an exec plugin's env.
    [["config", "view"]],
    [["config", "view", "--minify"]],
    [["config", "view", "-o", "jsonpath={.users[0].user.auth-provider.config.refresh-token}"]],
    [["-n", "kube-system", "config", "view"]],
  ])("kubectl %j prints the kubeconfig's credentials: refused under accept /.*/", (argv) => {
    expect(decide(contexts.kubectl!, ["/.*/"], argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  // `create --raw URI -f FILE` POSTs FILE to any API path: the serviceaccounts/<name>/token subresource
  // mints a token as `create token` does (the API server reads any JSON object as a TokenRequest).
  it.each([
    [["/.*/"], ["create", "--raw", "/api/v1/namespaces/default/serviceaccounts/default/token", "-f", "-"]],
    [["/.*/"], ["create", "--raw=/api/v1/namespaces/kube-system/serviceaccounts/admin/token", "--filename=-"]],
    [["create"], ["create", "--raw", "/api/v1/namespaces/default/serviceaccounts/default/token", "-f", "package.json"]],
    [["create"], ["create", "-f", "package.json", "--raw", "/api/v1/namespaces/default/serviceaccounts/default/token"]],
    [["create --raw"], ["create", "--raw", "/api//v1/namespaces/default/serviceaccounts/default/token/", "-f", "-"]],
  ])("kubectl under accept %j: %j (a raw POST to a token subresource) is refused", (accept, argv) => {
    expect(decide(contexts.kubectl!, accept, argv)).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it("kubectl [config --raw view] is refused too (an option before the command is not kubectl's)", () => {
    expect(decide(contexts.kubectl!, ["/.*/"], ["config", "--raw", "view"]).result).toBe("deny");
  });

  it("the reason says why and quotes no agent token", () => {
    const decision = decide(contexts.aws!, ["iam"], ["iam", "create-access-key", "--user-name", "s3cr3t-user"]);
    expect(decision.reason).toContain(ISSUER);
    expect(decision.reason).toContain("No rule, grant or approval can allow them");
    expect(decision.reason).not.toContain("s3cr3t");
  });
});

describe("the reads a target needs stay with the policy", () => {
  it.each([
    ["aws", ["sts", "get-caller-identity"]],
    ["aws", ["sts", "get-access-key-info", "--access-key-id", "AKIAEXAMPLE"]],
    ["aws", ["sts", "decode-authorization-message", "--encoded-message", "m"]],
    ["aws", ["iam", "list-access-keys"]],
    ["aws", ["ecr", "describe-repositories"]],
    ["aws", ["secretsmanager", "get-secret-value", "--secret-id", "s"]],
    ["aws", ["rds", "describe-db-instances"]],
    ["aws", ["ssm", "describe-activations"]],
    ["aws", ["eks", "describe-cluster", "--name", "c"]],
    ["aws", ["kms", "decrypt", "--ciphertext-blob", "AQIDBA=="]],
    ["aws", ["kms", "generate-data-key-pair", "--key-id", "k", "--key-pair-spec", "RSA_2048"]],
    ["az", ["account", "show"]],
    ["az", ["storage", "account", "list"]],
    ["az", ["keyvault", "secret", "show", "--vault-name", "v", "-n", "s"]],
    ["gcloud", ["auth", "list"]],
    ["gcloud", ["config", "list"]],
    ["gcloud", ["secrets", "versions", "access", "1", "--secret=s"]],
    ["gcloud", ["iam", "service-accounts", "keys", "list", "--iam-account=sa"]],
    ["kubectl", ["config", "get-contexts"]],
    ["kubectl", ["config", "current-context"]],
    ["kubectl", ["create", "deployment", "d", "--image=i"]],
    ["kubectl", ["get", "secret", "s", "-o", "yaml"]],
  ])("%s %j is accepted by accept /.*/", (name, argv) => {
    expect(decide(contexts[name]!, ["/.*/"], argv).result).toBe("accept");
  });
});

// The AWS part of `npm run demo`: an aws_profile target whose account Torii
// confirms through STS (the AWS SDK, GetCallerIdentity) before the real `aws`
// CLI runs. STS is the local stub of scripts/sts-stub.mjs; the operator's
// scratch AWS config points the demo profile at it (endpoint_url), and the
// provider's .env (an operator-owned file) names that config.
import { spawnSync } from "node:child_process";
import { copyFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startStsStub } from "./sts-stub.mjs";

const ACCOUNT = "123456789012";

/** Writes the aws provider, the scratch AWS config and the .env into `root`, and activates both demo targets. */
export async function prepareAwsDemo(repo, root, env) {
  const stub = await startStsStub({ identities: { AKIADEMOSTUB0001: { account: ACCOUNT } } });
  const aws = path.join(root, "providers", "aws");
  copyFileSync(path.join(repo, "providers/aws/provider.yaml"), path.join(aws, "provider.yaml"));
  copyFileSync(path.join(repo, "providers/aws/provider.generated.json"), path.join(aws, "provider.generated.json"));
  writeFileSync(path.join(root, "aws-config"), `[profile demo]\nregion = eu-west-1\nendpoint_url = ${stub.url}\n`, { mode: 0o600 });
  writeFileSync(path.join(root, "aws-credentials"), "[demo]\naws_access_key_id = AKIADEMOSTUB0001\naws_secret_access_key = demo-secret-not-real\n", {
    mode: 0o600,
  });
  writeFileSync(
    path.join(aws, ".env"),
    `AWS_CONFIG_FILE=${path.join(root, "aws-config")}\nAWS_SHARED_CREDENTIALS_FILE=${path.join(root, "aws-credentials")}\n`,
    {
      mode: 0o600,
    },
  );
  for (const target of ["sandbox", "wrong-account"]) {
    spawnSync(process.execPath, [path.join(repo, "dist/cli.js"), "target", "activate", "aws", target, "--for", "5", "--add"], { env, shell: false });
  }
  return stub;
}

/** The demo calls: the matching account is allowed and the CLI runs; the other is denied before it runs. */
export async function runAwsDemo(call, say, stub) {
  say(`── AWS: both targets use profile "demo", which reaches account ${ACCOUNT} (STS at ${stub.url})\n`);
  await call("The account matches the target's pin: STS confirms it, then the aws CLI runs", "aws", {
    args: ["sts", "get-caller-identity"],
    target: "sandbox",
  });
  await call("The operator pinned another account: denied before the CLI runs", "aws", { args: ["sts", "get-caller-identity"], target: "wrong-account" });
  const by = (prefix) => stub.requests.filter((request) => request.userAgent.startsWith(prefix)).length;
  say(`   the STS stub saw ${by("aws-sdk-js/")} account check(s) from Torii and ${by("aws-cli/")} request(s) from the aws CLI\n`);
  await stub.close();
}

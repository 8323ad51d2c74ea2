import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadTargetDocument } from "../../../src/config/target-schema.js";
import type { TargetConfig, TargetOwner } from "../../../src/config/target-schema.js";
import { expectConfigErrorAt, tempDir, writeTree, yaml } from "./temp-tree.js";

const KUBE: TargetOwner = { name: "kubectl", mode: "kubectl_context" };
const AWS: TargetOwner = { name: "aws", mode: "aws_profile" };
const CREDENTIALS: TargetOwner = { name: "gh", mode: "credentials" };

function writeTarget(lines: readonly string[]): string {
  const root = tempDir();
  writeTree(root, { "target.yaml": yaml(...lines) });
  return path.join(root, "target.yaml");
}

function load(owner: TargetOwner, lines: readonly string[]): TargetConfig {
  return loadTargetDocument(writeTarget(lines), owner).value;
}

function expectTargetError(owner: TargetOwner, lines: readonly string[], line: number, column: number, detail: RegExp): void {
  const file = writeTarget(lines);
  expectConfigErrorAt(() => loadTargetDocument(file, owner), file, line, column, detail);
}

/** A valid kubectl_context target; lines 1..5. */
const KUBE_TARGET = ['version: "1"', "name: prod", "context: prod-cluster", "identity:", "  provider: aws-sso"];
/** A valid aws_profile target; lines 1..7. */
const AWS_TARGET = ['version: "1"', "name: prod", "identity:", "  provider: aws", "  profile: prod-admin", '  expect: "012345678901"', "region: eu-west-1"];
/** A valid credentials target; lines 1..4. */
const CREDENTIALS_TARGET = ['version: "1"', "name: work", "identity:", "  provider: gh"];

describe("target.yaml: common fields", () => {
  it("defaults identity.scope to the target name", () => {
    expect(load(KUBE, KUBE_TARGET)).toEqual({
      version: "1",
      name: "prod",
      context: "prod-cluster",
      identity: { provider: "aws-sso", scope: "prod" },
    });
  });

  it("keeps an explicit scope and description", () => {
    const target = load(KUBE, [...KUBE_TARGET, "  scope: shared-sso", "description: Production"]);
    expect(target.identity.scope).toBe("shared-sso");
    expect(target.description).toBe("Production");
  });

  it.each(["prod/eu", "", "a b", "..", "x".repeat(65)])("refuses the name %j", (name) => {
    expectTargetError(KUBE, ['version: "1"', `name: ${JSON.stringify(name)}`, ...KUBE_TARGET.slice(2)], 2, 7, /^.*name: must/);
  });

  it("refuses a scope that could leave its directory", () => {
    expectTargetError(KUBE, [...KUBE_TARGET, "  scope: ../other"], 6, 10, /identity\.scope: must be non-empty and contain only ASCII/);
  });

  it("refuses an unknown field inside identity at its key", () => {
    expectTargetError(KUBE, [...KUBE_TARGET, "  account: 1"], 6, 3, /identity: unknown field "account"/);
  });

  it("requires identity.provider", () => {
    expectTargetError(KUBE, ['version: "1"', "name: prod", "context: c", "identity:", "  scope: s"], 5, 3, /identity: missing required field "provider"/);
  });

  it("refuses a context or profile that starts with -", () => {
    expectTargetError(
      KUBE,
      ['version: "1"', "name: prod", "context: --kubeconfig=/tmp/x", "identity:", "  provider: aws-sso"],
      3,
      10,
      /context: must not start with "-"/,
    );
    expectTargetError(AWS, [...AWS_TARGET.slice(0, 4), "  profile: -x", ...AWS_TARGET.slice(5)], 5, 12, /identity\.profile: must not start with "-"/);
  });

  it("refuses a context or profile holding NEL (U+0085), another C1 control or U+2028 / U+2029, which a YAML reader turns into a space", () => {
    const refused = /must not hold a C1 control character or a Unicode line or paragraph separator/;
    expectTargetError(KUBE, ['version: "1"', "name: prod", 'context: "lab\\u0085x"', "identity:", "  provider: aws-sso"], 3, 10, refused);
    expectTargetError(KUBE, ['version: "1"', "name: prod", 'context: "lab\\u2028x"', "identity:", "  provider: aws-sso"], 3, 10, refused);
    expectTargetError(AWS, [...AWS_TARGET.slice(0, 4), '  profile: "p\\u009bx"', ...AWS_TARGET.slice(5)], 5, 12, refused);
  });

  it("refuses any target of a provider without targeting.mode", () => {
    expectTargetError({ name: "plain", mode: undefined }, CREDENTIALS_TARGET, 1, 1, /provider plain has no targeting\.mode, so it cannot have targets/);
  });
});

describe("target.yaml: kubectl_context", () => {
  it("requires context, pointing at the root map", () => {
    expectTargetError(KUBE, ['version: "1"', "name: prod", "identity:", "  provider: aws-sso"], 1, 1, /context: required for kubectl_context targets/);
  });

  it("refuses region at its key", () => {
    expectTargetError(KUBE, [...KUBE_TARGET, "region: eu-west-1"], 6, 1, /region: only allowed for aws_profile targets/);
  });

  it("takes kubeconfig as one absolute path", () => {
    expect(load(KUBE, [...KUBE_TARGET, "kubeconfig: /etc/kube/prod.yaml"]).kubeconfig).toBe("/etc/kube/prod.yaml");
    expectTargetError(KUBE, [...KUBE_TARGET, "kubeconfig: kube/prod.yaml"], 6, 13, /kubeconfig: must be one absolute path/);
    expectTargetError(KUBE, [...KUBE_TARGET, "kubeconfig: /a:/b"], 6, 13, /kubeconfig: must be one absolute path/);
  });

  it("refuses kubeconfig for other modes", () => {
    expectTargetError(AWS, [...AWS_TARGET, "kubeconfig: /k"], 8, 1, /kubeconfig: only allowed for kubectl_context targets/);
  });
});

describe("target.yaml: aws_profile", () => {
  it("accepts profile, account and region", () => {
    const target = load(AWS, AWS_TARGET);
    expect(target.identity).toEqual({ provider: "aws", profile: "prod-admin", expect: "012345678901", scope: "prod" });
    expect(target.region).toBe("eu-west-1");
  });

  it("refuses context at its key", () => {
    expectTargetError(AWS, [...AWS_TARGET, "context: c"], 8, 1, /context: only allowed for kubectl_context targets/);
  });

  it("requires identity.profile, pointing at the identity map", () => {
    expectTargetError(AWS, [...AWS_TARGET.slice(0, 4), ...AWS_TARGET.slice(5)], 4, 3, /identity\.profile: required for aws_profile targets/);
  });

  it("requires identity.expect, pointing at the identity map", () => {
    expectTargetError(AWS, [...AWS_TARGET.slice(0, 5), ...AWS_TARGET.slice(6)], 4, 3, /identity\.expect: required for aws_profile targets/);
  });

  it.each(['"01234567890"', '"01234567890A"', '"0123456789012"', '"０12345678901"'])("refuses the account id %s", (account) => {
    expectTargetError(AWS, [...AWS_TARGET.slice(0, 5), `  expect: ${account}`, AWS_TARGET[6]!], 6, 11, /identity\.expect: must be a 12-digit AWS account id/);
  });

  it("refuses an unquoted account id, which YAML reads as a number", () => {
    expectTargetError(AWS, [...AWS_TARGET.slice(0, 5), "  expect: 123456789012", AWS_TARGET[6]!], 6, 11, /identity\.expect: must be a string; quote it/);
  });

  it("requires identity.provider to be the provider itself", () => {
    expectTargetError(
      AWS,
      [...AWS_TARGET.slice(0, 3), "  provider: aws-sso", ...AWS_TARGET.slice(4)],
      4,
      13,
      /identity\.provider: must be this provider itself \(aws\)/,
    );
  });

  it("refuses a malformed region", () => {
    expectTargetError(AWS, [...AWS_TARGET.slice(0, 6), "region: eu west 1"], 7, 9, /region: must be ASCII letters/);
  });
});

describe("target.yaml: credentials", () => {
  it("accepts provider, scope and expect", () => {
    expect(load(CREDENTIALS, [...CREDENTIALS_TARGET, "  expect: octocat"]).identity).toEqual({ provider: "gh", scope: "work", expect: "octocat" });
  });

  it("refuses context, identity.profile and region at their keys", () => {
    expectTargetError(CREDENTIALS, [...CREDENTIALS_TARGET, "context: c"], 5, 1, /context: only allowed for kubectl_context targets/);
    expectTargetError(CREDENTIALS, [...CREDENTIALS_TARGET, "region: eu-west-1"], 5, 1, /region: only allowed for aws_profile targets/);
    expectTargetError(CREDENTIALS, [...CREDENTIALS_TARGET, "  profile: p"], 5, 3, /identity\.profile: only allowed for aws_profile targets/);
  });
});

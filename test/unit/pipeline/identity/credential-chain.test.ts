/**
 * credentialChainOf's answers besides its refusals: which profile's
 * credential_process gives the source credentials (its program must not run
 * from the working directory) and whether a role sits on top (then the role's
 * ARN fixes the account, and a success may be remembered).
 */
import { describe, expect, test } from "vitest";
import { credentialChainOf, sourceProfileLinks, type CredentialChain } from "../../../../src/pipeline/identity/credential-chain.js";
import type { IniSection } from "../../../../src/pipeline/identity/sts-endpoint.js";

const sections: Record<string, IniSection> = {
  keys: { aws_access_key_id: "AKIAONE", aws_secret_access_key: "s" },
  proc: { credential_process: "/usr/local/bin/creds" },
  role: { role_arn: "arn:aws:iam::111111111111:role/R", source_profile: "proc" },
  roleOverKeys: { role_arn: "arn:aws:iam::111111111111:role/R", source_profile: "keys" },
  imds: { role_arn: "arn:aws:iam::111111111111:role/R", credential_source: "Ec2InstanceMetadata" },
};
const sectionOf = (name: string): IniSection => sections[name] ?? {};
/** The chain of `name`, along its one walk of the links (as the probe takes it). */
const chainOf = (name: string): CredentialChain => credentialChainOf(sectionOf, name, sourceProfileLinks(sectionOf, name));

describe("credentialChainOf: the source and the role above it", () => {
  test("a credential_process profile: its command and profile, no role above", () => {
    expect(chainOf("proc")).toMatchObject({ process: { command: "/usr/local/bin/creds", profile: "proc" }, underRole: false });
  });
  test("a role whose source_profile runs a credential_process: the process's command and profile, under a role", () => {
    expect(chainOf("role")).toMatchObject({ process: { command: "/usr/local/bin/creds", profile: "proc" }, underRole: true });
  });
  test("static keys, alone or under a role: no process", () => {
    expect(chainOf("keys")).toMatchObject({ process: undefined, underRole: false });
    expect(chainOf("roleOverKeys")).toMatchObject({ process: undefined, underRole: true });
  });
  test("credential_source = Ec2InstanceMetadata: the metadata section, under a role", () => {
    expect(chainOf("imds")).toMatchObject({ metadata: sections.imds, process: undefined, underRole: true });
  });
});

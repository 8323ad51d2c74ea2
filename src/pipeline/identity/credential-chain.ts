/**
 * Which credential source the AWS CLI would use for a profile, and whether the
 * JS SDK (which the probe runs) would use the same one.
 *
 * botocore's order (credentials.py, create_credential_resolver and
 * ProfileProviderBuilder.providers) is: assume role (`role_arn` without
 * `web_identity_token_file`), web identity, SSO, the credentials file's keys,
 * `login_session`, `credential_process`, the config file's keys; a source
 * profile with keys still goes through that chain. The SDK's (fromIni) is:
 * static keys of a source profile, assume role, static keys, web identity,
 * `credential_process`, SSO, `login_session`. The two agree when a profile
 * names one source only, so a profile (the target's or one of its role
 * chain) that names more than one is refused rather than modelled: simpler,
 * and no working CLI setup needs the mix, since the CLI ignores all but one.
 *
 * Also refused: a role with `mfa_serial` (the SDK would need an MFA code the
 * probe cannot give), `login_session` (aws login: the SDK's login provider would
 * get the SSO client settings, and its cache and signin host are not judged
 * here), and a `credential_source` of `Environment` or `EcsContainer` (the SDK
 * reads the server's own environment, the CLI the child's).
 *
 * The same walk says which section's `credential_process` answers (its
 * program must not run from the agent's working directory) and whether a role
 * sits on top of the source: the role's ARN, in the config file, then fixes
 * the account whatever the source answers (what the identity cache may keep).
 */
import path from "node:path";
import { ProbeRefusal } from "./probe-refusal.js";
import type { IniSection } from "./sts-endpoint.js";

/** What the probe must judge besides STS for the profile's credentials. */
export interface CredentialChain {
  /** The section through which SSO is used, if any. */
  readonly sso: IniSection | undefined;
  /** The section whose `credential_source` is `Ec2InstanceMetadata`, if any. */
  readonly metadata: IniSection | undefined;
  /** The `credential_process` that gives the chain's source credentials, if any, and the profile that names it (for messages). */
  readonly process: { readonly command: string; readonly profile: string } | undefined;
  /** Whether a role (`role_arn` with `source_profile` or `credential_source`) is assumed above the source. */
  readonly underRole: boolean;
}

const SSO_KEYS = ["sso_start_url", "sso_account_id", "sso_session", "sso_region", "sso_role_name"];

/** A profile name as messages show it: printable ASCII, else a placeholder. */
export function printable(name: string): string {
  return /^[\x20-\x7e]{1,100}$/u.test(name) ? name : "(a name that is not printable)";
}

/** The credential sources `data` names, in botocore's terms. */
function sourcesOf(data: IniSection): string[] {
  const web = data.web_identity_token_file !== undefined;
  return [
    ...(data.role_arn !== undefined && !web ? ["role_arn"] : []),
    ...(web ? ["web_identity_token_file"] : []),
    ...(SSO_KEYS.some((key) => data[key] !== undefined) ? ["sso_*"] : []),
    ...(data.aws_access_key_id !== undefined || data.aws_secret_access_key !== undefined ? ["aws_access_key_id/aws_secret_access_key"] : []),
    ...(data.credential_process !== undefined ? ["credential_process"] : []),
  ];
}

/**
 * Refuses a section whose session token the two readers would take from
 * different keys. `aws_security_token` is the legacy name of
 * `aws_session_token`: botocore reads it first for a profile's own keys (and
 * ignores it for a role's source profile), the SDK never reads it. So a
 * non-empty one is held to what `aws_session_token` is: it passes only when
 * `aws_session_token` holds the very same value, when both readers sign with
 * the same token. (An empty one is refused by the INI dialect check, since it
 * hides `aws_session_token` from botocore.) Values are compared, never shown.
 *
 * @throws ProbeRefusal LegacySessionTokenNotSupported.
 */
function assertOneSessionToken(data: IniSection, label: string): void {
  const legacy = data.aws_security_token;
  if (legacy === undefined || legacy === "" || legacy === data.aws_session_token) return;
  throw new ProbeRefusal(
    "LegacySessionTokenNotSupported",
    `${label} holds aws_security_token (the legacy name of aws_session_token) with another value than aws_session_token; ` +
      "the AWS CLI and the account check would sign with different tokens: rename it to aws_session_token",
  );
}

/**
 * Refuses a `web_identity_token_file` named by a relative path (`~/` and `$VAR`
 * included: neither reader expands them). The CLI reads it in the call's
 * working directory, the agent's project; the SDK in the server's, and first
 * in its token record, by that very string (where `exec` is the
 * credential_process runner: process-runner.ts).
 *
 * @throws ProbeRefusal RelativeWebIdentityTokenFile.
 */
function assertTokenFileAbsolute(data: IniSection, label: string): void {
  const file = data.web_identity_token_file;
  if (file === undefined || path.isAbsolute(file)) return;
  throw new ProbeRefusal(
    "RelativeWebIdentityTokenFile",
    `${label} names its web_identity_token_file by a relative path, which the AWS CLI would read in the call's working directory, the agent's project: write its absolute path`,
  );
}

/** The profiles a profile's `source_profile` links lead through, from it, each once. */
export interface SourceProfileLinks {
  readonly profiles: readonly string[];
  /** The names along the links when one leads back to a profile already on the way (`p -> b -> p`). */
  readonly loop: readonly string[] | undefined;
}

/**
 * The one walk of `name`'s `source_profile` links, every link followed whatever the sections hold: what the
 * loop refusal, the INI dialect check (ini-dialect.ts) and the credential walk below are judged on.
 */
export function sourceProfileLinks(sectionOf: (profile: string) => IniSection, name: string): SourceProfileLinks {
  const profiles: string[] = [];
  for (let current: string | undefined = name; current !== undefined; current = sectionOf(current).source_profile) {
    if (profiles.includes(current)) return { profiles, loop: [...profiles, current] };
    profiles.push(current);
  }
  return { profiles, loop: undefined };
}

/**
 * Refuses a `source_profile` link that leads back to a profile already on the
 * way (`a -> a`, `a -> b -> a`), whatever else the sections hold. botocore
 * accepts one shape of it (a role profile naming itself beside static keys)
 * and fails the others (InfiniteLoopConfigError); the SDK fails them all, as a
 * missing-credentials error the operator would read as "log in again". No
 * working setup needs the loop (a role over keys is two sections), so every
 * loop is refused before anything is read or run, naming the profiles.
 *
 * @throws ProbeRefusal SourceProfileCycle.
 */
function assertNoSourceProfileCycle(links: SourceProfileLinks, name: string): void {
  if (links.loop === undefined) return;
  throw new ProbeRefusal(
    "SourceProfileCycle",
    `AWS profile ${printable(name)} takes its credentials through a source_profile loop (${links.loop.map(printable).join(" -> ")}); ` +
      "neither the AWS CLI nor the account check can resolve it: point source_profile at a profile with its own credentials",
  );
}

/**
 * The chain of `name`, each profile's section given by `sectionOf` (the config
 * file's, the credentials file's keys over it), along `links` (the caller's one
 * walk of them): only the sections the chain reaches are judged, up to the first
 * that gives credentials of its own, past which neither reader follows a link.
 *
 * @throws ProbeRefusal SourceProfileCycle, RelativeWebIdentityTokenFile, LegacySessionTokenNotSupported, AmbiguousCredentialSource, LoginSessionNotSupported, CredentialSourceNotSupported, MfaProfileNotSupported.
 */
export function credentialChainOf(sectionOf: (profile: string) => IniSection, name: string, links: SourceProfileLinks): CredentialChain {
  assertNoSourceProfileCycle(links, name);
  let underRole = false;
  const none = { sso: undefined, metadata: undefined, process: undefined };
  // Each profile after the first is the source_profile of the one before: a role's, the only link followed below.
  for (const current of links.profiles) {
    const data = sectionOf(current);
    const label = `AWS profile ${printable(current)}`;
    if (data.login_session !== undefined) {
      throw new ProbeRefusal("LoginSessionNotSupported", `${label} uses login_session (aws login), which the account check does not model; use SSO or keys`);
    }
    assertOneSessionToken(data, label);
    assertTokenFileAbsolute(data, label);
    const sources = sourcesOf(data);
    const roleSource = data.source_profile !== undefined || data.credential_source !== undefined;
    if (sources.length > 1 || (data.web_identity_token_file !== undefined && roleSource)) {
      throw new ProbeRefusal(
        "AmbiguousCredentialSource",
        `${label} names more than one credential source (${sources.join(", ")}${roleSource ? ", source_profile/credential_source" : ""}); the AWS CLI and the account check would choose differently: keep one`,
      );
    }
    if (sources[0] === "sso_*") return { ...none, sso: data, underRole };
    if (data.credential_process !== undefined && sources[0] === "credential_process") {
      return { ...none, process: { command: data.credential_process, profile: current }, underRole };
    }
    if (sources[0] !== "role_arn") return { ...none, underRole };
    // The SDK asks an MFA code callback the probe cannot give, and the CLI's own cache (~/.aws/cli/cache) is
    // not the SDK's: such a role would only ever fail as "log in again", which cannot help.
    if (data.mfa_serial !== undefined) {
      throw new ProbeRefusal(
        "MfaProfileNotSupported",
        `${label} assumes its role with mfa_serial (an MFA code), which the account check cannot ask for; use an SSO profile, a credential_process (such as aws-vault) or a profile with session credentials`,
      );
    }
    underRole ||= roleSource;
    if (data.credential_source !== undefined) {
      if (data.credential_source === "Ec2InstanceMetadata") return { ...none, metadata: data, underRole };
      throw new ProbeRefusal(
        "CredentialSourceNotSupported",
        `${label} takes credential_source ${data.credential_source === "Environment" || data.credential_source === "EcsContainer" ? data.credential_source : "(unknown)"}, which the account check would read from the server's environment, not the call's`,
      );
    }
  }
  return { ...none, underRole };
}

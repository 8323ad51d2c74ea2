/**
 * GetCallerIdentity through `@aws-sdk/client-sts`, with the credentials,
 * region and endpoint the AWS CLI call will use (see aws-call-plan.ts and
 * sts-endpoint.ts). Loaded with a dynamic import, so a server without
 * aws_profile targets never loads the SDK.
 *
 * Nothing here reads the server's own environment: the credentials come from
 * the profile in the child's config and credentials files (`fromIni`), and the
 * region, endpoint and FIPS/dual-stack switches are passed explicitly, with the
 * SDK's own lookup of configured endpoints turned off. Results carry error
 * names and codes only, never a message that could echo a credential.
 */
import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import path from "node:path";
import { GetCallerIdentityCommand, STSClient, getDefaultRoleAssumer, getDefaultRoleAssumerWithWebIdentity } from "@aws-sdk/client-sts";
import { fromIni } from "@aws-sdk/credential-provider-ini";
import { getHomeDir, loadSharedConfigFiles } from "@smithy/core/config";
import type { StsProbeInputs } from "./aws-call-plan.js";
import { BoundedBodyHttpHandler } from "./bounded-handler.js";
import { chainRunsFromWorkingDirectory, processLineRunsFromWorkingDirectory } from "./process-line.js";
import { ssoProxyOf, stsRouteOf, type IniSection } from "./sts-endpoint.js";

/** Bounds of one probe: connection and response timeouts per attempt, attempts, and the whole probe. */
export const STS_PROBE_LIMITS = Object.freeze({ connectionTimeoutMs: 3_000, requestTimeoutMs: 10_000, maxAttempts: 2, totalMs: 30_000 });

export type StsProbeResult =
  | {
      readonly kind: "identity";
      readonly account: string;
      readonly expiresAt: Date | undefined;
      /**
       * Whether the account follows from what the credential-source fingerprint covers (the AWS files):
       * false when a `credential_process` or an `aws login` session answers for it, whose account can
       * change while every file stays the same. Such a success is not remembered.
       */
      readonly cacheable: boolean;
    }
  /** The credentials are missing, expired or refused (403): the human must log in again. */
  | { readonly kind: "session-invalid"; readonly code: string }
  /** The check could not complete (network, timeout, malformed configuration). */
  | { readonly kind: "failed"; readonly code: string }
  | { readonly kind: "canceled" };

/** Error codes STS answers when the credentials themselves are the problem. */
const SESSION_CODES = new Set([
  "ExpiredToken",
  "ExpiredTokenException",
  "InvalidClientTokenId",
  "SignatureDoesNotMatch",
  "AccessDenied",
  "AccessDeniedException",
  "UnrecognizedClientException",
  "RequestExpired",
  "InvalidToken",
]);

/**
 * What an error code may look like to be repeated: AWS codes and SDK error
 * names are identifiers (`ExpiredToken`, `InvalidClientTokenId`, `TimeoutError`).
 * The code comes from the endpoint's answer, and an endpoint can answer any
 * text: a line break, a terminal escape sequence (the operator's `torii setup`
 * and `torii target add --check-account` print it on the terminal), instructions
 * for the agent, or kilobytes of anything. Such a code is never repeated.
 */
const PRINTABLE_CODE = /^[A-Za-z][A-Za-z0-9._:-]{0,99}$/u;
/** Said instead of a code that is not PRINTABLE_CODE. */
export const UNPRINTABLE_CODE = "UnrecognisedErrorCode";
/** An AWS account id, as the target pins it: exactly 12 digits. */
const ACCOUNT_ID = /^[0-9]{12}$/u;

function printableCode(code: string): string {
  return PRINTABLE_CODE.test(code) ? code : UNPRINTABLE_CODE;
}

function classify(error: unknown, signal: AbortSignal, bounded: AbortSignal): StsProbeResult {
  if (signal.aborted) return { kind: "canceled" };
  if (bounded.aborted) return { kind: "failed", code: "TimeoutError" };
  const named = error as { name?: unknown; Code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const code = printableCode(typeof named.Code === "string" ? named.Code : typeof named.name === "string" ? named.name : "Error");
  const status = named.$metadata?.httpStatusCode;
  // fromIni and the SSO/role providers throw these when the profile has no usable credentials.
  if (/ProviderError$/u.test(code) || SESSION_CODES.has(code) || status === 401 || status === 403) return { kind: "session-invalid", code };
  return { kind: "failed", code };
}

type SharedFiles = Awaited<ReturnType<typeof loadSharedConfigFiles>>;

/**
 * The profile section through which the SDK would resolve `name`'s credentials
 * with SSO, directly or as the source profile of a role chain (the order of the
 * SDK's own resolution: static keys, web identity and credential_process come
 * first); undefined when SSO is not used.
 */
function ssoSectionOf(files: SharedFiles, name: string): IniSection | undefined {
  const seen = new Set<string>();
  let current = name;
  while (!seen.has(current)) {
    seen.add(current);
    const data: IniSection = { ...files.configFile[current], ...files.credentialsFile[current] };
    const staticKeys = data.aws_access_key_id !== undefined && data.aws_secret_access_key !== undefined;
    // A source profile with static keys is used as such, whatever else it says (the SDK's order).
    if (seen.size > 1 && staticKeys) return undefined;
    if (data.role_arn !== undefined) {
      if (data.source_profile === undefined) return undefined;
      current = data.source_profile;
      continue;
    }
    if (staticKeys) return undefined;
    if (data.web_identity_token_file !== undefined || data.credential_process !== undefined) return undefined;
    return ["sso_start_url", "sso_account_id", "sso_session", "sso_region", "sso_role_name"].some((key) => data[key] !== undefined) ? data : undefined;
  }
  return undefined;
}

/**
 * Where the SDK gets `name`'s credentials from, in its own order (static keys
 * of a source profile first, then a role, static keys, web identity,
 * `credential_process`, SSO, an `aws login` session), and whether a role sits
 * on top: the role's ARN, in the config file, then fixes the account whatever
 * the source answers.
 */
function credentialSourceOf(
  files: SharedFiles,
  name: string,
): { readonly source: "static" | "role" | "web-identity" | "process" | "sso" | "login" | "none"; readonly underRole: boolean; readonly section?: IniSection } {
  const seen = new Set<string>();
  let current = name;
  let underRole = false;
  while (!seen.has(current)) {
    seen.add(current);
    const data: IniSection = { ...files.configFile[current], ...files.credentialsFile[current] };
    const staticKeys = data.aws_access_key_id !== undefined && data.aws_secret_access_key !== undefined;
    if (seen.size > 1 && staticKeys) return { source: "static", underRole };
    if (data.role_arn !== undefined && (data.source_profile !== undefined || data.credential_source !== undefined)) {
      underRole = true;
      if (data.source_profile === undefined) return { source: "role", underRole };
      current = data.source_profile;
      continue;
    }
    if (staticKeys) return { source: "static", underRole };
    if (data.role_arn !== undefined && data.web_identity_token_file !== undefined) return { source: "web-identity", underRole };
    if (data.credential_process !== undefined) return { source: "process", underRole, section: data };
    if (["sso_start_url", "sso_account_id", "sso_session", "sso_region", "sso_role_name"].some((key) => data[key] !== undefined))
      return { source: "sso", underRole };
    if (data.login_session !== undefined) return { source: "login", underRole };
    return { source: "none", underRole };
  }
  // A source_profile cycle: the SDK refuses it too.
  return { source: "none", underRole };
}

/**
 * Whether a `credential_process` line may run a program from the working
 * directory, the agent's project, with the operator's environment: read as the
 * SDK's /bin/sh and the CLI's shlex.split read it (process-line.ts).
 */
export function runsFromWorkingDirectory(line: string): boolean {
  return processLineRunsFromWorkingDirectory(line);
}

/**
 * Whether the `aws login` token cache the SDK reads (this process's
 * AWS_LOGIN_CACHE_DIRECTORY, else under its HOME) is the child's: the SDK's
 * login provider takes no directory, so with another cache it would confirm
 * the account of another sign-in than the one the CLI uses.
 */
function sdkLoginCacheIsChilds(inputs: StsProbeInputs): boolean {
  const own = process.env.AWS_LOGIN_CACHE_DIRECTORY ?? path.join(getHomeDir(), ".aws", "login", "cache");
  const childs = inputs.env.AWS_LOGIN_CACHE_DIRECTORY ?? path.join(inputs.awsDir, "login", "cache");
  return path.resolve(own) === path.resolve(childs);
}

/** The region of an SSO section's requests: its `sso-session`'s `sso_region`, else its own. */
function ssoRegionOf(files: SharedFiles, section: IniSection): string | undefined {
  const session = section.sso_session === undefined ? undefined : files.configFile[`sso-session.${section.sso_session}`];
  const region = session?.sso_region ?? section.sso_region;
  return region === undefined || region.trim() === "" ? undefined : region.trim();
}

/**
 * Whether the files the SDK reads when not told which (this process's
 * AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE, else under its HOME) are the
 * child's. The SDK's SSO provider reads the profile again from those defaults,
 * whatever files fromIni was given, and its token cache under this process's
 * HOME: with other files it would confirm another profile's account than the
 * one the CLI uses.
 */
function sdkDefaultsAreChildFiles(inputs: StsProbeInputs): boolean {
  const home = getHomeDir();
  const resolved = (file: string): string => path.resolve(file.startsWith("~/") ? path.join(home, file.slice(2)) : file);
  const env = process.env;
  const config = env.AWS_CONFIG_FILE !== undefined && env.AWS_CONFIG_FILE !== "" ? env.AWS_CONFIG_FILE : path.join(home, ".aws", "config");
  const credentials =
    env.AWS_SHARED_CREDENTIALS_FILE !== undefined && env.AWS_SHARED_CREDENTIALS_FILE !== ""
      ? env.AWS_SHARED_CREDENTIALS_FILE
      : path.join(home, ".aws", "credentials");
  return (
    resolved(config) === resolved(inputs.configFile) &&
    resolved(credentials) === resolved(inputs.credentialsFile) &&
    path.resolve(home, ".aws") === path.resolve(inputs.awsDir)
  );
}

/** `promise`, or a rejection as soon as `signal` aborts (credential providers take no signal). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      signal.removeEventListener("abort", onAbort);
    });
  });
}

/** Runs GetCallerIdentity for `inputs`; aborted by `signal`, bounded by STS_PROBE_LIMITS. */
export async function probeCallerIdentity(inputs: StsProbeInputs, signal: AbortSignal): Promise<StsProbeResult> {
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(STS_PROBE_LIMITS.totalMs)]);
  try {
    const files = await loadSharedConfigFiles({ filepath: inputs.credentialsFile, configFilepath: inputs.configFile, ignoreCache: true });
    const profile: IniSection = files.configFile[inputs.profile] ?? {};
    const sso = ssoSectionOf(files, inputs.profile);
    if (sso !== undefined && !sdkDefaultsAreChildFiles(inputs)) return { kind: "failed", code: "SsoProfileOutsideDefaultFiles" };
    const { source, underRole } = credentialSourceOf(files, inputs.profile);
    if (chainRunsFromWorkingDirectory(files, inputs.profile)) return { kind: "failed", code: "RelativeCredentialProcess" };
    if (source === "login" && !sdkLoginCacheIsChilds(inputs)) return { kind: "failed", code: "LoginProfileOutsideDefaultFiles" };
    // What a process or a login session answers is outside the files the fingerprint covers; a role above it fixes the account.
    const cacheable = underRole || (source !== "process" && source !== "login");
    const services: IniSection = profile.services === undefined ? {} : (files.configFile[`services.${profile.services}`] ?? {});
    const route = stsRouteOf(inputs, profile, services);
    // STS and SSO share one transport (the handler below: timeouts, CA bundle) and neither goes through a proxy:
    // a proxy the CLI would use for either is refused rather than bypassed.
    if (route.proxy !== undefined) return { kind: "failed", code: "ProxyNotSupported" };
    if (sso !== undefined && ssoProxyOf(inputs, route, ssoRegionOf(files, sso)) !== undefined) return { kind: "failed", code: "ProxyNotSupported" };
    // Every answer (STS, SSO, role assumption) is bounded in size as well as in time.
    const requestHandler = new BoundedBodyHttpHandler({
      connectionTimeout: STS_PROBE_LIMITS.connectionTimeoutMs,
      requestTimeout: STS_PROBE_LIMITS.requestTimeoutMs,
      ...(route.caBundle === undefined ? {} : { httpsAgent: new Agent({ ca: readFileSync(route.caBundle), keepAlive: false }) }),
    });
    // The probe asks the STS host the CLI asks: the region's own, or the global `sts.amazonaws.com` where the
    // CLI uses it (`sts_regional_endpoints = legacy`, or no region at all; the SDK applies botocore's rule of
    // legacy regions only, never with FIPS, dual-stack or a configured endpoint). Where the CLI's choice depends
    // on its version (an unset setting meant `legacy` in older botocore), the probe takes today's (`regional`):
    // the account STS names is the same on either host, and the proxy check above judges both hosts, so a
    // proxy that either would go through fails the check.
    const common = {
      region: route.region,
      ...(route.endpoint === undefined ? {} : { endpoint: route.endpoint }),
      useGlobalEndpoint: route.useGlobalEndpoint,
      useFipsEndpoint: route.useFips,
      useDualstackEndpoint: route.useDualstack,
      ignoreConfiguredEndpointUrls: true,
      maxAttempts: STS_PROBE_LIMITS.maxAttempts,
      requestHandler,
    };
    // The SSO (and SSO OIDC) clients the SDK builds from `clientConfig` take its region and endpoint
    // over the profile's sso_region: they get only what the CLI's SSO client would use (the
    // general endpoint), never STS's region or STS-only endpoint. Role assumption is STS: `common`.
    const ssoClientConfig = {
      ...(route.ssoEndpoint === undefined ? {} : { endpoint: route.ssoEndpoint }),
      useFipsEndpoint: route.useFips,
      useDualstackEndpoint: route.useDualstack,
      ignoreConfiguredEndpointUrls: true,
      maxAttempts: STS_PROBE_LIMITS.maxAttempts,
      requestHandler,
    };
    // The assumer spreads its options into its STS client: `common` (endpoint and all) reaches it whole.
    const stsOptions = common as NonNullable<Parameters<typeof getDefaultRoleAssumer>[0]>;
    const credentials = fromIni({
      profile: inputs.profile,
      filepath: inputs.credentialsFile,
      configFilepath: inputs.configFile,
      ignoreCache: true,
      clientConfig: ssoClientConfig,
      roleAssumer: getDefaultRoleAssumer(stsOptions),
      roleAssumerWithWebIdentity: getDefaultRoleAssumerWithWebIdentity(stsOptions),
    });
    const resolved = await untilAborted(credentials(), bounded);
    const client = new STSClient({ ...common, credentials: resolved });
    try {
      const answer = await client.send(new GetCallerIdentityCommand({}), { abortSignal: bounded });
      if (typeof answer.Account !== "string") return { kind: "failed", code: "NoAccount" };
      // Anything but 12 digits is no account id: never compared, remembered or shown (it could hold any text).
      if (!ACCOUNT_ID.test(answer.Account)) return { kind: "failed", code: "MalformedAccount" };
      return { kind: "identity", account: answer.Account, expiresAt: resolved.expiration, cacheable };
    } finally {
      client.destroy();
    }
  } catch (error) {
    return classify(error, signal, bounded);
  }
}

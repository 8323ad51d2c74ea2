/**
 * GetCallerIdentity through `@aws-sdk/client-sts`, with the credentials,
 * region and endpoint the AWS CLI call will use (see aws-call-plan.ts and
 * sts-endpoint.ts). Loaded with a dynamic import, so a server without
 * aws_profile targets never loads the SDK.
 *
 * Nothing here reads the server's own environment: the credentials come from
 * the profile in the child's config and credentials files (`fromIni`), and the
 * region, endpoint and FIPS/dual-stack switches are passed explicitly, with the
 * SDK's own lookup of configured endpoints turned off. Where the CLI (botocore)
 * would read the files, choose credentials or reach a host otherwise than the
 * SDK, the check is refused (ini-dialect.ts, credential-chain.ts,
 * sts-endpoint.ts). Results carry error names and codes only, never a message
 * that could echo a credential; a refusal adds a detail that names files,
 * profiles and lines, never a value.
 */
import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import path from "node:path";
import { GetCallerIdentityCommand, STSClient, getDefaultRoleAssumer, getDefaultRoleAssumerWithWebIdentity } from "@aws-sdk/client-sts";
import { fromIni } from "@aws-sdk/credential-provider-ini";
import { getHomeDir, loadSharedConfigFiles } from "@smithy/core/config";
import type { StsProbeInputs } from "./aws-call-plan.js";
import { BoundedBodyHttpHandler } from "./bounded-handler.js";
import { credentialChainOf, printable, sourceProfileLinks } from "./credential-chain.js";
import { assertSameIniReading, isReadSection, sectionsReadFor, type ReadSections } from "./ini-dialect.js";
import { readOnce, withFileSnapshot } from "./file-snapshot.js";
import { ProbeRefusal } from "./probe-refusal.js";
import { assertSdkHooksInPlace } from "./sdk-hook-check.js";
import { processLineRunsFromWorkingDirectory } from "./process-line.js";
import { planCredentialProcess } from "./process-program.js";
import { withProcessRun, type ProcessRun } from "./process-runner.js";
import { metadataProxyOf, ssoProxyOf, ssoRegionOf, stsRouteOf, type IniSection } from "./sts-endpoint.js";

/** Bounds of one probe: connection and response timeouts per attempt, attempts, and the whole probe. */
export const STS_PROBE_LIMITS = Object.freeze({ connectionTimeoutMs: 3_000, requestTimeoutMs: 10_000, maxAttempts: 2, totalMs: 30_000 });

export type StsProbeResult =
  | {
      readonly kind: "identity";
      readonly account: string;
      readonly expiresAt: Date | undefined;
      /**
       * Whether the success may be remembered (until `expiresAt` at the latest). True when the account
       * follows from what the credential-source fingerprint covers (the AWS files, the child's environment):
       * static keys, SSO, a role above any source. A `credential_process` answering for the account (no role
       * above) can change its answer while every file and variable stays the same: its success is remembered
       * never: the CLI of each call runs the helper again (it keeps no process credentials from one run to the
       * next, whatever their `Expiration`), so only a check at every call sees the account the child will
       * get. (An `aws login` session, which can do the same, is refused: credential-chain.ts.)
       */
      readonly cacheable: boolean;
    }
  /** The credentials are missing, expired or refused (403): the human must log in again. */
  | { readonly kind: "session-invalid"; readonly code: string }
  /** The check could not complete (network, timeout, malformed configuration); `detail`: what to change, for a refused configuration. */
  | { readonly kind: "failed"; readonly code: string; readonly detail?: string }
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
  if (error instanceof ProbeRefusal) return { kind: "failed", code: error.code, detail: error.message };
  const named = error as { name?: unknown; Code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const code = printableCode(typeof named.Code === "string" ? named.Code : typeof named.name === "string" ? named.name : "Error");
  const status = named.$metadata?.httpStatusCode;
  // fromIni and the SSO/role providers throw these when the profile has no usable credentials.
  if (/ProviderError$/u.test(code) || SESSION_CODES.has(code) || status === 401 || status === 403) return { kind: "session-invalid", code };
  return { kind: "failed", code };
}

/**
 * Refuses a config or credentials file that botocore and the SDK would find differently: botocore expands `~` and
 * `$VAR` in the path and resolves a relative one in the call's environment and directory, the SDK in the server's.
 */
function assertFileFoundAlike(file: string, label: string): void {
  if (!path.isAbsolute(file) || file.includes("$")) {
    throw new ProbeRefusal(
      "AwsFilePathNotSupported",
      `the AWS ${label} file's path is relative or holds ~ or $, which the AWS CLI and the account check would expand differently`,
    );
  }
}

/**
 * Refuses a config or credentials file text that botocore and the SDK would read differently (ini-dialect.ts),
 * in the sections `read` names for its section-scoped rules. An absent file ("") reads alike (no profiles).
 */
function assertFileReadAlike(text: string, label: string, read: ReadSections): void {
  assertSameIniReading(text, label, (section, sdk) => isReadSection(read, label, section, sdk));
}

/**
 * The one reading of the child's config and credentials files for this probe (file-snapshot.ts), by every
 * path spelling the SDK reads them under: the child's, and this process's defaults when those are the same
 * files (the SSO provider reads the profile again from them).
 */
function snapshotOf(inputs: StsProbeInputs): Map<string, string> {
  const snapshot = new Map<string, string>();
  const defaults = sdkDefaultFiles();
  const pairs: readonly (readonly [string, string])[] = [
    [inputs.configFile, defaults.config],
    [inputs.credentialsFile, defaults.credentials],
  ];
  for (const [file, sdkDefault] of pairs) {
    const text = snapshot.get(file) ?? readOnce(file);
    snapshot.set(file, text);
    if (path.resolve(sdkDefault) === path.resolve(file)) snapshot.set(sdkDefault, text);
  }
  return snapshot;
}

/**
 * Whether a `credential_process` line may run a program from the working
 * directory, the agent's project, with the operator's environment: read as a
 * shell and the CLI's shlex.split read it (process-line.ts).
 */
export function runsFromWorkingDirectory(line: string): boolean {
  return processLineRunsFromWorkingDirectory(line);
}

/** The instance metadata settings the CLI reads from the child's environment and the SDK from the server's own. */
const METADATA_VARIABLE = /^AWS_EC2_METADATA_/u;

/** Whether every AWS_EC2_METADATA_* variable has the same value (or absence) in the child's environment and this process's. */
function metadataSettingsAreChilds(inputs: StsProbeInputs): boolean {
  const names = new Set([...Object.keys(inputs.env), ...Object.keys(process.env)].filter((name) => METADATA_VARIABLE.test(name)));
  return [...names].every((name) => inputs.env[name] === process.env[name]);
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
  const defaults = sdkDefaultFiles();
  return (
    path.resolve(defaults.config) === path.resolve(inputs.configFile) &&
    path.resolve(defaults.credentials) === path.resolve(inputs.credentialsFile) &&
    path.resolve(getHomeDir(), ".aws") === path.resolve(inputs.awsDir)
  );
}

/**
 * The files the SDK reads when not told which, spelt as it reads them: this process's AWS_CONFIG_FILE and
 * AWS_SHARED_CREDENTIALS_FILE when set and not empty, else under its HOME, with a leading `~/` expanded.
 */
function sdkDefaultFiles(): { readonly config: string; readonly credentials: string } {
  const home = getHomeDir();
  const spelling = (value: string | undefined, fallback: string): string => {
    const file = value === undefined || value === "" ? fallback : value;
    return file.startsWith("~/") ? path.join(home, file.slice(2)) : file;
  };
  return {
    config: spelling(process.env.AWS_CONFIG_FILE, path.join(home, ".aws", "config")),
    credentials: spelling(process.env.AWS_SHARED_CREDENTIALS_FILE, path.join(home, ".aws", "credentials")),
  };
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
    assertFileFoundAlike(inputs.configFile, "config");
    assertFileFoundAlike(inputs.credentialsFile, "credentials");
    // The SDK must still take the runner and the snapshot below, or it would do both its own way (sdk-hook-check.ts).
    await untilAborted(assertSdkHooksInPlace(), bounded);
    // Each file is read once: the checks below and every SDK reader get that text (file-snapshot.ts).
    const snapshot = snapshotOf(inputs);
    return await withFileSnapshot(
      snapshot,
      (placing) => untilAborted(placing, bounded),
      () => probeSnapshot(inputs, snapshot, bounded),
    );
  } catch (error) {
    return classify(error, signal, bounded);
  }
}

/** The probe's work once the files' snapshot is in place; throws what `classify` judges. */
async function probeSnapshot(inputs: StsProbeInputs, snapshot: ReadonlyMap<string, string>, bounded: AbortSignal): Promise<StsProbeResult> {
  const files = await loadSharedConfigFiles({ filepath: inputs.credentialsFile, configFilepath: inputs.configFile, ignoreCache: true });
  // botocore's Session.full_config: the credentials file's section over the config file's, for every key.
  const sectionOf = (name: string): IniSection => ({ ...files.configFile[name], ...files.credentialsFile[name] });
  // The sections the probe resolves, as the SDK read them; the dialect check then makes sure botocore reads
  // them (and so the same chain) alike, and lets what other sections hold differ (ini-dialect.ts).
  const links = sourceProfileLinks(sectionOf, inputs.profile);
  const read = sectionsReadFor(sectionOf, links.profiles);
  assertFileReadAlike(snapshot.get(inputs.configFile) ?? "", "config", read);
  assertFileReadAlike(snapshot.get(inputs.credentialsFile) ?? "", "credentials", read);
  const profile = sectionOf(inputs.profile);
  const { sso, metadata, process: credentialProcess, underRole } = credentialChainOf(sectionOf, inputs.profile, links);
  // The chain's credential_process, as the CLI would start it, in the child's environment and place
  // (process-program.ts), before any runs. A section the chain reaches that names one beside another source was
  // refused above (the two readers rank a section's sources differently); one past the chain's source is read by neither.
  if (credentialProcess !== undefined)
    planCredentialProcess(credentialProcess.command, `AWS profile ${printable(credentialProcess.profile)}`, inputs.processEnv, inputs.place);
  const services: IniSection = profile.services === undefined ? {} : (files.configFile[`services.${profile.services}`] ?? {});
  const route = stsRouteOf(inputs, profile, services);
  // STS, SSO and instance metadata share no proxy with the CLI: the probe's transport (the handler below:
  // timeouts, CA bundle) never goes through one, so a proxy the CLI would use for any of them is refused.
  if (route.proxy !== undefined) return { kind: "failed", code: "ProxyNotSupported" };
  const ssoSession = sso?.sso_session === undefined ? undefined : files.configFile[`sso-session.${sso.sso_session}`];
  if (sso !== undefined && ssoProxyOf(inputs, route, ssoRegionOf(sso, ssoSession)) !== undefined) return { kind: "failed", code: "ProxyNotSupported" };
  if (metadata !== undefined && metadataProxyOf(inputs, profile) !== undefined) return { kind: "failed", code: "ProxyNotSupported" };
  // The SDK's OIDC client (token refresh of an sso_session) gets the SSO client's endpoint; botocore's its own.
  if (sso?.sso_session !== undefined && route.oidcEndpoint?.trim() !== route.ssoEndpoint?.trim()) {
    return {
      kind: "failed",
      code: "SsoOidcEndpointNotSupported",
      detail: "the SSO OIDC endpoint differs from the SSO endpoint, which the account check cannot follow",
    };
  }
  // The SDK keeps its token lookups and the process runner's `exec` in one record (process-runner.ts): a session
  // named `exec` would read the runner as its token.
  if (sso?.sso_session === "exec") {
    return { kind: "failed", code: "SsoSessionNameNotSupported", detail: "an sso-session named exec cannot be checked: rename the session" };
  }
  // The SDK's SSO and metadata providers read the profile again from this process's default files.
  if (sso !== undefined && !sdkDefaultsAreChildFiles(inputs)) return { kind: "failed", code: "SsoProfileOutsideDefaultFiles" };
  if (metadata !== undefined && !sdkDefaultsAreChildFiles(inputs)) return { kind: "failed", code: "MetadataProfileOutsideDefaultFiles" };
  // The SDK's metadata provider reads AWS_EC2_METADATA_* from this process, the CLI from the child.
  if (metadata !== undefined && !metadataSettingsAreChilds(inputs)) return { kind: "failed", code: "MetadataSettingsOutsideChild" };
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
  // The SSO and SSO OIDC clients the SDK builds from `clientConfig` take its endpoint (and region, over the
  // profile's sso_region): they get only what the CLI's SSO client uses (its configured `sso` endpoint, else
  // none), never STS's region or STS-only endpoint; an OIDC endpoint apart from it was refused above.
  // Role assumption is STS: `common`.
  const ssoClientConfig = {
    ...(route.ssoEndpoint === undefined ? {} : { endpoint: route.ssoEndpoint.trim() }),
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
  // A credential_process the SDK starts gets the child's environment and place, as under the CLI (process-runner.ts).
  const run: ProcessRun = { env: inputs.processEnv, place: inputs.place, signal: bounded };
  let resolved: Awaited<ReturnType<typeof credentials>>;
  try {
    resolved = await untilAborted(
      withProcessRun(run, () => credentials()),
      bounded,
    );
  } catch (error) {
    throw run.refusal ?? error;
  }
  const client = new STSClient({ ...common, credentials: resolved });
  try {
    const answer = await client.send(new GetCallerIdentityCommand({}), { abortSignal: bounded });
    if (typeof answer.Account !== "string") return { kind: "failed", code: "NoAccount" };
    // Anything but 12 digits is no account id: never compared, remembered or shown (it could hold any text).
    if (!ACCOUNT_ID.test(answer.Account)) return { kind: "failed", code: "MalformedAccount" };
    // What a process answers is outside what the fingerprint covers; a role above it fixes the account.
    // An `Expiration` does not: each run of the CLI runs the helper again. (An `aws login` session was refused.)
    const cacheable = underRole || credentialProcess === undefined;
    return { kind: "identity", account: answer.Account, expiresAt: resolved.expiration, cacheable };
  } finally {
    client.destroy();
  }
}

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
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { fromIni } from "@aws-sdk/credential-provider-ini";
import { loadSharedConfigFiles } from "@smithy/core/config";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import type { StsProbeInputs } from "./aws-call-plan.js";
import { stsRouteOf, type IniSection } from "./sts-endpoint.js";

/** Bounds of one probe: connection and response timeouts per attempt, attempts, and the whole probe. */
export const STS_PROBE_LIMITS = Object.freeze({ connectionTimeoutMs: 3_000, requestTimeoutMs: 10_000, maxAttempts: 2, totalMs: 30_000 });

export type StsProbeResult =
  | { readonly kind: "identity"; readonly account: string; readonly expiresAt: Date | undefined }
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
    const services: IniSection = profile.services === undefined ? {} : (files.configFile[`services.${profile.services}`] ?? {});
    const route = stsRouteOf(inputs, profile, services);
    if (route.proxy !== undefined) return { kind: "failed", code: "ProxyNotSupported" };
    const requestHandler = new NodeHttpHandler({
      connectionTimeout: STS_PROBE_LIMITS.connectionTimeoutMs,
      requestTimeout: STS_PROBE_LIMITS.requestTimeoutMs,
      ...(route.caBundle === undefined ? {} : { httpsAgent: new Agent({ ca: readFileSync(route.caBundle), keepAlive: false }) }),
    });
    const common = {
      region: route.region,
      ...(route.endpoint === undefined ? {} : { endpoint: route.endpoint }),
      useFipsEndpoint: route.useFips,
      useDualstackEndpoint: route.useDualstack,
      ignoreConfiguredEndpointUrls: true,
      maxAttempts: STS_PROBE_LIMITS.maxAttempts,
      requestHandler,
    };
    const credentials = fromIni({
      profile: inputs.profile,
      filepath: inputs.credentialsFile,
      configFilepath: inputs.configFile,
      ignoreCache: true,
      clientConfig: common,
    });
    const resolved = await untilAborted(credentials(), bounded);
    const client = new STSClient({ ...common, credentials: resolved });
    try {
      const answer = await client.send(new GetCallerIdentityCommand({}), { abortSignal: bounded });
      if (typeof answer.Account !== "string") return { kind: "failed", code: "NoAccount" };
      // Anything but 12 digits is no account id: never compared, remembered or shown (it could hold any text).
      if (!ACCOUNT_ID.test(answer.Account)) return { kind: "failed", code: "MalformedAccount" };
      return { kind: "identity", account: answer.Account, expiresAt: resolved.expiration };
    } finally {
      client.destroy();
    }
  } catch (error) {
    return classify(error, signal, bounded);
  }
}

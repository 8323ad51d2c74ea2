/**
 * The auth lifecycle of an allowed call. Runs only after the allow, because it
 * reads `.env` files and runs the provider's commands:
 *
 * 1. read the credential layers: the identity provider's `.env` (a target may
 *    delegate auth to another provider), the provider's, the target's;
 * 2. the session: `inherited` runs `auth.validate` when declared (a failure
 *    means the human must log in natively; Torii never logs in for them);
 *    `environment` layers the values stored by `torii auth login` on top and
 *    validates them (environment-session.ts);
 * 3. the identity probe: when the target pins `identity.expect` and the
 *    identity provider declares `auth.identity`, its command must print JSON
 *    whose `field` equals the expected value, with the same environment and
 *    injected options the real call will use; for an `aws_profile` target the
 *    check is GetCallerIdentity through the AWS SDK (identity/aws-identity.ts).
 *
 * Steps 2 and 3 run under the scope's lock, across processes (auth-scope.ts).
 * Values read here never reach the audit log, an error message or the agent:
 * the call's redactor (call-secrets.ts) masks them in all three.
 */
import { readDotenvIfExists } from "../config/dotenv.js";
import { envFilePath, providerEnvFilePath } from "../config/paths.js";
import { trustPass, type ConfigTrust } from "../config/trusted-path.js";
import type { ProviderEntry, Registry, TargetEntry } from "../config/registry.js";
import type { Settings } from "../config/settings.js";
import type { Redactor } from "../runtime/redaction.js";
import { authScopeOf, runInAuthScope, type AuthScope } from "./auth-scope.js";
import { recordBeforeStart, type CallAudit } from "./call-audit.js";
import { redactorFor } from "./call-secrets.js";
import type { ChildPlanDeps, CredentialLayers } from "./child-plan.js";
import { checkCallConfigFiles } from "./call-config-files.js";
import { useStoredSession } from "./environment-session.js";
import { launchLifecycleCommand } from "./lifecycle-command.js";
import type { StartLaunch } from "../runtime/launcher.js";
import { ScopeWaitCanceled, type ScopeMutex } from "./scope-mutex.js";
import { checkAwsIdentity, type AwsIdentityDeps } from "./identity/aws-identity.js";

export interface AuthDeps extends ChildPlanDeps, AwsIdentityDeps {
  readonly registry: Registry;
  readonly settings: Settings;
  readonly start: StartLaunch;
  /** Serialises the lifecycle of calls sharing an auth scope. */
  readonly authScopes: ScopeMutex;
}

export interface AuthRequest {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry | undefined;
  readonly audit: CallAudit;
  readonly signal: AbortSignal;
  /** The call's trust pass (pipeline/invoke.ts), when the `.env` layers may share its walk; a new pass otherwise. */
  readonly trust?: ConfigTrust;
  /**
   * A refusal that needs the `.env` layers (a store they move, pipeline/moved-stores.ts): true refuses the call
   * once they are read, before any lifecycle command, identity probe or session read runs for it.
   */
  readonly screen?: (layers: CredentialLayers) => boolean;
}

/** A failed lifecycle: a deny (the human must act) or an operational error. */
export type AuthFailure =
  | { readonly kind: "deny"; readonly source: "session-invalid" | "identity-mismatch"; readonly reason: string }
  | { readonly kind: "error"; readonly message: string; readonly canceled?: true }
  /** `screen` refused the call; the screen holds the outcome. */
  | { readonly kind: "screened" };

export type AuthResult =
  { readonly ok: true; readonly env: CredentialLayers; readonly redactor: Redactor } | { readonly ok: false; readonly failure: AuthFailure };

function providerEnvFile(provider: ProviderEntry): string {
  return providerEnvFilePath(provider.dir, provider.config.environment?.file);
}

/** The `.env` layers of a call (also read by `torii auth login` to validate as the call will). */
export function readLayers(request: Pick<AuthRequest, "provider" | "target" | "trust">, identity: ProviderEntry): CredentialLayers {
  const files = [
    ...(identity === request.provider ? [] : [providerEnvFile(identity)]),
    providerEnvFile(request.provider),
    ...(request.target === undefined ? [] : [envFilePath(request.target.dir)]),
  ];
  // One trust pass for the layers (the call's, when given): the directories their files share are inspected once.
  const trust = request.trust ?? trustPass(request.provider.trust);
  return files.map((file) => readDotenvIfExists(trust, file) ?? new Map<string, string>());
}

function failure(source: "session-invalid" | "identity-mismatch", reason: string): AuthResult {
  return { ok: false, failure: { kind: "deny", source, reason } };
}

function operational(message: string): AuthResult {
  return { ok: false, failure: { kind: "error", message } };
}

/**
 * A lifecycle step the agent's cancel ended (notifications/cancelled) says nothing about the credentials:
 * read as a failed check, it put `session-invalid` or `identity-check-failed` in the audit for the
 * operator's session, and the environment strategy stored it as the session's last check (`torii auth
 * status`: expired). The call ends as an error, as the AWS account check's cancel does.
 */
function canceled(step: string): AuthResult {
  return { ok: false, failure: { kind: "error", message: `the call was canceled during ${step}; nothing was judged about the credentials`, canceled: true } };
}

/**
 * Runs a validate or identity command. `output: "read"` (the identity probe): its output is parsed here and
 * never shown, audited or returned, so it is read as the command printed it; redacted, an identity that is
 * also a `.env` value (a subscription id, an account name) would read as a marker and never match.
 */
async function runLifecycleCommand(
  command: string,
  args: readonly string[],
  request: AuthRequest,
  identity: ProviderEntry,
  layers: CredentialLayers,
  deps: AuthDeps,
  output: "read" | "redacted",
): Promise<{ exitCode: number | null; stdout: string; timedOut: boolean; canceled: boolean }> {
  // No process starts before the records that allowed it are in the file; without them, none starts.
  await recordBeforeStart(request.audit);
  const subject = { provider: request.provider, target: request.target, identity };
  const redactor = output === "read" ? undefined : redactorFor(layers);
  const result = await launchLifecycleCommand(command, args, subject, layers, deps, { signal: request.signal, redactor });
  return { exitCode: result.exitCode, stdout: result.stdout, timedOut: result.timedOut, canceled: result.canceled && result.exitCode !== 0 };
}

async function checkSession(request: AuthRequest, identity: ProviderEntry, layers: CredentialLayers, deps: AuthDeps): Promise<AuthResult | undefined> {
  const auth = identity.config.auth;
  const strategy = auth?.strategy ?? "inherited";
  if (strategy === "session_command" || strategy === "credential_file") {
    return operational(`auth strategy ${strategy} of ${identity.name} is reserved and not implemented`);
  }
  if (auth?.validate === undefined) {
    request.audit.record({ event: "session-unchecked" });
    return undefined;
  }
  const run = await runLifecycleCommand(auth.validate.command, auth.validate.args, request, identity, layers, deps, "redacted");
  if (run.canceled) {
    request.audit.record({ event: "session-unchecked", detail: "canceled" });
    return canceled(`the session check of ${identity.name}`);
  }
  if (run.exitCode === 0) {
    request.audit.record({ event: "session-ok" });
    return undefined;
  }
  request.audit.record({ event: "session-invalid", detail: run.timedOut ? "timed out" : `exit ${String(run.exitCode)}` });
  return failure("session-invalid", `the ${identity.name} session is not valid (its validate command failed); ask the operator to log in natively, then retry`);
}

async function checkIdentity(
  request: AuthRequest,
  identity: ProviderEntry,
  layers: CredentialLayers,
  deps: AuthDeps,
  scope: AuthScope,
): Promise<AuthResult | undefined> {
  const { target } = request;
  if (target !== undefined && identity.config.targeting?.mode === "aws_profile") {
    const outcome = await checkAwsIdentity({ provider: identity, target, layers, scope: scope.key, audit: request.audit, signal: request.signal }, deps);
    if (outcome.ok) return undefined;
    return outcome.kind === "deny" ? failure(outcome.source, outcome.reason) : operational(outcome.message);
  }
  const expected = request.target?.config.identity.expect;
  const probe = identity.config.auth?.identity;
  if (expected === undefined || probe === undefined) return undefined;
  const run = await runLifecycleCommand(probe.command, probe.args, request, identity, layers, deps, "read");
  if (run.canceled) {
    request.audit.record({ event: "identity-check-failed", detail: "canceled" });
    return canceled(`the identity check of target ${request.target?.name ?? ""}`);
  }
  let actual: unknown;
  try {
    actual = run.exitCode === 0 ? (JSON.parse(run.stdout) as Record<string, unknown>)[probe.field] : undefined;
  } catch {
    actual = undefined;
  }
  if (actual === undefined) {
    request.audit.record({ event: "identity-check-failed", detail: run.timedOut ? "timed out" : `exit ${String(run.exitCode)}` });
    return failure("identity-mismatch", `the identity of target ${request.target?.name ?? ""} could not be confirmed; ask the operator to check the login`);
  }
  if (typeof actual !== "string" && typeof actual !== "number") {
    request.audit.record({ event: "identity-check-failed", detail: "field is not a scalar" });
    return failure("identity-mismatch", `the identity of target ${request.target?.name ?? ""} could not be confirmed; ask the operator to check the login`);
  }
  if (String(actual) !== expected) {
    request.audit.record({ event: "identity-mismatch" });
    return failure(
      "identity-mismatch",
      `the credentials for target ${request.target?.name ?? ""} belong to another identity than the one the operator pinned; the call was not run`,
    );
  }
  request.audit.record({ event: "identity-ok" });
  return undefined;
}

/** Whether any lifecycle step runs (and so needs the scope's lock): a stored session, a validate command or an identity probe. */
function hasLifecycle(identity: ProviderEntry, target: TargetEntry | undefined): boolean {
  const auth = identity.config.auth;
  const expects = target?.config.identity.expect !== undefined;
  const probes = expects && (auth?.identity !== undefined || identity.config.targeting?.mode === "aws_profile");
  return probes || (auth !== undefined && (auth.strategy !== "inherited" || auth.validate !== undefined));
}

/** Reads credentials and checks the session and identity. Called only after an allow. */
export async function authenticate(request: AuthRequest, deps: AuthDeps): Promise<AuthResult> {
  let scope: AuthScope;
  let layers: CredentialLayers;
  try {
    scope = authScopeOf(request.provider, request.target, deps.registry);
    layers = readLayers(request, scope.identity);
    checkCallConfigFiles(request.provider, request.target, layers, deps);
  } catch (error) {
    // ConfigError messages name the file and line, never a value.
    return operational((error as Error).message);
  }
  const identity = scope.identity;
  let redactor = redactorFor(layers);
  request.audit.redactWith(redactor);
  // Refused on what the .env layers say: nothing of the lifecycle runs for the call.
  if (request.screen?.(layers) === true) return { ok: false, failure: { kind: "screened" } };
  const lifecycle = async (): Promise<AuthResult | undefined> => {
    // Canceled while it waited for the scope (another process's lock): no session is read, nothing runs.
    if (request.signal.aborted) return canceled(`the wait for the auth scope of ${identity.name}`);
    if (identity.config.auth?.strategy === "environment") {
      const session = await useStoredSession({
        ...request,
        scope,
        layers,
        now: () => new Date(),
        validate: async (validate, candidate) => {
          await recordBeforeStart(request.audit);
          const subject = { provider: request.provider, target: request.target, identity };
          return launchLifecycleCommand(validate.command, validate.args, subject, candidate, deps, {
            signal: request.signal,
            redactor: redactorFor(candidate),
          });
        },
      });
      if (!session.ok) return "canceled" in session ? canceled(`the session check of ${identity.name}`) : failure("session-invalid", session.reason);
      layers = session.layers;
      redactor = redactorFor(layers);
      request.audit.redactWith(redactor);
    } else {
      const session = await checkSession(request, identity, layers, deps);
      if (session !== undefined) return session;
    }
    return checkIdentity(request, identity, layers, deps, scope);
  };
  try {
    const failed = hasLifecycle(identity, request.target)
      ? await runInAuthScope(deps.authScopes, scope, deps.settings.timeoutSeconds * 1000, lifecycle, request.signal)
      : await lifecycle();
    if (failed !== undefined) return failed;
  } catch (error) {
    // Canceled while it waited behind this server's other calls of the scope (ScopeMutex.run left the queue).
    // Any other error is the lifecycle's own, reported as such even when a cancel came in meanwhile.
    if (error instanceof ScopeWaitCanceled) return canceled(`the wait for the auth scope of ${identity.name}`);
    return operational(redactor.redact(`the auth lifecycle of ${identity.name} failed: ${(error as Error).message}`));
  }
  return { ok: true, env: layers, redactor };
}

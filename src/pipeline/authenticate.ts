/**
 * The auth lifecycle of an allowed call. Runs only after the allow, because it
 * reads `.env` files and runs the provider's commands:
 *
 * 1. read the credential layers: the identity provider's `.env` (a target may
 *    delegate auth to another provider), the provider's, the target's;
 * 2. the session: `inherited` runs `auth.validate` when declared (a failure
 *    means the human must log in natively; Torii never logs in for them);
 * 3. the identity probe: when the target pins `identity.expect` and the
 *    identity provider declares `auth.identity`, its command must print JSON
 *    whose `field` equals the expected value, with the same environment and
 *    injected options the real call will use.
 *
 * Values read here never reach the audit log, an error message or the agent.
 */
import { readDotenvIfExists } from "../config/dotenv.js";
import { envFilePath, providerEnvFilePath } from "../config/paths.js";
import type { ProviderEntry, Registry, TargetEntry } from "../config/registry.js";
import type { Settings } from "../config/settings.js";
import type { CallAudit } from "./call-audit.js";
import { planChild, type ChildPlanDeps, type CredentialLayers } from "./child-plan.js";
import { targetInjection } from "./target-injection.js";
import type { launch } from "../runtime/launcher.js";
import type { ScopeMutex } from "./scope-mutex.js";

export interface AuthDeps extends ChildPlanDeps {
  readonly registry: Registry;
  readonly settings: Settings;
  readonly launch: typeof launch;
  /** Serialises the lifecycle of calls sharing an auth scope. */
  readonly authScopes: ScopeMutex;
}

export interface AuthRequest {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry | undefined;
  readonly audit: CallAudit;
  readonly signal: AbortSignal;
}

/** A failed lifecycle: a deny (the human must act) or an operational error. */
export type AuthFailure =
  | { readonly kind: "deny"; readonly source: "session-invalid" | "identity-mismatch"; readonly reason: string }
  | { readonly kind: "error"; readonly message: string };

export type AuthResult = { readonly ok: true; readonly env: CredentialLayers } | { readonly ok: false; readonly failure: AuthFailure };

/** Output cap for validate and identity commands: they print a line or a small JSON document. */
const LIFECYCLE_OUTPUT_BYTES = 64 * 1024;

function identityProviderOf(request: AuthRequest, registry: Registry): ProviderEntry {
  const name = request.target?.config.identity.provider;
  if (name === undefined || name === request.provider.name) return request.provider;
  const entry = registry.providersByName.get(name);
  // The registry validated this at load; a missing entry means the tree changed under us.
  if (entry === undefined) throw new Error(`identity provider ${name} is not installed`);
  return entry;
}

function providerEnvFile(provider: ProviderEntry): string {
  return providerEnvFilePath(provider.dir, provider.config.environment?.file);
}

function readLayers(request: AuthRequest, identity: ProviderEntry): CredentialLayers {
  const files = [
    ...(identity === request.provider ? [] : [providerEnvFile(identity)]),
    providerEnvFile(request.provider),
    ...(request.target === undefined ? [] : [envFilePath(request.target.dir)]),
  ];
  return files.map((file) => readDotenvIfExists(request.provider.trust, file) ?? new Map<string, string>());
}

function failure(source: "session-invalid" | "identity-mismatch", reason: string): AuthResult {
  return { ok: false, failure: { kind: "deny", source, reason } };
}

function operational(message: string): AuthResult {
  return { ok: false, failure: { kind: "error", message } };
}

async function runLifecycleCommand(
  command: string,
  args: readonly string[],
  request: AuthRequest,
  identity: ProviderEntry,
  layers: CredentialLayers,
  deps: AuthDeps,
): Promise<{ exitCode: number | null; stdout: string; timedOut: boolean }> {
  // No process starts before the records that allowed it are in the file.
  await request.audit.flush();
  // The target's options belong to the called CLI; another identity provider's commands get none.
  const injection = identity === request.provider ? targetInjection(request.provider, request.target) : { args: [], env: {} };
  const plan = planChild(command, [...args, ...injection.args], identity, layers, injection.env, deps);
  const result = await deps.launch({
    executable: plan.executable,
    args: plan.args,
    env: plan.env,
    cwd: deps.cwd,
    maxOutputBytes: LIFECYCLE_OUTPUT_BYTES,
    timeoutMs: deps.settings.timeoutSeconds * 1000,
    signal: request.signal,
    windowsVerbatimArguments: plan.windowsVerbatimArguments,
  });
  return { exitCode: result.exitCode, stdout: result.stdout, timedOut: result.timedOut };
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
  const run = await runLifecycleCommand(auth.validate.command, auth.validate.args, request, identity, layers, deps);
  if (run.exitCode === 0) {
    request.audit.record({ event: "session-ok" });
    return undefined;
  }
  request.audit.record({ event: "session-invalid", detail: run.timedOut ? "timed out" : `exit ${String(run.exitCode)}` });
  return failure("session-invalid", `the ${identity.name} session is not valid (its validate command failed); ask the operator to log in natively, then retry`);
}

async function checkIdentity(request: AuthRequest, identity: ProviderEntry, layers: CredentialLayers, deps: AuthDeps): Promise<AuthResult | undefined> {
  const expected = request.target?.config.identity.expect;
  const probe = identity.config.auth?.identity;
  if (expected === undefined || probe === undefined) return undefined;
  const run = await runLifecycleCommand(probe.command, probe.args, request, identity, layers, deps);
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

/** Reads credentials and checks the session and identity. Called only after an allow. */
export async function authenticate(request: AuthRequest, deps: AuthDeps): Promise<AuthResult> {
  let identity: ProviderEntry;
  let layers: CredentialLayers;
  try {
    identity = identityProviderOf(request, deps.registry);
    layers = readLayers(request, identity);
  } catch (error) {
    // ConfigError messages name the file and line, never a value.
    return operational((error as Error).message);
  }
  // The scope is the identity provider's credential scope: the target's `identity.scope`, or the provider itself.
  const scope = `${identity.name}\0${request.target?.config.identity.scope ?? identity.tool}`;
  try {
    const failed = await deps.authScopes.run(scope, async () => {
      const session = await checkSession(request, identity, layers, deps);
      return session ?? (await checkIdentity(request, identity, layers, deps));
    });
    if (failed !== undefined) return failed;
  } catch (error) {
    return operational(`the auth lifecycle of ${identity.name} failed: ${(error as Error).message}`);
  }
  return { ok: true, env: layers };
}

/**
 * The `environment` strategy at call time: the identity provider's fields, as
 * the operator stored them with `torii auth login`, are layered onto the
 * child's environment after the `.env` files. Runs inside the scope lock and
 * only after the allow.
 *
 * - no stored session, a required field missing, an unreadable file: deny
 *   (`session-invalid`) with the exact `torii auth login` command;
 * - a `validate` command: a success is reused for `auth.cache_ttl_seconds`;
 *   otherwise it runs with the stored values layered in, and its result is
 *   recorded in the session file (which `torii auth status` reports). A failure
 *   denies with the login command; Torii never asks for values during a call.
 */
import type { ProviderEntry, TargetEntry } from "../config/registry.js";
import { shellQuote } from "../policy/shell-quote.js";
import type { LaunchResult } from "../runtime/launcher.js";
import type { StoredSession } from "../state/session-store.js";
import { sessionStoreOf, type AuthScope } from "./auth-scope.js";
import type { CallAudit } from "./call-audit.js";
import type { CredentialLayers } from "./child-plan.js";

/** The operator's command that stores credentials for calls to `provider` (on `target`). */
export function loginCommand(provider: ProviderEntry, target: TargetEntry | undefined): string {
  return ["torii", "auth", "login", provider.tool, ...(target === undefined ? [] : [target.name])].map(shellQuote).join(" ");
}

/**
 * The variables the stored fields are injected as: `auth.inject.environment`
 * when declared (`VAR: ${FIELD}`), otherwise each field under its own name.
 * An empty optional field is left out.
 */
export function sessionLayer(identity: ProviderEntry, fields: Readonly<Record<string, string>>): ReadonlyMap<string, string> {
  const layer = new Map<string, string>();
  const inject = identity.config.auth?.inject?.environment;
  const pairs: [string, string][] =
    inject === undefined
      ? (identity.config.auth?.fields ?? []).map((field) => [field.name, field.name])
      : Object.entries(inject).map(([variable, template]) => [variable, template.slice(2, -1)]);
  for (const [variable, field] of pairs) {
    const value = fields[field];
    if (value !== undefined && value !== "") layer.set(variable, value);
  }
  return layer;
}

/** The first required field the stored values lack (provider.yaml may have changed since the login). */
export function missingRequiredField(identity: ProviderEntry, fields: Readonly<Record<string, string>>): string | undefined {
  return identity.config.auth?.fields.find((field) => field.required && (fields[field.name] ?? "") === "")?.name;
}

export interface SessionContext {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry | undefined;
  readonly scope: AuthScope;
  readonly audit: CallAudit;
  readonly layers: CredentialLayers;
  readonly now: () => Date;
  /** Runs the identity provider's validate command with these layers. */
  readonly validate: (command: ValidateCommand, layers: CredentialLayers) => Promise<LaunchResult>;
}

export interface ValidateCommand {
  readonly command: string;
  readonly args: readonly string[];
}

export type SessionOutcome =
  | { readonly ok: true; readonly layers: CredentialLayers }
  | { readonly ok: false; readonly reason: string }
  /** The call was canceled while its validate ran (or before it could start): no verdict on the stored values. */
  | { readonly ok: false; readonly canceled: true };

/** Loads and checks the stored session; on success, the layers with the session on top. */
export async function useStoredSession(context: SessionContext): Promise<SessionOutcome> {
  const { identity } = context.scope;
  const store = sessionStoreOf(context.scope);
  const read = store.read();
  const login = loginCommand(context.provider, context.target);
  const deny = (why: string, detail: string): SessionOutcome => {
    context.audit.record({ event: "session-invalid", detail });
    return { ok: false, reason: `${why}; the operator must run \`${login}\`, then retry` };
  };
  if (read.kind === "missing") return deny(`no credentials are stored for ${identity.name} (scope ${context.scope.scope})`, "missing");
  if (read.kind === "error") return deny(`the stored credentials of ${identity.name} cannot be used (${read.error.kind})`, `unreadable: ${read.error.kind}`);
  const session = read.session;
  const lacking = missingRequiredField(identity, session.fields);
  if (lacking !== undefined) return deny(`the stored credentials of ${identity.name} lack the required field ${lacking}`, `missing field ${lacking}`);
  const layers = [...context.layers, sessionLayer(identity, session.fields)];
  const validate = identity.config.auth?.validate;
  if (validate === undefined) {
    context.audit.record({ event: "session-unchecked" });
    return { ok: true, layers };
  }
  if (recentlyValid(session, identity.config.auth?.cache_ttl_seconds ?? 0, context.now())) {
    context.audit.record({ event: "session-ok", detail: "cached" });
    return { ok: true, layers };
  }
  const run = await context.validate(validate, layers);
  // The agent's cancel ended the run, not the credentials: nothing is recorded in the session file (which
  // `torii auth status` reports as expired) nor audited as session-invalid; a run that finished anyway counts.
  if (run.canceled && run.exitCode !== 0) {
    context.audit.record({ event: "session-unchecked", detail: "canceled" });
    return { ok: false, canceled: true };
  }
  const valid = run.exitCode === 0;
  await store.recordCheck(session.saved_at, { checked_at: context.now().toISOString(), result: valid ? "valid" : "invalid" });
  if (!valid) return deny(`the stored credentials of ${identity.name} no longer validate`, run.timedOut ? "timed out" : `exit ${String(run.exitCode)}`);
  context.audit.record({ event: "session-ok" });
  return { ok: true, layers };
}

function recentlyValid(session: StoredSession, ttlSeconds: number, now: Date): boolean {
  if (session.check?.result !== "valid" || ttlSeconds <= 0) return false;
  const age = now.getTime() - Date.parse(session.check.checked_at);
  return age >= 0 && age < ttlSeconds * 1000;
}

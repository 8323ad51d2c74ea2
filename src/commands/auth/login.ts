/**
 * `torii auth login <tool> [target] [--from-env NAME…] [--stdin]`: stores the
 * credentials of an `environment`-strategy identity provider for the scope
 * the calls to `<tool> [target]` use.
 *
 * Invariant 6, replace only after validation: the values are collected first
 * (collect-fields.ts), then, holding the scope's lock (the one the server's
 * calls take, across processes), the provider's `validate` command runs with
 * the candidate values layered onto the environment a call would get — in
 * that child only, never in Torii's own environment — and only when it
 * succeeds is the session file replaced, in one atomic write. A failed
 * validation, a cancelled prompt or any error leaves the old session as it was.
 */
import { loadSettings } from "../../config/settings.js";
import { runInAuthScope, sessionStoreOf } from "../../pipeline/auth-scope.js";
import { readLayers } from "../../pipeline/authenticate.js";
import { redactorFor } from "../../pipeline/call-secrets.js";
import { missingRequiredField, sessionLayer } from "../../pipeline/environment-session.js";
import { launchLifecycleCommand, type LifecycleDeps } from "../../pipeline/lifecycle-command.js";
import { ScopeMutex } from "../../pipeline/scope-mutex.js";
import { startLaunch } from "../../runtime/launcher.js";
import { toriiCodeDirectory } from "../../runtime/own-code.js";
import { operatorAudit } from "../shared/operator-audit.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";
import { emit, type JsonOption } from "../shared/operator-output.js";
import { loadOperatorRegistry } from "../shared/selection.js";
import { selectSession, type SessionSelection } from "./auth-scope-selection.js";
import { collectFields, type PromptTerminal } from "./collect-fields.js";

/** Exit code of a login whose values did not validate, or that was cancelled: the old session is kept. */
export const EXIT_LOGIN_FAILED = 1;

export interface AuthLoginOptions extends JsonOption {
  readonly fromEnv?: readonly string[];
  readonly stdin?: boolean;
}

/** How much of the validate command's output an operator sees when it fails. */
const FAILURE_OUTPUT_CHARS = 2000;

function lifecycleDeps(root: string): LifecycleDeps {
  return {
    settings: loadSettings(root),
    start: startLaunch,
    serverEnv: process.env,
    platform: process.platform,
    selfDir: toriiCodeDirectory(),
    cwd: process.cwd(),
  };
}

function isCancellation(error: unknown): boolean {
  return error instanceof Error && (error.name === "ExitPromptError" || error.name === "AbortPromptError");
}

/**
 * Validates `values` as a call would, then stores them; throws OperatorError
 * (keeping the old session) when they do not validate. For any front end that
 * collects the same fields (the approval page may offer this form too).
 */
export async function storeValidatedSession(
  selection: SessionSelection,
  values: Readonly<Record<string, string>>,
  deps: LifecycleDeps,
): Promise<"validated" | "stored"> {
  const { scope } = selection;
  const layers = [...readLayers(selection, scope.identity), sessionLayer(scope.identity, values)];
  const redactor = redactorFor(layers);
  const validate = scope.identity.config.auth?.validate;
  return runInAuthScope(new ScopeMutex(), scope, deps.settings.timeoutSeconds * 1000, async () => {
    const now = new Date();
    if (validate === undefined) {
      await sessionStoreOf(scope).replace(values, now, undefined);
      return "stored";
    }
    let run: Awaited<ReturnType<typeof launchLifecycleCommand>>;
    try {
      run = await launchLifecycleCommand(validate.command, validate.args, { ...selection, identity: scope.identity }, layers, deps, { redactor });
    } catch (error) {
      // Not found on PATH, a shim that cannot be pinned, a spawn failure: the operator's problem to fix, said as such
      // (redacted like the command's output), and the old session stays.
      const why = redactor.redact(error instanceof Error ? error.message : String(error));
      await operatorAudit().record({ event: "session-candidate-invalid", scope: selection.auditScope, detail: "the validate command could not start" });
      throw new OperatorError(`the validate command ${validate.command} could not start: ${why}; the stored session is unchanged`, EXIT_LOGIN_FAILED);
    }
    if (run.exitCode !== 0) {
      const status = run.timedOut ? "timed out" : run.exitCode === null ? `was ended by ${run.signal ?? "a signal"}` : `exited with code ${run.exitCode}`;
      const output = `${run.stderr}${run.stdout}`.trim().slice(-FAILURE_OUTPUT_CHARS);
      await operatorAudit().record({ event: "session-candidate-invalid", scope: selection.auditScope, detail: status });
      throw new OperatorError(
        `the values did not validate: ${validate.command} ${status}; the stored session is unchanged${output === "" ? "" : `\n${output}`}`,
        EXIT_LOGIN_FAILED,
      );
    }
    await sessionStoreOf(scope).replace(values, now, { checked_at: new Date().toISOString(), result: "valid" });
    return "validated";
  });
}

export async function runAuthLogin(tool: string, target: string | undefined, options: AuthLoginOptions, terminal: PromptTerminal): Promise<number> {
  const root = configRoot();
  const selection = selectSession(loadOperatorRegistry(), tool, target);
  const { identity } = selection.scope;
  const fields = identity.config.auth?.fields ?? [];
  if (fields.length === 0) throw new OperatorError(`${identity.name} declares no auth.fields in ${identity.file}: there is nothing to log in with`);
  const interactive = options.stdin !== true && (options.fromEnv ?? []).length === 0;
  if (interactive && (terminal.input as { isTTY?: boolean }).isTTY !== true) {
    throw new OperatorError("standard input is not a terminal: give the values with --from-env NAME… or as .env text with --stdin");
  }
  let values: Record<string, string>;
  try {
    values = await collectFields(fields, { fromEnv: options.fromEnv ?? [], stdin: options.stdin === true }, process.env, terminal);
  } catch (error) {
    if (isCancellation(error)) throw new OperatorError("login cancelled; the stored session is unchanged", EXIT_LOGIN_FAILED);
    throw error;
  }
  const lacking = missingRequiredField(identity, values);
  if (lacking !== undefined) throw new OperatorError(`the required field ${lacking} is empty; the stored session is unchanged`);
  const outcome = await storeValidatedSession(selection, values, lifecycleDeps(root));
  await operatorAudit(root).record({ event: "session-refreshed", scope: selection.auditScope, detail: outcome });
  const what = outcome === "validated" ? "validated and stored" : "stored (the provider declares no validate command)";
  emit(
    options,
    {
      action: "session-stored",
      tool,
      target: target ?? null,
      identity_provider: identity.name,
      scope: selection.scope.scope,
      validated: outcome === "validated",
    },
    [`${identity.name} credentials for scope ${selection.scope.scope} ${what}.`],
  );
  return 0;
}

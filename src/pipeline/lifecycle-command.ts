/**
 * Runs one auth lifecycle command (a provider's `validate` or identity probe)
 * with the environment the real call will use (child-plan.ts): for the
 * server's calls and for `torii auth login`, which validates candidate values
 * exactly as a call would. The values reach only this child, never Torii's own
 * environment.
 */
import type { ProviderEntry, TargetEntry } from "../config/registry.js";
import type { Settings } from "../config/settings.js";
import type { LaunchResult, StartLaunch } from "../runtime/launcher.js";
import type { Redactor } from "../runtime/redaction.js";
import { withKubeContext } from "./child-kubeconfig.js";
import { planChild, type ChildPlanDeps, type CredentialLayers } from "./child-plan.js";
import { targetInjection, targetPinnedEnv } from "./target-injection.js";

export interface LifecycleDeps extends ChildPlanDeps {
  readonly settings: Settings;
  /** Starts the command: in-process for the operator CLI, through the child host for the server. */
  readonly start: StartLaunch;
}

/** Whose command runs, for which call. */
export interface LifecycleSubject {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry | undefined;
  readonly identity: ProviderEntry;
}

/** Output cap for validate and identity commands: they print a line or a small JSON document. */
const LIFECYCLE_OUTPUT_BYTES = 64 * 1024;

/** Starts `command args` as the identity provider's lifecycle step and waits for it. */
export async function launchLifecycleCommand(
  command: string,
  args: readonly string[],
  subject: LifecycleSubject,
  layers: CredentialLayers,
  deps: LifecycleDeps,
  options: { readonly signal?: AbortSignal | undefined; readonly redactor?: Redactor | undefined },
): Promise<LaunchResult> {
  // The target's options belong to the called CLI; another identity provider's commands get none, only its pinned variables (KUBECONFIG).
  const injection =
    subject.identity === subject.provider
      ? targetInjection(subject.provider, subject.target)
      : { args: [], env: targetPinnedEnv(subject.provider, subject.target) };
  const plan = planChild(command, [...args, ...injection.args], subject.identity, layers, injection.env, deps);
  const launch = async (env: Readonly<Record<string, string>>): Promise<LaunchResult> => {
    const started = await deps.start({
      executable: plan.executable,
      args: plan.args,
      env,
      cwd: deps.cwd,
      maxOutputBytes: LIFECYCLE_OUTPUT_BYTES,
      timeoutMs: deps.settings.timeoutSeconds * 1000,
      signal: options.signal,
      windowsVerbatimArguments: plan.windowsVerbatimArguments,
      redactor: options.redactor,
    });
    return started.running;
  };
  // The call runs with --context; another identity provider's commands must check that context, not the kubeconfig's current one.
  const context = subject.identity === subject.provider ? undefined : kubeContextOf(subject);
  return context === undefined ? launch(plan.env) : withKubeContext(plan.env, context, deps.platform, subject.identity.trust.policy, launch);
}

/** The context a kubectl_context target's calls run with (`--context`), if any. */
function kubeContextOf(subject: LifecycleSubject): string | undefined {
  return subject.provider.config.targeting?.mode === "kubectl_context" ? subject.target?.config.context : undefined;
}

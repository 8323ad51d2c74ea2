/**
 * What the broker adds to a call because the human chose the target: the
 * options the agent may never set itself (`--context`, `--profile`,
 * `--region`) and the profile variable. They go before the agent's canonical
 * argv, so they are never inside a `--` tail.
 */
import type { ProviderEntry, TargetEntry } from "../config/registry.js";

export interface TargetInjection {
  readonly args: readonly string[];
  /** Pinned into the child environment last (they win over every .env). */
  readonly env: Readonly<Record<string, string>>;
}

const NOTHING: TargetInjection = { args: [], env: {} };

/**
 * The variables the target pins for every child of its call, including the
 * lifecycle commands of another identity provider (which get none of the
 * CLI's options): a kubectl_context target's `kubeconfig` as KUBECONFIG, so the
 * CLI and the identity check read the same file. An environment variable
 * rather than `--kubeconfig`, because an identity provider's command is
 * another program whose options the broker does not know.
 */
export function targetPinnedEnv(provider: ProviderEntry, target: TargetEntry | undefined): Readonly<Record<string, string>> {
  const kubeconfig = target?.config.kubeconfig;
  return provider.config.targeting?.mode === "kubectl_context" && kubeconfig !== undefined ? { KUBECONFIG: kubeconfig } : {};
}

/** The options and variables the broker adds to the call of `provider` on `target`. */
export function targetInjection(provider: ProviderEntry, target: TargetEntry | undefined): TargetInjection {
  if (target === undefined) return NOTHING;
  const config = target.config;
  switch (provider.config.targeting?.mode) {
    case "kubectl_context":
      return config.context === undefined ? NOTHING : { args: [`--context=${config.context}`], env: targetPinnedEnv(provider, target) };
    case "aws_profile": {
      const profile = config.identity.profile;
      if (profile === undefined) return NOTHING;
      const args = [`--profile=${profile}`, ...(config.region === undefined ? [] : [`--region=${config.region}`])];
      const profileEnv = provider.config.auth?.profile_env ?? "AWS_PROFILE";
      return { args, env: { [profileEnv]: profile } };
    }
    case "credentials":
    case undefined:
      return NOTHING;
  }
}

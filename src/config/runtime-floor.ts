/**
 * Runtime facts of a CLI that an operator tree installed before the bundled
 * provider.yaml stated them still gets, keyed by the executable a provider runs
 * (as the parser floor in locked-floor.ts is): the files in the child's home
 * that rewrite what a call's words mean (`runtime.home_config`: the AWS CLI's
 * `~/.aws/cli/alias`, az's alias table) and the variables that switch such a
 * file off (`runtime.fixed_env`: kubectl's kuberc). An operator tree keeps the
 * provider.yaml it was installed with until `torii provider upgrade`, so
 * without this floor an older aws tree ran a planted alias's shell line.
 *
 * The provider's own choice wins: a `home_config` it states (even `[]`, the
 * documented way to accept an alias file) replaces the floor's list, and a
 * `fixed_env` value it sets for the same name replaces the floor's value.
 *
 * Deliberately partial: it holds the facts of session 22's red team. Earlier
 * runtime facts (`PYTHONSAFEPATH`, az's `AZURE_*` fixed values and its
 * `working_directory_config`) reach an older tree only through `torii provider
 * upgrade`, which the server's start-up and `torii doctor` name for every
 * installed definition older than the bundled one.
 */
import { executableName } from "./locked-floor.js";
import type { ProviderConfig } from "./provider-schema.js";

interface RuntimeFloor {
  readonly homeConfig?: readonly string[];
  readonly fixedEnv?: Readonly<Record<string, string>>;
}

const RUNTIME_FLOOR: Readonly<Record<string, RuntimeFloor>> = Object.freeze({
  aws: Object.freeze({ homeConfig: Object.freeze([".aws/cli/alias"]) }),
  az: Object.freeze({ homeConfig: Object.freeze([".azure/alias", "$AZURE_CONFIG_DIR/alias"]) }),
  kubectl: Object.freeze({ fixedEnv: Object.freeze({ KUBECTL_KUBERC: "false" }) }),
});

/** The files of the child's home a call is refused while they exist: the provider's list, else its executable's floor. */
export function homeConfigOf(provider: ProviderConfig): readonly string[] {
  return provider.runtime?.home_config ?? RUNTIME_FLOOR[executableName(provider.command)]?.homeConfig ?? [];
}

/** The values every child of the provider runs with: its executable's floor, then the provider's own `fixed_env` over it. */
export function fixedEnvOf(provider: ProviderConfig): Readonly<Record<string, string>> {
  return { ...(RUNTIME_FLOOR[executableName(provider.command)]?.fixedEnv ?? {}), ...(provider.runtime?.fixed_env ?? {}) };
}

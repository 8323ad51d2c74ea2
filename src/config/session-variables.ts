/**
 * The variables a stored session (auth strategy `environment`) may not set.
 * A session's values come from the login prompts and are applied after the
 * `.env` layers, but unlike those files and the kubeconfig a configuration
 * names, nothing checks what they point at: a session `KUBECONFIG` or `PATH`
 * would choose the program the child runs or a file it reads (and a kubeconfig
 * runs its exec plugins) with no trust rule applied, and the operator CLI's
 * view of the call (pipeline/child-files.ts) would not see it. So a provider
 * may not inject them at all: such a name is refused when the configuration
 * loads. A session carries credentials; where the CLI finds its program and
 * files is the `.env`'s and the target's business.
 */

/** Names (compared case-insensitively, as Windows does) that locate a program or a file the child reads. */
const LOCATING = new Set([
  "PATH",
  "PATHEXT",
  "HOME",
  "USERPROFILE",
  "KUBECONFIG",
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
  "CLOUDSDK_CONFIG",
  "AZURE_CONFIG_DIR",
  "NODE_OPTIONS",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONSTARTUP",
  "BASH_ENV",
]);

/** Prefixes of code-loader variables (`LD_PRELOAD`, `DYLD_INSERT_LIBRARIES`, …). */
const LOCATING_PREFIXES = ["LD_", "DYLD_"];

/**
 * Why a stored session may not set `name`, or undefined when it may.
 */
export function sessionVariableProblem(name: string): string | undefined {
  const upper = name.toUpperCase();
  if (!LOCATING.has(upper) && !LOCATING_PREFIXES.some((prefix) => upper.startsWith(prefix))) return undefined;
  return `${name} names a program or a file the CLI reads, which a stored session may not set (no trust rule would check it); set it in the provider's .env or the target instead`;
}

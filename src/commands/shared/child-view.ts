/**
 * The operator CLI's view of a call's child, through the server's own
 * computation (pipeline/child-files.ts). The CLI's environment stands in for
 * the server's only where the server's would be read: the allowlisted
 * variables (PATH, HOME, …); KUBECONFIG, AWS_* and the rest of the shell never
 * reach the child, so they are not read here either.
 */
import type { ProviderEntry, Registry, TargetEntry } from "../../config/registry.js";
import { childFilesOf, type ChildFiles } from "../../pipeline/child-files.js";
import type { ChildPlanDeps } from "../../pipeline/child-plan.js";
import { toriiCodeDirectory } from "../../runtime/own-code.js";
import { operatorTrustedDirectories } from "./operator-path-trust.js";

/** The child-planning inputs of this process, as the server has its own. */
export function operatorChildDeps(): ChildPlanDeps {
  return {
    serverEnv: process.env,
    platform: process.platform,
    selfDir: toriiCodeDirectory(),
    cwd: process.cwd(),
    pathTrustedDirectories: operatorTrustedDirectories(),
  };
}

/**
 * What the child of a call to `provider` on `target` will read and run.
 *
 * @throws ConfigError when a `.env` layer is untrusted or malformed.
 */
export function operatorChildFiles(provider: ProviderEntry, target: TargetEntry | undefined, registry: Registry): ChildFiles {
  return childFilesOf(provider, target, registry, operatorChildDeps());
}

/** The shell's own environment as a child environment would hold it (only to tell the operator where it differs). */
export function shellEnv(): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

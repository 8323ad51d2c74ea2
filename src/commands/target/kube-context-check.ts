/**
 * `torii target add`'s check of a kubectl_context target's context, against
 * the kubeconfig the server's kubectl will read for it (pipeline/child-files.ts),
 * never the shell's own KUBECONFIG. Where they differ the operator is told
 * which file the target uses, and a context found only in the shell's file is
 * refused with the flag that pins that file: pinning it silently would make a
 * shell variable of the moment part of the target.
 */
import path from "node:path";
import { ConfigError } from "../../config/errors.js";
import type { ProviderEntry, Registry } from "../../config/registry.js";
import type { TargetConfig } from "../../config/target-schema.js";
import { childKubeconfigOf } from "../../pipeline/child-kubeconfig.js";
import { unseenEscapes } from "../../runtime/display-text.js";
import { operatorChildFiles, shellEnv } from "../shared/child-view.js";
import { OperatorError } from "../shared/operator-context.js";
import { checkedKubeconfigContexts, kubeconfigContexts } from "./kubeconfig.js";
import { pendingTarget } from "./pending-target.js";

/**
 * The context must exist in the kubeconfig the server's kubectl will read for
 * this target (its pin, else KUBECONFIG from a `.env`, else the child's
 * `~/.kube/config`), and that file must pass the trust rule. The shell's own
 * KUBECONFIG never reaches the server's kubectl: a context found only there is
 * refused, naming both files and the flag that pins the shell's file. Returns a
 * note when the shell's KUBECONFIG names other files than the target will use.
 */
export function checkKubeContext(registry: Registry, provider: ProviderEntry, config: TargetConfig): string | undefined {
  const context = config.context ?? "";
  let kubeconfig;
  let contexts: string[] = [];
  let unreadable: Error | undefined;
  try {
    kubeconfig = operatorChildFiles(provider, pendingTarget(provider, config), registry).kubeconfig;
    contexts = checkedKubeconfigContexts(kubeconfig, provider.trust.policy, config.kubeconfig);
  } catch (error) {
    if (error instanceof ConfigError) throw new OperatorError(`the target's kubeconfig cannot be used, nothing was written:\n${error.message}`);
    if (kubeconfig === undefined) throw error;
    unreadable = error as Error;
  }
  const files = kubeconfig.files.join(path.delimiter);
  const shell = childKubeconfigOf(shellEnv(), process.platform);
  const shellDiffers = shell.configured && shell.files.join(path.delimiter) !== files;
  if (!contexts.includes(context)) {
    const shellFile = shellDiffers ? shell.files.find((file) => readableContexts(file).includes(context)) : undefined;
    if (shellFile !== undefined) {
      throw new OperatorError(
        `--context: ${JSON.stringify(context)} is in ${shellFile} (your shell's KUBECONFIG), but the MCP server's kubectl reads ${files} for this target (it never passes KUBECONFIG on), which has no such context; pin your file with --kubeconfig ${shellFile}`,
      );
    }
    if (unreadable !== undefined) throw unreadable;
    // The names come from the kubeconfig, which anyone who can write it fills: its escapes and controls are written out.
    const known = contexts.length === 0 ? "it has none" : `it has: ${[...new Set(contexts)].sort().map(unseenEscapes).join(", ")}`;
    throw new OperatorError(`--context: the kubeconfig ${files} has no context ${unseenEscapes(JSON.stringify(context))} (${known})`);
  }
  return shellDiffers
    ? `note: the target uses ${files}, which the MCP server's kubectl reads, not your shell's KUBECONFIG ${shell.files.join(path.delimiter)}; --kubeconfig pins another file`
    : undefined;
}

/** The contexts of a file, or none when it cannot be read (only to explain a refusal). */
function readableContexts(file: string): string[] {
  try {
    return kubeconfigContexts(file);
  } catch {
    return [];
  }
}

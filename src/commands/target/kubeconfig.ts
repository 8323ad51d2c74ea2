/**
 * The context names of the operator's kubeconfig, so `torii target add` can
 * refuse a context that does not exist. Only `contexts[].name` is read; a
 * kubeconfig holds credentials, so nothing else from it is ever printed (YAML
 * errors are reported by position only, without the source excerpt).
 */
import { parseDocument } from "yaml";
import type { TrustPolicy } from "../../config/file-trust.js";
import { readConfigTextIfExists } from "../../config/read-file.js";
import { checkConfiguredKubeconfigs, type ChildKubeconfig } from "../../pipeline/child-kubeconfig.js";
import { OperatorError } from "../shared/operator-context.js";

/**
 * The context names of every file a call's kubectl reads, after the trust rule
 * the call itself applies (pipeline/child-kubeconfig.ts), so `torii target add`,
 * `torii doctor` and the call refuse the same missing or untrusted entry with
 * the same words.
 *
 * @throws ConfigError for a configured file the call refuses; OperatorError for one that cannot be read as a kubeconfig.
 */
export function checkedKubeconfigContexts(kubeconfig: ChildKubeconfig, policy: TrustPolicy, pinned: string | undefined): string[] {
  checkConfiguredKubeconfigs(kubeconfig, policy, pinned);
  return kubeconfig.files.flatMap((file) => kubeconfigContexts(file));
}

/** The context names declared in `file`. */
export function kubeconfigContexts(file: string): string[] {
  let text: string | undefined;
  try {
    // Without blocking: a named pipe put at ~/.kube/config is refused instead of hanging doctor and target add.
    text = readConfigTextIfExists(file);
  } catch (error) {
    throw new OperatorError(`cannot read the kubeconfig ${(error as Error).message}; replace it, or pin another one (torii target add --kubeconfig)`);
  }
  if (text === undefined) throw new OperatorError(`cannot read the kubeconfig ${file} (ENOENT); create it, or pin another one (torii target add --kubeconfig)`);
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false });
  const problem = doc.errors[0];
  if (problem !== undefined) {
    const at = problem.linePos?.[0];
    throw new OperatorError(`the kubeconfig ${file} is not valid YAML (${problem.code}${at === undefined ? "" : ` at line ${at.line}`})`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch {
    throw new OperatorError(`the kubeconfig ${file} cannot be read as data`);
  }
  const contexts = typeof value === "object" && value !== null && "contexts" in value ? value.contexts : undefined;
  if (contexts === undefined || contexts === null) return [];
  if (!Array.isArray(contexts)) throw new OperatorError(`the kubeconfig ${file}: contexts is not a list`);
  return contexts.flatMap((entry: unknown) =>
    typeof entry === "object" && entry !== null && "name" in entry && typeof entry.name === "string" ? [entry.name] : [],
  );
}

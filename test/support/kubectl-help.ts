/**
 * The real kubectl's help text, read with a scratch HOME and no kubeconfig, so
 * no local kubeconfig or kuberc alias changes what it prints (as the generators
 * read it, scripts/providers/kubectl-options.mjs).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { tempDirectory } from "./temp-dirs.js";

/** The lines kubectl prints for `args` (`["get", "--help"]`, `["options"]`). */
export function kubectlHelp(...args: string[]): string[] {
  // A directory per call: tempDirectory's are removed when the test file ends, and a worker runs several files.
  const home = tempDirectory("torii-kubectl-help-");
  return execFileSync("kubectl", args, {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, KUBECONFIG: path.join(home, "none") },
    encoding: "utf8",
  }).split("\n");
}

/**
 * The real kubectl's help text, read with a scratch HOME and no kubeconfig, so
 * no local kubeconfig or kuberc alias changes what it prints (as the generators
 * read it, scripts/providers/kubectl-options.mjs).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { tempDirectory } from "./temp-dirs.js";

/** What kubectl printed, by its arguments: the same kubectl prints the same help for the whole run, and tests ask again and again. */
const printed = new Map<string, string>();

/** The lines kubectl prints for `args` (`["get", "--help"]`, `["options"]`). */
export function kubectlHelp(...args: string[]): string[] {
  const key = args.join("\0");
  let text = printed.get(key);
  if (text === undefined) {
    // A directory per call: tempDirectory's are removed when the test file ends, and a worker runs several files.
    const home = tempDirectory("torii-kubectl-help-");
    text = execFileSync("kubectl", args, {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, KUBECONFIG: path.join(home, "none") },
      encoding: "utf8",
    });
    printed.set(key, text);
  }
  return text.split("\n");
}

/**
 * What `torii setup` finds on this machine: the bundled providers whose CLI is
 * on PATH, the kube contexts of the kubeconfig (asked of kubectl itself, with
 * the kubeconfig named explicitly, no shell), and the AWS profiles.
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { providersDir } from "../../config/paths.js";
import { findOnPath } from "../shared/cli-on-path.js";
import { listCatalogue } from "../provider/catalogue.js";
import { kubeconfigPath } from "../target/kubeconfig.js";

/** A bundled provider, whether its CLI is on PATH and whether it is installed. */
export interface DetectedProvider {
  readonly name: string;
  readonly presets: readonly string[];
  readonly cli: string | undefined;
  readonly installed: boolean;
}

/** The catalogue as seen from `root` and PATH. */
export function detectProviders(root: string): DetectedProvider[] {
  return listCatalogue().map((entry) => {
    const text = readFileSync(path.join(entry.dir, "provider.yaml"), "utf8");
    const command = /^command:\s*(\S+)/mu.exec(text)?.[1] ?? entry.name;
    return {
      name: entry.name,
      presets: entry.presets,
      cli: findOnPath(command),
      installed: existsSync(path.join(providersDir(root), entry.name, "provider.yaml")),
    };
  });
}

/** The kubeconfig and its context names from `kubectl config get-contexts -o name`; empty when kubectl fails. */
export function kubeContexts(kubectl: string): { kubeconfig: string; contexts: string[] } {
  const kubeconfig = kubeconfigPath(process.env, os.homedir());
  const result = spawnSync(kubectl, ["config", "get-contexts", "-o", "name", "--kubeconfig", kubeconfig], { encoding: "utf8", timeout: 15_000, shell: false });
  const contexts =
    result.status === 0
      ? result.stdout
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== "")
      : [];
  return { kubeconfig, contexts };
}

/** A target alias for a context or profile name: `[A-Za-z0-9_.-]`, at most 64 characters. */
export function aliasFor(name: string): string {
  const alias = name
    .replace(/[^A-Za-z0-9_.-]+/gu, "-")
    .replace(/^[-.]+|-+$/gu, "")
    .slice(-64);
  return alias === "" ? "target" : alias;
}

/**
 * What `torii setup` finds on this machine: the bundled providers whose CLI is
 * on PATH, the kube contexts of the kubeconfig the server's kubectl will read
 * (asked of kubectl itself, run as the call's child, no shell), and the AWS profiles.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { providersDir } from "../../config/paths.js";
import { findOnPath } from "../shared/cli-on-path.js";
import { listCatalogue } from "../provider/catalogue.js";
import type { ProviderEntry, Registry } from "../../config/registry.js";
import { operatorChildFiles } from "../shared/child-view.js";

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

/**
 * The kubeconfig a new kubectl target without a pin will read, as the server's
 * child sees it (pipeline/child-files.ts: a `.env` KUBECONFIG, else the child's
 * `~/.kube/config`, never the shell's KUBECONFIG), and its context names from
 * `kubectl config get-contexts -o name`, run with what locates that child's files
 * (never its `.env` credentials); empty when kubectl fails.
 */
export function kubeContexts(kubectl: ProviderEntry, registry: Registry): { kubeconfig: string; contexts: string[] } {
  const files = operatorChildFiles(kubectl, undefined, registry);
  const kubeconfig = files.kubeconfig.files.join(path.delimiter);
  if (!files.executable.ok) return { kubeconfig, contexts: [] };
  const result = spawnSync(files.executable.path, ["config", "get-contexts", "-o", "name"], {
    encoding: "utf8",
    timeout: 15_000,
    shell: false,
    env: files.probeEnv,
  });
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

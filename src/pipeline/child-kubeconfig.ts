/**
 * The kubeconfig files a child reads, from its own environment, and the trust
 * rule they are held to. A kubeconfig can name exec plugins (`users[].user.exec`)
 * that kubectl runs, so whoever can write one runs code as the operator: a
 * kubeconfig the configuration points the child at (the target's `kubeconfig:`
 * pin, or `KUBECONFIG` in an operator's `.env`) must pass the same owner and
 * mode rule as the `.env` files themselves, per call, before anything starts.
 * The default `~/.kube/config` is the operator's own file and is not checked.
 */
import { accessSync, constants } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError } from "../config/errors.js";
import type { TrustPolicy } from "../config/file-trust.js";
import { checkTrustedOutsideFile } from "../config/trusted-path.js";
import type { ProviderEntry, TargetEntry } from "../config/registry.js";
import { childEnvOf, variable, type ChildPlanDeps, type CredentialLayers } from "./child-plan.js";
import { targetInjection } from "./target-injection.js";

/** Where kubectl, run with `env`, finds its configuration. */
export interface ChildKubeconfig {
  /** The files kubectl merges, in order: `KUBECONFIG`'s entries, else the child's `$HOME/.kube/config`. */
  readonly files: readonly string[];
  /** True when `KUBECONFIG` names them (a pin or a `.env`), false for the default file. */
  readonly configured: boolean;
}

/** The kubeconfig files of a child environment, as kubectl reads them. */
export function childKubeconfigOf(env: Readonly<Record<string, string>>, platform: NodeJS.Platform): ChildKubeconfig {
  const delimiter = platform === "win32" ? path.win32.delimiter : path.posix.delimiter;
  const files = (variable(env, "KUBECONFIG", platform) ?? "").split(delimiter).filter((entry) => entry !== "");
  if (files.length > 0) return { files, configured: true };
  // kubectl's home: HOME, and on Windows USERPROFILE after it.
  const home = variable(env, "HOME", platform) ?? (platform === "win32" ? variable(env, "USERPROFILE", platform) : undefined) ?? os.homedir();
  return { files: [path.join(home, ".kube", "config")], configured: false };
}

/**
 * Refuses a configured kubeconfig that is writable by someone else (the file or
 * a directory above it), unreadable, or missing. A missing entry fails closed
 * although kubectl would skip it: whoever can create it later (under a sticky
 * `/tmp`, say) would have its exec plugin run as the operator.
 *
 * @throws ConfigError naming the file and, for a trust problem, the command that fixes it.
 */
export function checkConfiguredKubeconfigs(kubeconfig: ChildKubeconfig, policy: TrustPolicy, pinned?: string): void {
  if (!kubeconfig.configured) return;
  for (const file of kubeconfig.files) {
    if (!path.isAbsolute(file)) throw new ConfigError(file, "is a relative kubeconfig path; KUBECONFIG and kubeconfig: must name absolute files");
    if (!checkTrustedOutsideFile(policy, file)) {
      throw new ConfigError(
        file,
        file === pinned
          ? "does not exist (the kubeconfig the target pins)"
          : "does not exist (KUBECONFIG in a .env names it); fix: create it, or take it out of the KUBECONFIG of that .env",
      );
    }
    try {
      accessSync(file, constants.R_OK);
    } catch (error) {
      throw new ConfigError(
        file,
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}), and the call is configured to read it as a kubeconfig`,
      );
    }
  }
}

/**
 * The per-call check, after the `.env` layers are read and before any child
 * starts: the kubeconfig files the call's environment names must be trusted.
 * Most calls configure none and pay only a look at the layers' keys. A path a
 * `.env` set is a `.env` value: the error then names no path (doctor does).
 *
 * @throws ConfigError as checkConfiguredKubeconfigs for the target's pin; an
 *   Error without the path for a KUBECONFIG a `.env` set.
 */
export function checkCallKubeconfigs(provider: ProviderEntry, target: TargetEntry | undefined, layers: CredentialLayers, deps: ChildPlanDeps): void {
  const pinned = targetInjection(provider, target).env;
  const named = (name: string): boolean => name.toUpperCase() === "KUBECONFIG";
  const pin = Object.entries(pinned).find(([name]) => named(name))?.[1];
  if (pin === undefined && !layers.some((layer) => [...layer.keys()].some(named))) return;
  const kubeconfig = childKubeconfigOf(childEnvOf(provider, layers, pinned, deps), deps.platform);
  try {
    checkConfiguredKubeconfigs(kubeconfig, provider.trust.policy, pin);
  } catch (error) {
    if (pin !== undefined || !(error instanceof ConfigError)) throw error;
    throw new Error("a kubeconfig that KUBECONFIG in a .env of this call names is missing or refused by the trust rule; torii doctor names it and the fix");
  }
}

/**
 * Finding a provider's CLI the way the server will (runtime/resolve-executable:
 * PATH only, never the working directory or below it, Torii's own folder or a
 * directory others can write to) and asking it
 * for its version, without a shell.
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { searchContext } from "../../config/search-trust.js";
import { definedVariables, pinVersionManagers } from "../../config/version-pin.js";
import { toriiCodeDirectory } from "../../runtime/own-code.js";
import { ExecutableNotFoundError, resolveExecutable } from "../../runtime/resolve-executable.js";
import { MISSING_ENTRY, type SearchPathContext } from "../../runtime/search-path.js";
import { operatorTrustedDirectories } from "./operator-path-trust.js";

/** The absolute path the server would launch for `command`, or undefined when PATH has none. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    return resolveOnPath(command, env);
  } catch {
    return undefined;
  }
}

/**
 * The absolute file for `command` through this shell's PATH, searched as the
 * server searches (for a program the operator CLI starts itself: the editor).
 *
 * @throws Error saying why there is none, naming the PATH entries left out (this is the operator's terminal).
 */
export function resolveOnPath(command: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return resolveExecutable(command, { pathEnv: env.PATH, pathExt: env.PATHEXT, ...operatorSearchContext() }).path;
  } catch (error) {
    const skipped = error instanceof ExecutableNotFoundError ? error.skipped.filter((entry) => entry.reason !== MISSING_ENTRY) : [];
    if (skipped.length === 0) throw error;
    throw new Error(`${(error as Error).message}; not searched: ${skipped.map(({ entry, reason }) => `${entry} (${reason})`).join("; ")}`);
  }
}

/**
 * The environment for a program this shell starts itself (the editor), with
 * the version managers it can reach pinned to the operator's global choice
 * (config/version-pin.ts): the shell may sit in the agent's project, whose
 * `.python-version` or `rust-toolchain.toml` would choose the interpreter.
 * An override variable already set in the operator's shell is kept.
 *
 * @throws VersionPinError when `executable` is a shim that cannot be pinned.
 */
export function pinnedShellEnv(executable: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return pinVersionManagers(definedVariables(env), executable, operatorSearchContext()).env;
}

/**
 * Where this shell searches and what it trusts, for one computation: the
 * lookup of a program and the pins of its managers use this one context, so
 * the operator's `path.trusted_directories` cannot apply to one and not the other.
 */
function operatorSearchContext(): SearchPathContext {
  return searchContext({ cwd: process.cwd(), selfDir: toriiCodeDirectory(), trustedDirectories: operatorTrustedDirectories() }, process.platform);
}

/** How each bundled CLI prints its version. */
const VERSION_ARGS: Readonly<Record<string, readonly string[]>> = {
  kubectl: ["version", "--client"],
  aws: ["--version"],
  az: ["version", "--output", "tsv"],
  gcloud: ["version"],
};

/**
 * Why the version probe of `command` must not start, or undefined when it may: kubectl loads its kubeconfig
 * (`kubeconfigFiles`, the files the call's child reads) even for `version --client`, and a named pipe there
 * blocks it, reading, until the probe's timeout. Such a file (one that exists and is not a regular file) is
 * named instead; a missing or unreadable one, or a directory, makes kubectl fail at once, so it does not stop the probe.
 */
export function versionProbeBlocker(command: string, kubeconfigFiles: readonly string[]): string | undefined {
  if (path.basename(command) !== "kubectl") return undefined;
  for (const file of kubeconfigFiles) {
    let blocks: boolean;
    try {
      const stats = statSync(file);
      blocks = !stats.isFile() && !stats.isDirectory();
    } catch {
      continue;
    }
    if (blocks) return `${file}: is not a regular file (a named pipe, a device or a socket), and kubectl reads it at start`;
  }
  return undefined;
}

/** The first line of `<executable> <version args>` (stdout, then stderr; run with `env`, what locates the call's program and files (ChildFiles.probeEnv), when given) that holds a version; undefined for an unknown CLI, a failure or a 10 s timeout. */
export function cliVersionText(command: string, executable: string, env?: Readonly<Record<string, string>>): string | undefined {
  const args = VERSION_ARGS[path.basename(command)];
  if (args === undefined) return undefined;
  const result = spawnSync(executable, [...args], {
    encoding: "utf8",
    timeout: 10_000,
    stdio: ["ignore", "pipe", "pipe"],
    shell: false,
    ...(env === undefined ? {} : { env }),
  });
  // aws-cli v1 printed its version on stderr in older releases.
  // Both are null when the program could not be started.
  const streams: unknown[] = [result.stdout, result.stderr];
  return streams
    .map((stream) => (typeof stream === "string" ? stream : ""))
    .join("\n")
    .split("\n")
    .find((line) => /\d+\.\d+/u.test(line))
    ?.trim();
}

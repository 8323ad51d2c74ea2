/**
 * The kubeconfig files a child reads, from its own environment, and the trust
 * rule they are held to. A kubeconfig can name exec plugins (`users[].user.exec`)
 * that kubectl runs, so whoever can write one runs code as the operator: a
 * kubeconfig the configuration points the child at (the target's `kubeconfig:`
 * pin, or `KUBECONFIG` in an operator's `.env`) must pass the same owner and
 * mode rule as the `.env` files themselves, per call, before anything starts
 * (pipeline/call-config-files.ts).
 * The default `~/.kube/config` is the operator's own file and is not checked.
 */
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError } from "../config/errors.js";
import type { TrustPolicy } from "../config/file-trust.js";
import { checkTrustedOutsideFile } from "../config/trusted-path.js";
import { variable } from "./child-plan.js";

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
  if (kubeconfig.configured) checkConfiguredFiles(kubeconfig.files, policy, { variable: "KUBECONFIG", kind: "kubeconfig", pinned });
}

/** What names configured files, for the messages: the variable (or pin) and what the child reads them as. */
export interface ConfiguredFileSource {
  readonly variable: string;
  readonly kind: string;
  /** The file the target pins, if any (its refusal says so instead of naming a `.env`). */
  readonly pinned?: string | undefined;
}

/**
 * The trust rule for files a configuration points a child at that can make it
 * run a program (a kubeconfig's exec plugin, an AWS `credential_process`):
 * absolute, present, trusted as a `.env` is, and readable.
 *
 * @throws ConfigError naming the file and, for a trust problem, the command that fixes it.
 */
export function checkConfiguredFiles(files: readonly string[], policy: TrustPolicy, source: ConfiguredFileSource): void {
  const { variable, kind, pinned } = source;
  for (const file of files) {
    if (!path.isAbsolute(file)) throw new ConfigError(file, `is a relative ${kind} path; ${variable} must name an absolute file`);
    if (!checkTrustedOutsideFile(policy, file)) {
      throw new ConfigError(
        file,
        file === pinned
          ? `does not exist (the ${kind} the target pins)`
          : `does not exist (${variable} in a .env names it); fix: create it, or take it out of the ${variable} of that .env`,
      );
    }
    try {
      accessSync(file, constants.R_OK);
    } catch (error) {
      throw new ConfigError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}), and the call is configured to read it as a ${kind}`);
    }
  }
}

/**
 * Runs `run` with `env` changed so that every kubeconfig client (kubectl, or any
 * client-go program such as an exec plugin's login helper) selects `context`:
 * a private file holding only `current-context: <context>` is put first in
 * `KUBECONFIG`, before the files the child would read anyway (its `KUBECONFIG`
 * entries, else its `$HOME/.kube/config`). kubectl merges the listed files and
 * keeps the first `current-context` it meets, so the result is the same as
 * `--context=<context>` over those files.
 *
 * This is for the commands of a target's identity provider (another program,
 * whose options the broker does not know): without it they would check the
 * kubeconfig's own current-context while the call runs with `--context`.
 * The file lives in a fresh 0700 directory and is removed when `run` settles;
 * it must pass the trust rule of a configured kubeconfig.
 *
 * @throws ConfigError when the temporary directory fails that rule, or its path holds the KUBECONFIG delimiter.
 */
export async function withKubeContext<T>(
  env: Readonly<Record<string, string>>,
  context: string,
  platform: NodeJS.Platform,
  policy: TrustPolicy,
  run: (env: Readonly<Record<string, string>>) => Promise<T>,
): Promise<T> {
  const delimiter = platform === "win32" ? path.win32.delimiter : path.posix.delimiter;
  const temp = os.tmpdir();
  // The file's path goes into KUBECONFIG: a delimiter in it would split it into other paths (a file planted at one
  // of them would be read, its exec plugin run), so such a temporary directory fails the call instead.
  if (temp.includes(delimiter)) {
    throw new ConfigError(
      temp,
      `holds "${delimiter}", the KUBECONFIG list separator, so it cannot hold the file that selects the target's context; fix: start the server with TMPDIR set to a directory without it`,
    );
  }
  const dir = mkdtempSync(path.join(temp, "torii-kube-context-"));
  try {
    const file = path.join(dir, "context.yaml");
    writeFileSync(file, `apiVersion: v1\nkind: Config\ncurrent-context: ${yamlDoubleQuoted(context)}\n`, { mode: 0o600, flag: "wx" });
    // kubectl reads it as a kubeconfig (which could name an exec plugin): held to the rule of a configured one, so a
    // temporary directory that others could rename or replace (not sticky) fails the call instead.
    checkConfiguredFiles([file], policy, { variable: "TMPDIR", kind: "kubeconfig (the target's context for its identity provider)" });
    const files = [file, ...childKubeconfigOf(env, platform).files].join(delimiter);
    // On Windows keep the spelling the environment already uses for the variable.
    const key = (platform === "win32" ? Object.keys(env).find((name) => name.toUpperCase() === "KUBECONFIG") : undefined) ?? "KUBECONFIG";
    return await run({ ...env, [key]: files });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `text` as a YAML double-quoted scalar that every YAML reader reads back
 * exactly: printable ASCII as is (`"` and `\` escaped), everything else
 * escaped by code point (`\uXXXX`, `\UXXXXXXXX` past the BMP). Raw non-ASCII
 * is not safe: a YAML reader folds a raw line break such as U+0085 (NEL),
 * U+2028 or U+2029 inside a quoted scalar into a space, so kubectl would select
 * another context than `--context` names.
 */
export function yamlDoubleQuoted(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (code >= 0x20 && code <= 0x7e) out += char;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/**
 * Pins the version managers a child can reach, so that no file in the agent's
 * working directory chooses the interpreter or toolchain that runs with the
 * operator's credentials (runtime/version-shim-detect.ts says why).
 *
 * Decision: the child keeps running the shim, in the working directory, with
 * the manager's own override variable set to the operator's **global** choice,
 * read from the manager's global file (`<root>/version` for the rbenv family,
 * what `pyenv global` prints; `default_toolchain` of rustup's `settings.toml`,
 * what `rustup default` prints). Resolving the shim to its real program once
 * would not be enough: that program's own lookups (`credential_process =
 * python …`, a kubeconfig's `aws eks get-token`, cargo running `rustc`) go
 * through the shims on the child's PATH again, and the variable reaches them
 * all. Reading the global file, rather than asking the manager in the home
 * directory, starts no process in the server and reads nothing the agent can
 * write: the home directory is often the agent's too.
 *
 * A manager Torii cannot pin (asdf, mise, volta) is refused when it is the
 * program itself, and its shims directory is taken off the child's PATH; so is
 * the directory of a manager whose global file is missing (rustup), untrusted
 * or malformed, when it is not the program itself (then the call fails).
 * An override variable the operator's `.env` set is kept: it is the
 * operator's choice, and the server's own environment never passes one.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { agentReach, FALLBACK_POSIX_PATH, MISSING_ENTRY, type SearchPathContext } from "../runtime/search-path.js";
import { envFamilyGlobalVersion, SHIM_SAMPLE_BYTES, versionManagerOf, type VersionManager } from "../runtime/version-shim-detect.js";

/** The program is a shim Torii cannot pin, or its manager's global choice cannot be read. */
export class VersionPinError extends Error {
  override readonly name = "VersionPinError";
}

/** A child's environment with every reachable manager pinned, and the manager of the program itself. */
export interface PinnedChild {
  readonly env: Record<string, string>;
  readonly manager: VersionManager | undefined;
  /** The override variables set here (not by the operator's `.env`): a probe of the operator CLI passes them on too. */
  readonly pinnedVariables: readonly string[];
}

/**
 * What every known manager reads to choose a version or to find its files:
 * a server's inherited environment loses them (its client, not the operator, set them).
 */
const MANAGER_VARIABLE = /^(?:PYENV|RBENV|NODENV|GOENV|PLENV|JENV|ASDF|MISE|RUSTUP|VOLTA)_/iu;

/**
 * Pins the server's own environment as a child's (the AWS SDK runs a profile's
 * `credential_process` through `/bin/sh` inside the server, in the agent's
 * working directory): the managers' variables it inherited from its client are
 * removed, then the managers on its (already reduced) PATH are pinned, or their
 * directories dropped from PATH. Done once, when the call side loads.
 */
export function pinOwnVersionManagers(env: NodeJS.ProcessEnv, context: SearchPathContext): void {
  for (const name of Object.keys(env)) if (MANAGER_VARIABLE.test(name)) Reflect.deleteProperty(env, name);
  const { env: pinned } = pinVersionManagers(definedVariables(env), undefined, context);
  for (const [name, value] of Object.entries(pinned)) if (env[name] !== value) env[name] = value;
}

/** The variables of a process environment that have a value. */
export function definedVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** How many entries of a `shims` directory are sampled to recognise its manager (the first regular files, by name). */
const SHIMS_SAMPLED = 8;

/**
 * Pins the managers reachable by `executable` and by the directories of `env`'s
 * PATH (already reduced to trusted absolute entries).
 *
 * @throws VersionPinError when `executable` is a shim that cannot be pinned;
 *   the message names the manager and the fix, never a PATH entry.
 */
export function pinVersionManagers(env: Readonly<Record<string, string>>, executable: string | undefined, context: SearchPathContext): PinnedChild {
  const windows = context.platform === "win32";
  const pathKey = variableKey(env, "PATH", windows) ?? "PATH";
  const directories = (env[pathKey] ?? "").split(windows ? ";" : ":").filter((entry) => entry !== "");
  const manager = executable === undefined ? undefined : managerOfProgram(executable, context);
  const command = executable === undefined ? "" : path.basename(executable);
  if (manager?.kind === "unpinnable") {
    throw new VersionPinError(
      `${command} is a shim of ${manager.name}, which picks its version from the working directory; Torii cannot pin ${manager.name}: run the real program by its absolute path instead (\`${manager.name} which ${command}\`), as the provider's command`,
    );
  }
  const pinned: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, env);
  const pinnedVariables: string[] = [];
  // Pins `found` unless the operator's `.env` already did; the problem when its global choice cannot be read.
  const pin = (found: VersionManager): string | undefined => {
    if (found.kind === "unpinnable") return `${found.name} is not pinned`;
    const name = overrideVariable(found);
    if (variableKey(pinned, name, windows) !== undefined) return undefined;
    const value = globalChoice(found, pinned, context);
    if (typeof value !== "string") return value.problem;
    pinned[name] = value;
    pinnedVariables.push(name);
    return undefined;
  };
  const problem = manager === undefined ? undefined : pin(manager);
  if (manager !== undefined && problem !== undefined) {
    throw new VersionPinError(
      `${command} is a shim of ${managerName(manager)}, which picks its version from the working directory, and Torii cannot pin it: ${problem}`,
    );
  }
  const kept = directories.filter((directory) => {
    const found = managerOfDirectory(directory, context);
    return found === undefined || pin(found) === undefined;
  });
  if (kept.length !== directories.length) pinned[pathKey] = kept.length === 0 && !windows ? FALLBACK_POSIX_PATH : kept.join(windows ? ";" : ":");
  return { env: pinned, manager, pinnedVariables };
}

function managerName(manager: VersionManager): string {
  return manager.kind === "rustup" ? "rustup" : manager.name;
}

function overrideVariable(manager: Exclude<VersionManager, { kind: "unpinnable" }>): string {
  return manager.kind === "rustup" ? "RUSTUP_TOOLCHAIN" : manager.versionVariable;
}

/** The name under which `env` holds `name` (any spelling on Windows), or undefined. */
function variableKey(env: Readonly<Record<string, string>>, name: string, windows: boolean): string | undefined {
  if (!windows) return Object.hasOwn(env, name) ? name : undefined;
  return Object.keys(env).find((key) => key.toUpperCase() === name);
}

/** The operator's global choice for `manager`, or why it cannot be read (messages name no path: the root comes from PATH). */
function globalChoice(manager: VersionManager, env: Readonly<Record<string, string>>, context: SearchPathContext): string | { problem: string } {
  if (manager.kind === "unpinnable") return { problem: `${manager.name} is not pinned` };
  if (manager.kind === "env-family") {
    const file = path.join(manager.root, "version");
    const text = trustedText(file, context, true);
    if (typeof text !== "string") return text;
    const choice = envFamilyGlobalVersion(manager, text);
    if ("refused" in choice) return { problem: `its global version file names ${JSON.stringify(choice.refused)}, which is no version name` };
    return "system" in choice ? "system" : choice.version;
  }
  const windows = context.platform === "win32";
  const rustupHome = env[variableKey(env, "RUSTUP_HOME", windows) ?? ""];
  const home = env[variableKey(env, windows ? "USERPROFILE" : "HOME", windows) ?? ""];
  const base = rustupHome ?? (home === undefined ? undefined : path.join(home, ".rustup"));
  if (base === undefined || !path.isAbsolute(base)) return { problem: "the child has no absolute HOME (or RUSTUP_HOME) to find rustup's settings in" };
  const text = trustedText(path.join(base, "settings.toml"), context, false);
  if (typeof text !== "string") return text;
  let toolchain: unknown;
  try {
    toolchain = parse(text).default_toolchain;
  } catch {
    return { problem: "rustup's settings.toml cannot be parsed" };
  }
  if (typeof toolchain !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/u.test(toolchain)) {
    return { problem: "rustup has no default toolchain (`rustup default stable` sets one)" };
  }
  return toolchain;
}

/** A global file's text, once it passed the trust rule and lies outside the agent's reach; `""` for a missing one when that means the default. */
function trustedText(file: string, context: SearchPathContext, missingIsEmpty: boolean): string | { problem: string } {
  const reason = agentReach(context)(file, "file");
  if (reason === MISSING_ENTRY && missingIsEmpty) return "";
  if (reason !== undefined) {
    return {
      problem: `its global file ${reason === MISSING_ENTRY ? "is missing" : "is refused: it, or a directory above it, is at or below the working directory, or not owned by you or root, or writable by group or others"}`,
    };
  }
  try {
    return readFileSync(file, "utf8");
  } catch {
    return { problem: "its global file cannot be read" };
  }
}

/** The manager `program` belongs to, from its real path and first bytes. */
export function managerOfProgram(program: string, context: Pick<SearchPathContext, "trust" | "platform">): VersionManager | undefined {
  const realPath = context.trust.realPath(program) ?? program;
  return versionManagerOf({ realPath, head: headOf(realPath), sameFileAsSiblingRustup: sameFileAsSiblingRustup(program, context.platform) });
}

/**
 * The manager whose shims or proxies fill `directory`, if any: rustup's
 * proxies sit beside `rustup` itself, volta's beside `volta-shim`; the others
 * keep them in a directory named `shims`, recognised by its first files.
 */
function managerOfDirectory(directory: string, context: SearchPathContext): VersionManager | undefined {
  const suffixes = context.platform === "win32" ? [".exe"] : [""];
  for (const suffix of suffixes) {
    if (isFile(path.join(directory, `rustup${suffix}`))) return { kind: "rustup" };
    if (isFile(path.join(directory, `volta-shim${suffix}`))) return { kind: "unpinnable", name: "volta" };
  }
  if (path.basename(directory).toLowerCase() !== "shims") return undefined;
  let names: string[];
  try {
    names = readdirSync(directory).sort();
  } catch {
    return undefined;
  }
  let sampled = 0;
  for (const name of names) {
    const file = path.join(directory, name);
    if (!isFile(file)) continue;
    const found = managerOfProgram(file, context);
    if (found !== undefined) return found;
    if (++sampled >= SHIMS_SAMPLED) break;
  }
  return undefined;
}

function headOf(file: string): string {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, "r");
    const buffer = Buffer.alloc(SHIM_SAMPLE_BYTES);
    const length = readSync(descriptor, buffer, 0, buffer.length, 0);
    return buffer.toString("latin1", 0, length);
  } catch {
    return "";
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Windows installs rustup's proxies as hard links of rustup.exe: the same file under another name. */
function sameFileAsSiblingRustup(program: string, platform: NodeJS.Platform): boolean {
  const sibling = path.join(path.dirname(program), platform === "win32" ? "rustup.exe" : "rustup");
  try {
    const own = statSync(program, { bigint: true });
    const rustup = statSync(sibling, { bigint: true });
    return own.ino !== 0n && own.ino === rustup.ino && own.dev === rustup.dev;
  } catch {
    return false;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

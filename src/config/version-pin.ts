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
 * or malformed, or that would source a hook it does not ship (version-hooks.ts),
 * when it is not the program itself (then the call fails).
 * An override variable the operator's `.env` set is kept: it is the
 * operator's choice, and the server's own environment never passes one.
 *
 * Cost, and what is remembered: judging the pins looks at every PATH directory
 * (its `rustup`, `volta-shim`, a shims directory's first files), reads both
 * global files through the trust rule, the program's head, and the hooks' places:
 * about 0.6 ms of CPU per planned child, for an answer that changes when the
 * operator installs or reconfigures a manager. A call's pins are therefore
 * remembered (POSIX, for planChild) under every input that is not the filesystem
 * (the program, the variables they read, the working and own directories, the
 * shared temporary and trusted directories) with every path the judging touched
 * (observed-trust.ts records them; unchanged-verdicts.ts says what each lstat
 * covers), and answered again while one lstat of each shows it as it was: a
 * version file edited, `settings.toml` rewritten, a shim added, a program replaced
 * by another file of the same size, a directory made writable or a link repointed
 * is judged afresh by the next call. Never while a time relied on is within the
 * racy margin of now. The account databases (which a group-writable place is
 * judged by) are relied on too.
 */
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, type Dirent } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { readFailed, rememberedJudgement, reliesOn } from "./observed-trust.js";
import { statOnce } from "./stat-once.js";
import { UnchangedVerdicts } from "./unchanged-verdicts.js";
import { unknownHookProblem } from "./version-hooks.js";
import { agentReach, FALLBACK_POSIX_PATH, MISSING_ENTRY, type SearchPathContext, type SearchTrust } from "../runtime/search-path.js";
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

/** How many entries of a `shims` directory are sampled to recognise its manager (the first files, by name); each must be recognised. */
const SHIMS_SAMPLED = 8;

/** How a call's pins are judged. */
export interface PinOptions {
  /** Answer equal inputs from an earlier call while every path they were judged by is unchanged (planChild's calls). */
  readonly remember?: boolean | undefined;
}

/** What a call's pins add to its environment, and what they found: applied to the next call's equal inputs. */
interface PinsVerdict {
  readonly added: Readonly<Record<string, string>>;
  readonly manager: VersionManager | undefined;
  readonly pinnedVariables: readonly string[];
}

/** Pins remembered per inputs (a server plans children for a few providers, programs and `.env` layers). */
const pinsRemembered = new UnchangedVerdicts<PinsVerdict>();

/**
 * Pins the managers reachable by `executable` and by the directories of `env`'s
 * PATH (already reduced to trusted absolute entries). With `remember`, the
 * pins of equal inputs are answered again while every path they were judged by
 * is unchanged (the module header says what that covers).
 *
 * @throws VersionPinError when `executable` is a shim that cannot be pinned;
 *   the message names the manager and the fix, never a PATH entry.
 */
export function pinVersionManagers(
  env: Readonly<Record<string, string>>,
  executable: string | undefined,
  context: SearchPathContext,
  options: PinOptions = {},
): PinnedChild {
  if (options.remember !== true || context.platform === "win32") return judgePins(env, executable, context);
  const verdict = rememberedJudgement(pinsRemembered, pinsKey(env, executable, context), context.trust, (trust) => {
    const child = judgePins(env, executable, { ...context, trust });
    const added = Object.fromEntries(Object.entries(child.env).filter(([name, value]) => env[name] !== value));
    return { added, manager: child.manager, pinnedVariables: child.pinnedVariables };
  });
  return {
    env: Object.assign(Object.create(null) as Record<string, string>, env, verdict.added),
    manager: verdict.manager,
    pinnedVariables: verdict.pinnedVariables,
  };
}

/**
 * Every input of the pins but the filesystem: the program, the variables they read (PATH, the homes, an override
 * the operator's `.env` set, a hook path), the places the trust rule excludes and the directories it trusts.
 */
function pinsKey(env: Readonly<Record<string, string>>, executable: string | undefined, context: SearchPathContext): string {
  const read = Object.entries(env).filter(([name]) => PINS_READ.has(name) || FAMILY_VARIABLE.test(name));
  read.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([context.platform, executable ?? null, context.cwd, context.selfDir, read]);
}

/** The variables the pins read by name (POSIX: exact names). */
const PINS_READ = new Set(["PATH", "HOME", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"]);

/** An rbenv-family manager's override and hook path, whatever its name (a shim names it: `<name>env`). */
const FAMILY_VARIABLE = /^[A-Z][A-Z0-9]*_(?:VERSION|HOOK_PATH)$/u;

function judgePins(env: Readonly<Record<string, string>>, executable: string | undefined, context: SearchPathContext): PinnedChild {
  const windows = context.platform === "win32";
  const pathKey = variableKey(env, "PATH", windows) ?? "PATH";
  const directories = (env[pathKey] ?? "").split(windows ? ";" : ":").filter((entry) => entry !== "");
  let rustups: ReadonlySet<FileIdentity> | undefined;
  const knownRustupsOnce = (): ReadonlySet<FileIdentity> => (rustups ??= knownRustups(env, directories, context));
  const command = executable === undefined ? "" : path.basename(executable);
  const manager = executable === undefined ? undefined : managerOfProgram(executable, context, knownRustupsOnce);
  if (manager === UNRECOGNISED) {
    throw new VersionPinError(
      `${command} sits in a version manager's shims directory but is no shim Torii recognises, so it cannot be pinned: run the real program by its absolute path instead, as the provider's command`,
    );
  }
  if (manager?.kind === "unpinnable") {
    throw new VersionPinError(
      `${command} is a shim of ${manager.name}, which picks its version from the working directory; Torii cannot pin ${manager.name}: run the real program by its absolute path instead (\`${manager.name} which ${command}\`), as the provider's command`,
    );
  }
  const pinned: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, env);
  const pinnedVariables: string[] = [];
  // Pins `found` unless the operator's `.env` already did; the problem when its global choice cannot be read or it runs a
  // hook it does not ship. The variable is set even then: a manager that is neither the program nor a shims directory on
  // PATH (an installed one, reached through a link) keeps its version pinned, its unknown hook a residual there.
  const pin = (found: VersionManager): string | undefined => {
    if (found.kind === "unpinnable") return `${found.name} is not pinned`;
    const name = overrideVariable(found);
    if (variableKey(pinned, name, windows) === undefined) {
      const value = globalChoice(found, pinned, context);
      if (typeof value !== "string") return value.problem;
      pinned[name] = value;
      pinnedVariables.push(name);
    }
    // Its hooks run whoever set the variable: an operator's own pin does not bind them either.
    return found.kind === "env-family" ? unknownHookProblem(found, pinned, context) : undefined;
  };
  const problem = manager === undefined ? undefined : pin(manager);
  if (manager !== undefined && problem !== undefined) {
    throw new VersionPinError(
      `${command} is a shim of ${managerName(manager)}, which picks its version from the working directory, and Torii cannot pin it: ${problem}`,
    );
  }
  const kept = directories.filter((directory) => {
    const found = managersOfDirectory(directory, context, knownRustupsOnce);
    return found !== UNRECOGNISED && found.every((each) => pin(each) === undefined);
  });
  if (kept.length !== directories.length) pinned[pathKey] = kept.length === 0 && !windows ? FALLBACK_POSIX_PATH : kept.join(windows ? ";" : ":");
  // A manager installed in its default place is pinned whatever the PATH holds: a link to one of its shims from a
  // directory of another name (`~/.local/bin/python` -> `~/.pyenv/shims/python`) is not listed above, and the
  // program's own lookups would reach it. A choice that cannot be read leaves such a manager unpinned: it is
  // neither the program nor on PATH as a shims directory, and refusing every call for it would fail unrelated ones.
  for (const installed of installedManagers(pinned, context)) pin(installed);
  return { env: pinned, manager, pinnedVariables };
}

/** The rbenv family's managers Torii pins, by name (their roots default to `~/.<name>`). */
const ENV_FAMILY_NAMES = ["pyenv", "rbenv", "nodenv", "goenv", "plenv", "jenv"] as const;

/**
 * The managers installed under the child's home: an rbenv-family root with a
 * `shims` directory, rustup with its `settings.toml` (`$RUSTUP_HOME` or `~/.rustup`).
 */
function installedManagers(env: Readonly<Record<string, string>>, context: SearchPathContext): VersionManager[] {
  const windows = context.platform === "win32";
  const home = env[variableKey(env, windows ? "USERPROFILE" : "HOME", windows) ?? ""];
  if (home === undefined || !path.isAbsolute(home)) return [];
  const found: VersionManager[] = [];
  for (const name of ENV_FAMILY_NAMES) {
    const root = path.join(home, `.${name}`);
    if (statOnce(path.join(root, "shims"), context.trust)?.isDirectory() === true)
      found.push({ kind: "env-family", name, root, program: path.join(root, "libexec", name), versionVariable: `${name.toUpperCase()}_VERSION` });
  }
  const rustupHome = env[variableKey(env, "RUSTUP_HOME", windows) ?? ""] ?? path.join(home, ".rustup");
  if (path.isAbsolute(rustupHome) && statOnce(path.join(rustupHome, "settings.toml"), context.trust)?.isFile() === true) found.push({ kind: "rustup" });
  return found;
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
  reliesOn(context.trust, file, true);
  try {
    return readFileSync(file, "utf8");
  } catch {
    // An installed manager whose choice cannot be read is left unpinned: for this call only.
    readFailed(context.trust);
    return { problem: "its global file cannot be read" };
  }
}

/** A file in a `shims` directory (by its own path or its real one) that no known manager wrote: Torii cannot tell what chooses its version. */
const UNRECOGNISED = Symbol("unrecognised shim");

/** The identity of a file (device and inode), which a hard link shares with its original. */
type FileIdentity = `${bigint}:${bigint}`;

/**
 * The manager `program` belongs to, from its real path and first bytes, and
 * whether it is the very file of a rustup (a hard link of it, beside its real
 * path, beside the path given, or one the caller knows); `UNRECOGNISED` for
 * an unknown file in a `shims` directory.
 */
export function managerOfProgram(
  program: string,
  context: Pick<SearchPathContext, "trust" | "platform">,
  rustups: () => ReadonlySet<FileIdentity> = () => new Set(),
  knownRealPath?: string,
): VersionManager | typeof UNRECOGNISED | undefined {
  const realPath = knownRealPath ?? context.trust.realPath(program) ?? program;
  reliesOn(context.trust, realPath, true);
  const head = headOf(realPath, context.trust);
  let found = versionManagerOf({ realPath, head });
  // Only a binary can be a hard link of rustup: the identity checks (a stat each) are skipped for scripts and known shims.
  if (found === undefined && !head.startsWith("#!")) {
    const identity = identityOf(program, context.trust);
    const besideIt = [program, realPath].map((file) => path.join(path.dirname(file), rustupName(context.platform)));
    const sameFileAsRustup = identity !== undefined && (rustups().has(identity) || besideIt.some((rustup) => identityOf(rustup, context.trust) === identity));
    if (sameFileAsRustup) found = versionManagerOf({ realPath, head, sameFileAsRustup });
  }
  if (found === undefined && (isShimsDirectory(path.dirname(program)) || isShimsDirectory(path.dirname(realPath)))) return UNRECOGNISED;
  return found;
}

/**
 * The rustups whose hard links are proxies: the one in each PATH directory,
 * and the one rustup installs in `$CARGO_HOME/bin` (`~/.cargo/bin`), PATH or not.
 */
function knownRustups(env: Readonly<Record<string, string>>, directories: readonly string[], context: SearchPathContext): ReadonlySet<FileIdentity> {
  const { platform } = context;
  const windows = platform === "win32";
  const home = env[variableKey(env, windows ? "USERPROFILE" : "HOME", windows) ?? ""];
  const cargoHome = env[variableKey(env, "CARGO_HOME", windows) ?? ""] ?? (home === undefined ? undefined : path.join(home, ".cargo"));
  const candidates = [...directories, ...(cargoHome !== undefined && path.isAbsolute(cargoHome) ? [path.join(cargoHome, "bin")] : [])];
  return new Set(candidates.flatMap((directory) => identityOf(path.join(directory, rustupName(platform)), context.trust) ?? []));
}

/**
 * The managers whose shims or proxies `directory` holds, each to be pinned,
 * or `UNRECOGNISED` when it cannot be told (the directory is then dropped).
 * Decided by what its entries are, not by its name: rustup's proxies sit beside
 * `rustup` and volta's beside `volta-shim`; a link counts by its real path and
 * content (a link to a pyenv shim or to rustup in `~/.local/bin` is a shim of
 * that manager). A directory named `shims` is a manager's: its first entries
 * must each be a shim Torii recognises, and one that cannot be listed is
 * dropped too (fail closed).
 */
function managersOfDirectory(directory: string, context: SearchPathContext, rustups: () => ReadonlySet<FileIdentity>): DirectoryManagers {
  // A directory named twice on PATH is read once per computation (a search trust lives for one).
  const key = directory;
  let seen = directoriesSeen.get(context.trust);
  if (seen === undefined) directoriesSeen.set(context.trust, (seen = new Map<string, DirectoryManagers>()));
  let found = seen.get(key);
  if (found === undefined) seen.set(key, (found = readManagersOfDirectory(directory, context, rustups)));
  return found;
}

type DirectoryManagers = readonly VersionManager[] | typeof UNRECOGNISED;

/** What each directory was found to hold, per search trust: one computation, never from one call to the next. */
const directoriesSeen = new WeakMap<SearchTrust, Map<string, DirectoryManagers>>();

function readManagersOfDirectory(directory: string, context: SearchPathContext, rustups: () => ReadonlySet<FileIdentity>): DirectoryManagers {
  const found = new Map<string, VersionManager>();
  const add = (manager: VersionManager): void => void found.set(JSON.stringify(manager), manager);
  const suffix = context.platform === "win32" ? ".exe" : "";
  if (statOnce(path.join(directory, `rustup${suffix}`), context.trust)?.isFile() === true) add({ kind: "rustup" });
  if (statOnce(path.join(directory, `volta-shim${suffix}`), context.trust)?.isFile() === true) add({ kind: "unpinnable", name: "volta" });
  // Only a directory named `shims` is listed: following every link of every PATH directory to its
  // real path (216 in this machine's /usr/bin) cost about 7 ms of CPU per planned child. A link to a
  // shim from a directory of another name is recognised when it is the program (by its real path),
  // not for the program's own lookups through PATH (docs/environment.md, limits).
  if (!isShimsDirectory(directory) && !isShimsDirectory(ownRealName(directory, context))) return [...found.values()];
  const shims = managersOfShims(directory, context, rustups);
  if (shims === UNRECOGNISED) return UNRECOGNISED;
  for (const manager of shims) add(manager);
  return [...found.values()];
}

/**
 * The managers of a `shims` directory's first SHIMS_SAMPLED files (by name), each of which must be a shim
 * Torii recognises; `UNRECOGNISED` otherwise, or when the directory cannot be listed. Not remembered on its
 * own: a call's pins as a whole are (the module header says how), and a paired measurement found a cache of
 * this verdict saved only on a miss of that memo (0.75 ms of 1.8), a handful of times in a server's life.
 */
function managersOfShims(directory: string, context: SearchPathContext, rustups: () => ReadonlySet<FileIdentity>): DirectoryManagers {
  const { trust } = context;
  const realDirectory = trust.realPath(directory);
  let entries: Dirent[];
  reliesOn(trust, directory, true);
  try {
    entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    readFailed(trust);
    return UNRECOGNISED;
  }
  const found = new Map<string, VersionManager>();
  let sampled = 0;
  for (const entry of entries) {
    if (sampled === SHIMS_SAMPLED) break;
    if ((!entry.isFile() && !entry.isSymbolicLink()) || MANAGER_PROGRAMS.has(entry.name.toLowerCase())) continue;
    const file = path.join(directory, entry.name);
    // A link passed over (dangling, or to no file) is no shim of anyone.
    if (statOnce(file, trust)?.isFile() !== true) continue;
    sampled += 1;
    // A regular file's real path is its directory's real path and its name: one resolution per directory, not per file.
    const manager = managerOfProgram(file, context, rustups, entry.isFile() && realDirectory !== undefined ? path.join(realDirectory, entry.name) : undefined);
    if (manager === UNRECOGNISED) return UNRECOGNISED;
    if (manager !== undefined) found.set(JSON.stringify(manager), manager);
  }
  return [...found.values()];
}

/**
 * The directory's path whose last name is its real one: a link (`~/bin` -> `~/.pyenv/shims`) is
 * resolved; a directory that is no link keeps its own last name whatever links lie above it, and
 * costs one lstat instead of a readlink per component.
 */
function ownRealName(directory: string, context: SearchPathContext): string {
  reliesOn(context.trust, directory, false);
  try {
    if (!lstatSync(directory).isSymbolicLink()) return directory;
  } catch {
    return directory;
  }
  return context.trust.realPath(directory) ?? directory;
}

/** The managers' own programs: beside their shims they are the manager, not a shim of it. */
const MANAGER_PROGRAMS = new Set(["rustup", "rustup.exe", "mise", "mise.exe", "volta", "volta.exe", "volta-shim", "volta-shim.exe"]);

/** Every manager that keeps shims (pyenv, pyenv-win, rbenv, nodenv, asdf, mise) keeps them in a directory of this name. */
function isShimsDirectory(directory: string): boolean {
  return path.basename(directory.replaceAll("\\", "/")).toLowerCase() === "shims";
}

function rustupName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "rustup.exe" : "rustup";
}

/** The first bytes of `file`; `""` when it cannot be read (then nothing judged with it is remembered). */
function headOf(file: string, trust: SearchTrust): string {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, "r");
    const buffer = Buffer.alloc(SHIM_SAMPLE_BYTES);
    const length = readSync(descriptor, buffer, 0, buffer.length, 0);
    return buffer.toString("latin1", 0, length);
  } catch {
    readFailed(trust);
    return "";
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** A regular file's identity, links resolved; undefined for anything else. */
function identityOf(file: string, trust: SearchTrust): FileIdentity | undefined {
  return fileFacts(file, trust)?.identity;
}

/** What `stat` says of a regular file (links followed), or undefined for anything else or nothing. */
function fileFacts(file: string, trust: SearchTrust): { identity: FileIdentity | undefined; links: bigint; size: bigint } | undefined {
  const stats = statOnce(file, trust);
  if (stats?.isFile() !== true) return undefined;
  // A filesystem without inode numbers reports 0 for every file: no identity to compare.
  return { identity: stats.ino === 0n ? undefined : `${stats.dev}:${stats.ino}`, links: stats.nlink, size: stats.size };
}

/**
 * Walks a configuration path the way the kernel would resolve it, one component
 * at a time, and holds every directory it passes through to the trust rule of
 * file-trust.ts:
 *
 * - from the filesystem root down to the configuration root, each directory
 *   must belong to this user or root and not be writable by group or others,
 *   unless sticky (`/tmp`); symbolic links are followed;
 * - the configuration root and everything below it: the same, with no sticky
 *   exception; a symbolic link below the root may point anywhere inside the
 *   root but never out of it, whether by an absolute target or by `..`;
 * - the file itself must be the kind expected (a regular file for what is read).
 *
 * Nothing here reads a file's content: `.env` files are inspected at start-up
 * (owner, mode, links) without being read.
 */
import { lstatSync, readlinkSync, realpathSync, type BigIntStats, type Stats } from "node:fs";
import path from "node:path";
import { ConfigError } from "./errors.js";
import { withoutWin32FilePrefix } from "../runtime/windows-final-path.js";
import { currentTrustPolicy, describeTrustProblem, ownerAndModeProblem, ownerProblem, type TrustPolicy, type WriteRule } from "./file-trust.js";
import { isInside } from "./path-inside.js";

/** The configuration root and the rule its files are held to. */
export interface ConfigTrust {
  readonly root: string;
  readonly policy: TrustPolicy;
  /** Directories already found trusted by this pass (trustPass); absent on a trust that outlives one. */
  readonly passed?: Set<string>;
}

/** What a checked path must be: `any` only inspects owner, mode and links (a `.env` before the allow). */
export type TrustedKind = "file" | "directory" | "any";

/** The trust of the configuration below `root` for this process (`platform` injected by tests). */
export function configTrust(root: string, platform: NodeJS.Platform = process.platform): ConfigTrust {
  return { root: path.resolve(root), policy: currentTrustPolicy(platform) };
}

/**
 * `trust` for checks made together: a call's rules files and its `.env`
 * layers (pipeline/invoke.ts), read within milliseconds of each other. A
 * directory one of them found trusted is not inspected again by the next; a
 * change to it is seen by the next call's pass. Never keep a pass across a wait
 * for a human (minutes or hours) or from one call to the next.
 */
export function trustPass(trust: ConfigTrust): ConfigTrust {
  return { root: trust.root, policy: trust.policy, passed: new Set() };
}

/** Symbolic links one walk follows before giving up, as Linux's ELOOP limit. */
const MAX_LINKS = 40;

/**
 * Checks `target`, the root itself or a path below it.
 *
 * @returns false when `target` (or the root) does not exist; true when it may be trusted.
 * @throws ConfigError naming the offending path and the command that fixes it.
 */
export function checkTrustedPath(trust: ConfigTrust, target: string, kind: TrustedKind): boolean {
  return walkFromRoot(trust, target, kind, false) !== undefined;
}

/** A file below the configuration root that passed the trust walk, its closing check still to come. */
export interface InspectedFile {
  /** The file's own lstat (the walk's last step), with nanosecond times: its identity. */
  readonly stats: BigIntStats;
  /**
   * The walk's closing check: the kernel resolves the path to the file the walk
   * reached. Call it before reading the file by its path.
   *
   * @throws ConfigError when the path changed while it was being checked.
   */
  confirm(): void;
}

/**
 * Checks `target`, a file below the root, as checkTrustedPath does, but leaves
 * the closing check to the caller: a caller that reads nothing (it already holds
 * the content of the very inode the walk reached, unchanged: config/unchanged-files.ts)
 * does not need it.
 *
 * @returns undefined when `target` (or the root) does not exist.
 * @throws ConfigError naming the offending path and the command that fixes it.
 */
export function inspectTrustedFile(trust: ConfigTrust, target: string): InspectedFile | undefined {
  const walked = walkFromRoot(trust, target, "file", true);
  if (walked === undefined) return undefined;
  const { real, stats } = walked;
  // Only the root itself ends a walk with an lstat taken without nanoseconds, and the root is a directory.
  if (!hasNanoseconds(stats)) throw new ConfigError(target, "is not a regular file");
  return {
    stats,
    confirm: () => {
      confirmResolution(target, real);
    },
  };
}

/** Where a walk ended, and the lstat of its last step (with nanosecond times when asked for). */
interface Walked {
  readonly real: string;
  readonly stats: Stats | BigIntStats;
}

function hasNanoseconds(stats: Stats | BigIntStats): stats is BigIntStats {
  return typeof stats.mtimeMs === "bigint";
}

function walkFromRoot(trust: ConfigTrust, target: string, kind: TrustedKind, identify: boolean): Walked | undefined {
  const resolved = path.resolve(target);
  if (!isInside(resolved, trust.root)) throw new ConfigError(target, `is outside the configuration root ${trust.root}`);
  const relative = path.relative(trust.root, resolved);
  const fsRoot = path.parse(trust.root).root;
  // Below the root, the second walk's closing realpath resolves the whole path again, the root included.
  const root = walk(trust, {
    start: fsRoot,
    rest: path.relative(fsRoot, trust.root),
    target: trust.root,
    kind: relative === "" ? kind : "directory",
    confirmedLater: relative !== "",
  });
  if (root === undefined || relative === "") return root;
  return walk(trust, { start: root.real, rest: relative, target, kind, bound: root.real, confirmedLater: identify, identify });
}

interface WalkRequest {
  /** A real directory (no link on its path) to start from. */
  readonly start: string;
  /** The path to resolve from `start`. */
  readonly rest: string;
  /** The path being checked, named in errors. */
  readonly target: string;
  readonly kind: TrustedKind;
  /** Below the configuration root: every step must stay inside it, and sticky directories do not count as safe. */
  readonly bound?: string;
  /** A later walk (or the caller: inspectTrustedFile) compares its end with the kernel's resolution: skip that comparison here. */
  readonly confirmedLater?: boolean;
  /** Take the last step's lstat with nanosecond times (the file's identity). */
  readonly identify?: boolean;
  /** Collects every path the resolution steps on (directories and links, before links are followed). */
  readonly steps?: string[];
}

/**
 * Resolves `rest` from `start` one component at a time, checking every
 * directory passed through and the final entry. Returns the real path and the
 * final entry's lstat, or undefined when something on the way does not exist.
 */
function walk(trust: ConfigTrust, request: WalkRequest): Walked | undefined {
  const { bound } = request;
  const queue = components(request.rest);
  const ruleFor = (last: boolean): WriteRule => (bound === undefined && !last ? "sticky-ok" : "strict");
  // A directory passed through (not the final entry) that this pass already found trusted under the same rule.
  const passedKey = (subject: string): string => `${ruleFor(false)}\0${subject}`;
  let current = request.start;
  // The last entry checked, and its lstat.
  let final: { readonly subject: string; readonly stats: Stats | BigIntStats } | undefined;
  if (bound === undefined && !(queue.length > 0 && trust.passed?.has(passedKey(current)) === true)) {
    const stats = lstatOf(current, request.target);
    checkEntry(trust, current, stats, queue.length === 0 ? request.kind : "directory", ruleFor(queue.length === 0));
    final = { subject: current, stats };
    if (queue.length > 0) trust.passed?.add(passedKey(current));
  }
  let links = 0;
  while (queue.length > 0) {
    const name = queue.shift() ?? "";
    if (name === ".") continue;
    current = name === ".." ? path.dirname(current) : childOf(current, name);
    if (bound !== undefined && !isInside(current, bound)) throw escape(request.target, current, bound);
    if (name === "..") continue;
    request.steps?.push(current);
    const passedThrough = !queue.every((rest) => rest === ".");
    if (passedThrough && trust.passed?.has(passedKey(current)) === true) continue;
    const stats = lstatOf(current, request.target, request.identify === true && !passedThrough);
    if (stats === undefined) return undefined;
    if (stats.isSymbolicLink()) {
      links += 1;
      if (links > MAX_LINKS) throw new ConfigError(request.target, `has more than ${MAX_LINKS} symbolic links on its path`);
      checkLinkOwner(trust, current, stats);
      // Windows may answer a junction's or link's target in the `\\?\` namespace; its ordinary spelling is walked.
      const link = process.platform === "win32" ? withoutWin32FilePrefix(readlinkSync(current)) : readlinkSync(current);
      if (!path.isAbsolute(link)) {
        // Relative: resolved step by step from the directory holding the link, exactly as the kernel does.
        current = path.dirname(current);
        queue.unshift(...components(link));
      } else if (bound === undefined) {
        // Component by component, `..` included, as the kernel does: normalising `a/link/..` to `a`
        // would skip where `link` leads (and the directories it steps on on the way).
        current = path.parse(link).root;
        queue.unshift(...components(link.slice(current.length)));
      } else {
        // Absolute, below the root: only a target inside the root is followed (the final check below
        // refuses the path if the kernel resolves it elsewhere).
        const resolved = path.resolve(link);
        if (!isInside(resolved, bound)) throw escape(request.target, current, bound);
        current = bound;
        queue.unshift(...components(path.relative(bound, resolved)));
      }
      continue;
    }
    const last = queue.every((rest) => rest === ".");
    checkEntry(trust, current, stats, last ? request.kind : "directory", ruleFor(last));
    if (!last) trust.passed?.add(passedKey(current));
    final = { subject: current, stats };
  }
  if (final?.subject !== current) {
    // The path ended on `..` (through a link): the entry it leads to was not checked as the end yet.
    const stats = lstatOf(current, request.target, request.identify === true);
    checkEntry(trust, current, stats, request.kind, ruleFor(true));
    final = { subject: current, stats };
  }
  if (request.confirmedLater !== true) confirmResolution(request.target, current);
  return { real: current, stats: final.stats };
}

/**
 * The walk and the kernel must agree on where the path leads; they differ only if it changed meanwhile.
 *
 * @throws ConfigError when they do not.
 */
function confirmResolution(target: string, walked: string): void {
  if (!samePath(realpathOf(target), walked)) throw new ConfigError(target, "changed while it was being checked; load again");
}

function missing(subject: string): never {
  throw new ConfigError(subject, "disappeared while it was being checked; load again");
}

function checkEntry(trust: ConfigTrust, subject: string, stats: Stats | BigIntStats | undefined, kind: TrustedKind, rule: WriteRule): asserts stats {
  if (stats === undefined) missing(subject);
  if (kind === "file" && !stats.isFile()) throw new ConfigError(subject, "is not a regular file");
  if (kind === "directory" && !stats.isDirectory()) throw new ConfigError(subject, "is not a directory");
  const problem = ownerAndModeProblem(subject, { uid: Number(stats.uid), gid: Number(stats.gid), mode: Number(stats.mode) }, trust.policy, rule);
  if (problem !== undefined) {
    const why = stats.isDirectory() ? ", so others could replace the configuration below it" : "";
    throw new ConfigError(subject, describeTrustProblem({ detail: `${problem.detail}${why}`, fix: problem.fix }));
  }
}

/**
 * A link may point anywhere (its target is walked and checked), but whoever
 * owns it may replace it with one pointing elsewhere: it must be this user's
 * or root's, like every directory on the way.
 */
function checkLinkOwner(trust: ConfigTrust, subject: string, stats: Stats | BigIntStats): void {
  const problem = ownerProblem(subject, Number(stats.uid), trust.policy, true);
  if (problem !== undefined) throw new ConfigError(subject, describeTrustProblem(problem));
}

function lstatOf(subject: string, target: string, bigint = false): Stats | BigIntStats | undefined {
  try {
    // An absent entry is an answer, not an error: building an exception for it costs more than the lstat.
    return bigint ? lstatSync(subject, { throwIfNoEntry: false, bigint: true }) : lstatSync(subject, { throwIfNoEntry: false });
  } catch (error) {
    throw new ConfigError(target, `cannot inspect ${subject}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The kernel's answer in one call on POSIX: `realpathSync` would lstat every
 * component again in JavaScript, doubling the walk's system calls. Windows
 * keeps the JavaScript resolution, whose spelling the walk's paths share.
 */
const kernelRealpath = process.platform === "win32" ? realpathSync : realpathSync.native;

function realpathOf(target: string): string {
  try {
    return kernelRealpath(target);
  } catch (error) {
    throw new ConfigError(target, `cannot be resolved: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function escape(target: string, link: string, bound: string): ConfigError {
  return new ConfigError(
    target,
    `the symbolic link ${link} leads out of the configuration root ${bound}; fix: replace the link with the file or directory itself`,
  );
}

/** Windows file names compare without case (the drive letter's case varies between APIs). */
function samePath(a: string, b: string): boolean {
  return process.platform === "win32" ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * What separates the names the kernel resolves: on Windows `\` and `/`; on POSIX
 * only `/`, a backslash being part of a name (`a\b` is one entry, which may be a
 * link the walk must inspect, not `a/b`).
 */
const SEPARATORS = process.platform === "win32" ? /[\\/]+/u : /\/+/u;

function components(value: string): string[] {
  return value.split(SEPARATORS).filter((part) => part !== "");
}

/** `path.join` for a normalised directory and one plain component (no separator, not `.` or `..`), without re-normalising. */
function childOf(directory: string, name: string): string {
  return directory.endsWith(path.sep) ? directory + name : directory + path.sep + name;
}

/**
 * Checks a file outside the configuration root that the configuration points
 * the child at (a kubeconfig, which can run exec plugins): every directory from
 * the filesystem root down follows the rule above the root (a sticky `/tmp`
 * passes), the file itself the strict rule, links followed.
 *
 * @returns false when the file does not exist; true when it may be trusted.
 * @throws ConfigError naming the offending path and the command that fixes it.
 */
export function checkTrustedOutsideFile(policy: TrustPolicy, file: string): boolean {
  return trustedOutsideRealPath(policy, file, "file") !== undefined;
}

/** Where a path outside the configuration root leads, and every path its resolution stepped on. */
export interface OutsideResolution {
  readonly real: string;
  /**
   * Each directory and link the walk stepped on, links' targets included, as
   * real directory plus one name (`/home/u/bin` linking to `/home/u/proj/x/bin`
   * lists `/home/u/proj` and `/home/u/proj/x`): a caller may refuse a path
   * that leads through a place another may write to even when it ends elsewhere.
   */
  readonly steps: readonly string[];
}

/**
 * Checks `target` outside the configuration root as checkTrustedOutsideFile
 * does, a directory or a file (a PATH entry, a program found in one).
 * `passed` is one trustPass's memory (never kept from one call to the next).
 *
 * @returns the real path and the steps to it, or undefined when `target` does not exist.
 * @throws ConfigError naming the offending path and the command that fixes it.
 */
export function trustedOutsideRealPath(policy: TrustPolicy, target: string, kind: "file" | "directory", passed?: Set<string>): OutsideResolution | undefined {
  const resolved = path.resolve(target);
  const fsRoot = path.parse(resolved).root;
  const trust: ConfigTrust = passed === undefined ? { root: fsRoot, policy } : { root: fsRoot, policy, passed };
  const steps: string[] = [];
  const walked = walk(trust, { start: fsRoot, rest: path.relative(fsRoot, resolved), target, kind, steps });
  return walked === undefined ? undefined : { real: walked.real, steps };
}

/**
 * The filesystem side of the PATH search (runtime/search-path.ts): a PATH
 * entry, and a program found through one, is held to the rule of every other
 * file Torii trusts outside its configuration (trusted-path.ts, as a pinned
 * kubeconfig): it and each directory its resolution passes through, links
 * followed, belong to this user or root and are not writable by group or
 * others, and so does every symbolic link on the way (its owner could replace
 * it). A directory above it may be writable when sticky; the entry itself and
 * the program may not, since anyone could drop a `kubectl` into a sticky
 * directory. The operator's `path.trusted_directories` accept group write in
 * and below them, and group write by the user's private group (umask 002
 * installs, private-group.ts) is the user's own; nothing more. This module also names the shared temporary
 * directories, which the search never enters at all. Windows has no POSIX
 * owner or mode bits: only links and real paths are resolved there.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import {
  childPathValue,
  isWindowsAbsolute,
  MISSING_ENTRY,
  trustedSearchPath,
  type SearchPathContext,
  type SearchTrust,
  type SkippedEntry,
  type TrustVerdict,
} from "../runtime/search-path.js";
import { currentTrustPolicy, type TrustPolicy } from "./file-trust.js";
import { trustedOutsideRealPath, type OutsideResolution } from "./trusted-path.js";
import { privateGroupOf } from "./private-group.js";
import { pinOwnVersionManagers } from "./version-pin.js";

/** See trusted-path.ts: the kernel's answer in one call on POSIX. */
const kernelRealpath = process.platform === "win32" ? realpathSync : realpathSync.native;

/**
 * The search trust of this process on `platform`, for one computation (a call,
 * a doctor run, one opening of the browser): it remembers each verdict, and the
 * directories found trusted on the way, so the child's PATH and the lookup
 * through it inspect each entry once. Never keep one from one call to the next.
 */
export function searchTrust(platform: NodeJS.Platform = process.platform, options: SearchTrustOptions = {}): SearchTrust {
  // Remembered for the computation: the excluded places (the working directory, Torii's own, the shared
  // temporary ones) are resolved by every check of the agent's reach, and a shims directory by each pin.
  const realPaths = new Map<string, string | undefined>();
  const realPath = (target: string): string | undefined => {
    if (realPaths.has(target)) return realPaths.get(target);
    let real: string | undefined;
    try {
      real = kernelRealpath(target);
    } catch {
      real = undefined;
    }
    realPaths.set(target, real);
    return real;
  };
  const trustedDirectories = options.trustedDirectories ?? [];
  const accepted = trustedDirectories.flatMap((directory) => realPath(directory) ?? []);
  const base = currentTrustPolicy(platform);
  // Read once per computation, and only if a group-writable place is met (most trust walks meet none).
  const uid = base.uid;
  let privateGroup: { readonly gid: number | undefined } | undefined;
  const privateGroupOnce = (): number | undefined => (privateGroup ??= { gid: uid === undefined ? undefined : privateGroupOf(uid) }).gid;
  const policy: TrustPolicy = { ...base, groupWriteAccepted: accepted, privateGroup: privateGroupOnce };
  const passed = new Set<string>();
  const verdicts = new Map<string, TrustVerdict>();
  return {
    realPath,
    inspect(target, kind) {
      const key = `${kind}\0${target}`;
      let verdict = verdicts.get(key);
      if (verdict === undefined) {
        verdict = inspectOnce(() => trustedOutsideRealPath(policy, target, kind, passed));
        verdicts.set(key, verdict);
      }
      return verdict;
    },
    sharedTemporary: sharedTemporaryDirectories(platform, options.env ?? process.env),
    trustedDirectories,
  };
}

/** What a search trust takes from the operator and the environment besides the filesystem. */
export interface SearchTrustOptions {
  /**
   * The operator's `path.trusted_directories` (settings.yaml): directories in
   * and below which group write is accepted. Never from the agent's side.
   */
  readonly trustedDirectories?: readonly string[] | undefined;
  /** Where `$TMPDIR` (Windows: `%TEMP%`, `%TMP%`, `%SystemRoot%`) is read; this process's environment by default. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * The shared temporary directories of `platform`: the fixed ones and what the
 * environment names. A relative or empty value names nothing; a value naming a
 * trusted directory only narrows the search, never widens it.
 */
export function sharedTemporaryDirectories(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): readonly string[] {
  if (platform === "win32") {
    const named = [env.TEMP, env.TMP, env.SystemRoot === undefined ? undefined : path.win32.join(env.SystemRoot, "Temp")];
    return named.filter((value): value is string => value !== undefined && isWindowsAbsolute(value));
  }
  const named = env.TMPDIR;
  return [...POSIX_SHARED_TEMPORARY, ...(named !== undefined && path.posix.isAbsolute(named) ? [named] : [])];
}

const POSIX_SHARED_TEMPORARY = ["/tmp", "/var/tmp", "/dev/shm"];

function inspectOnce(walk: () => OutsideResolution | undefined): TrustVerdict {
  try {
    const resolution = walk();
    return resolution === undefined ? { missing: true } : resolution;
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** Where a search runs from: the places never searched, and the operator's trusted directories. */
export interface SearchPlace {
  /** The working directory; never searched, nor anything below it. */
  readonly cwd: string;
  /** Torii's own code directory; never searched, nor anything below it. */
  readonly selfDir: string;
  /** The operator's `path.trusted_directories` (settings.yaml); none when absent. */
  readonly trustedDirectories?: readonly string[] | undefined;
}

/** The search context of `place` on `platform`, with a fresh search trust (one computation). */
export function searchContext(place: SearchPlace, platform: NodeJS.Platform): SearchPathContext {
  return { cwd: place.cwd, selfDir: place.selfDir, platform, trust: searchTrust(platform, { trustedDirectories: place.trustedDirectories }) };
}

/**
 * The entries of `pathEnv` the search leaves out for the operator to see (the
 * server log when the call side loads, `torii doctor`), each named with why:
 * relative entries, the working directory or below it, Torii's own directory,
 * entries that fail the trust rule. Missing entries are not listed.
 */
export function skippedPathEntries(pathEnv: string | undefined, place: SearchPlace, platform: NodeJS.Platform): readonly SkippedEntry[] {
  return trustedSearchPath(pathEnv, searchContext(place, platform)).skipped.filter((entry) => entry.reason !== MISSING_ENTRY);
}

/**
 * Reduces `env.PATH` (the server's own environment) to the directories a
 * child's PATH keeps, for what runs inside the server by name: the AWS SDK
 * runs a profile's `credential_process` through `/bin/sh` (or cmd.exe) with
 * the server's own environment during the STS check (pipeline/identity/sts-probe.ts).
 * The version managers on the reduced PATH are pinned as a child's (version-pin.ts).
 *
 * @returns the entries left out, for the server log (missing ones not listed).
 */
export function restrictOwnPath(env: NodeJS.ProcessEnv, place: SearchPlace, platform: NodeJS.Platform): readonly SkippedEntry[] {
  const context = searchContext(place, platform);
  const search = trustedSearchPath(env.PATH, context);
  if (env.PATH !== undefined || platform !== "win32") env.PATH = childPathValue(env.PATH, context);
  pinOwnVersionManagers(env, context);
  return search.skipped.filter((entry) => entry.reason !== MISSING_ENTRY);
}

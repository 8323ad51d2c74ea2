/**
 * The filesystem side of the PATH search (runtime/search-path.ts): a PATH
 * entry, and a program found through one, is held to the rule of every other
 * file Torii trusts outside its configuration (trusted-path.ts, as a pinned
 * kubeconfig): it and each directory its resolution passes through, links
 * followed, belong to this user or root and are not writable by group or
 * others. A directory above it may be writable when sticky (`/tmp`: others
 * can add entries but not replace ours); the entry itself and the program may
 * not, since anyone could drop a `kubectl` into a sticky directory. Windows has
 * no POSIX owner or mode bits: only links and real paths are resolved there.
 */
import { realpathSync } from "node:fs";
import { childPathValue, MISSING_ENTRY, trustedSearchPath, type SearchTrust, type SkippedEntry, type TrustVerdict } from "../runtime/search-path.js";
import { currentTrustPolicy } from "./file-trust.js";
import { trustedOutsideRealPath } from "./trusted-path.js";
import { pinOwnVersionManagers } from "./version-pin.js";

/** See trusted-path.ts: the kernel's answer in one call on POSIX. */
const kernelRealpath = process.platform === "win32" ? realpathSync : realpathSync.native;

/**
 * The search trust of this process on `platform`, for one computation (a call,
 * a doctor run, one opening of the browser): it remembers each verdict, and the
 * directories found trusted on the way, so the child's PATH and the lookup
 * through it inspect each entry once. Never keep one from one call to the next.
 */
export function searchTrust(platform: NodeJS.Platform = process.platform): SearchTrust {
  const policy = currentTrustPolicy(platform);
  const passed = new Set<string>();
  const verdicts = new Map<string, TrustVerdict>();
  return {
    realPath(target) {
      try {
        return kernelRealpath(target);
      } catch {
        return undefined;
      }
    },
    inspect(target, kind) {
      const key = `${kind}\0${target}`;
      let verdict = verdicts.get(key);
      if (verdict === undefined) {
        verdict = inspectOnce(() => trustedOutsideRealPath(policy, target, kind, passed));
        verdicts.set(key, verdict);
      }
      return verdict;
    },
  };
}

function inspectOnce(walk: () => string | undefined): TrustVerdict {
  try {
    const real = walk();
    return real === undefined ? { missing: true } : { real };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The entries of `pathEnv` the search leaves out for the operator to see (the
 * server log when the call side loads, `torii doctor`), each named with why:
 * relative entries, the working directory or below it, Torii's own directory,
 * entries that fail the trust rule. Missing entries are not listed.
 */
export function skippedPathEntries(
  pathEnv: string | undefined,
  place: { readonly cwd: string; readonly selfDir: string },
  platform: NodeJS.Platform,
): readonly SkippedEntry[] {
  return trustedSearchPath(pathEnv, { ...place, platform, trust: searchTrust(platform) }).skipped.filter((entry) => entry.reason !== MISSING_ENTRY);
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
export function restrictOwnPath(
  env: NodeJS.ProcessEnv,
  place: { readonly cwd: string; readonly selfDir: string },
  platform: NodeJS.Platform,
): readonly SkippedEntry[] {
  const context = { ...place, platform, trust: searchTrust(platform) };
  const search = trustedSearchPath(env.PATH, context);
  if (env.PATH !== undefined || platform !== "win32") env.PATH = childPathValue(env.PATH, context);
  pinOwnVersionManagers(env, context);
  return search.skipped.filter((entry) => entry.reason !== MISSING_ENTRY);
}

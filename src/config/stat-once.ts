/**
 * What `stat` says of a path (links followed; undefined for nothing there or
 * an error), asked once per computation (a search trust): the version pins look
 * at each PATH directory's `rustup` for its proxies and again for the rustups'
 * identities, and the installed managers and the remembered verdicts stat the same
 * roots and directories again. Never kept from one call to the next. A computation
 * whose verdict is remembered (observed-trust.ts) relies on every path stat-ed here
 * with its times: the verdicts kept by unchanged-verdicts.ts compare them.
 */
import { statSync, type BigIntStats } from "node:fs";
import { readFailed, reliesOn } from "./observed-trust.js";
import type { SearchTrust } from "../runtime/search-path.js";

export function statOnce(file: string, trust: SearchTrust): BigIntStats | undefined {
  let seen = statsSeen.get(trust);
  if (seen === undefined) statsSeen.set(trust, (seen = new Map<string, BigIntStats | undefined>()));
  if (seen.has(file)) return seen.get(file);
  reliesOn(trust, file, true);
  let stats: BigIntStats | undefined;
  try {
    stats = statSync(file, { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    // A file where a directory would be is nothing there, as the lstats show; any other failure is not.
    if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") readFailed(trust);
    stats = undefined;
  }
  seen.set(file, stats);
  return stats;
}

const statsSeen = new WeakMap<SearchTrust, Map<string, BigIntStats | undefined>>();

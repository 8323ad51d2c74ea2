/**
 * The PATH a planned child receives (runtime/search-path.ts `childPathValue`),
 * remembered from one call to the next while nothing it was judged by has changed.
 *
 * Why: reducing PATH holds every entry to the trust rule (an `lstat` of each
 * directory from `/` down, the kernel's `realpath`, whose glibc walk `readlink`s
 * every component) and resolves the working, own and temporary directories again:
 * some 25 `statx`, 6 `realpath` and 40 `readlink` calls per plain call on a PATH of
 * ten entries, the largest share of a plain call's child plan, for an answer that
 * changes only when a directory on PATH is created, removed, moved, relinked or
 * has its owner or mode changed.
 *
 * How a change is seen: as for the program's lookup (remembered-executable.ts,
 * whose judgement runs this very reduction), every path the reduction touched is
 * recorded through config/observed-trust.ts (each entry's inspection, links
 * followed, and each excluded place's real path) and checked again by one `lstat`
 * per path at the next call (config/unchanged-verdicts.ts says what each covers):
 * an entry that appears (its parent's times), becomes writable by others, changes
 * owner, or whose link is repointed is judged afresh. The same `lstat`s serve the
 * program's lookup and the version pins of the same call (one search trust). Keyed
 * on every other input: PATH, the working and own directories, the shared
 * temporary and trusted ones. POSIX only.
 */
import { rememberedJudgement } from "../config/observed-trust.js";
import { UnchangedVerdicts } from "../config/unchanged-verdicts.js";
import { childPathValue, type SearchPathContext } from "../runtime/search-path.js";

/** Reduced PATH values per inputs (a server plans children for a few providers and `.env` layers). */
const reductions = new UnchangedVerdicts<string>();

/** `childPathValue(pathEnv, context)`, answered from an earlier call while every path it touched is unchanged. */
export function rememberedChildPath(pathEnv: string | undefined, context: SearchPathContext): string {
  if (context.platform === "win32") return childPathValue(pathEnv, context);
  const key = JSON.stringify([pathEnv ?? null, context.platform, context.cwd, context.selfDir]);
  const { platform, cwd, selfDir } = context;
  return rememberedJudgement(reductions, key, context.trust, (trust) => childPathValue(pathEnv, { platform, cwd, selfDir, trust }));
}

/**
 * The file a provider's command resolves to, remembered from one call to the
 * next while nothing it was judged by has changed.
 *
 * Why: resolving looks at each PATH directory in turn, stats and `access`es the
 * candidates, and holds the program found to the trust rule (a walk of every
 * directory above it, links resolved): work repeated for every planned child,
 * for an answer that changes when a program is installed, removed or moved.
 *
 * How a change is seen: every path the resolution touched is recorded
 * (config/observed-trust.ts: the trust rule's inspections and real paths; here:
 * each candidate stat-ed and `access`ed, by its content, so a missing one is
 * answered for by its directory's times) and checked again by one lstat per
 * path at the next call (config/unchanged-verdicts.ts says what each lstat
 * covers): a program added to an earlier PATH directory, removed, replaced,
 * made writable by others or not executable, or a link on the way repointed,
 * is resolved afresh. Keyed on every other input: the command, PATH, PATHEXT,
 * the working and own directories, the shared temporary and trusted ones.
 * Only a resolution that found a file is remembered; POSIX only.
 */
import { rememberedJudgement, reliesOn } from "../config/observed-trust.js";
import { UnchangedVerdicts } from "../config/unchanged-verdicts.js";
import { resolveExecutable, type ResolvedExecutable, type ResolveExecutableOptions } from "../runtime/resolve-executable.js";

/** Resolutions per inputs (a server plans children for a few providers). */
const resolutions = new UnchangedVerdicts<ResolvedExecutable>();

/**
 * `resolveExecutable(command, options)`, answered from an earlier call while every path it touched is unchanged.
 *
 * @throws what resolveExecutable throws.
 */
export function resolveRemembered(command: string, options: ResolveExecutableOptions): ResolvedExecutable {
  if (options.platform === "win32") return resolveExecutable(command, options);
  const key = JSON.stringify([command, options.pathEnv ?? null, options.pathExt ?? null, options.platform, options.cwd, options.selfDir]);
  return rememberedJudgement(resolutions, key, options.trust, (trust) =>
    resolveExecutable(command, {
      ...options,
      trust,
      // Recorded before each look, by content: a mode, owner or ACL change moves the ctime `access` is judged by.
      probed: (candidate) => {
        reliesOn(trust, candidate, true);
      },
    }),
  );
}

/**
 * Doctor's check of PATH: the entries no call searches, named with why
 * (config/search-trust.ts, the server's own rule): relative entries, the
 * working directory or anything below it, Torii's own directory, the shared
 * temporary directories, and entries that fail the trust rule (owned by another user, writable by group or
 * others). The server names the same entries of its client's PATH in its log.
 * Doctor runs in the operator's shell, so "the working directory" here is the
 * shell's, not the one the client starts the server in.
 */
import { skippedPathEntries } from "../../config/search-trust.js";
import { toriiCodeDirectory } from "../../runtime/own-code.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** The `path` finding for this process's PATH and working directory, with the operator's `path.trusted_directories`. */
export function pathCheck(trustedDirectories: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): DoctorCheck {
  const skipped = skippedPathEntries(env.PATH, { cwd: process.cwd(), selfDir: toriiCodeDirectory(), trustedDirectories }, process.platform);
  if (skipped.length === 0) return check("path", "ok", "every PATH entry may be searched");
  const named = skipped.map(({ entry, reason }) => `${entry} (${reason})`).join("; ");
  return check(
    "path",
    "warn",
    `${skipped.length} PATH ${skipped.length === 1 ? "entry is" : "entries are"} never searched for a provider's program, nor passed to it: ${named}`,
    "install the CLI in a directory only you or root can write, outside the project the agent works in and the temporary directories (or run the fix named above; a directory whose group write is intended, as Homebrew's, goes in settings.yaml path.trusted_directories)",
  );
}

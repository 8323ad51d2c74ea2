/**
 * What a path names, links followed, for lookups that only ask "is there a
 * file here?": anything that cannot be read counts as no.
 * Callers that must report an unreadable entry (config/registry.ts) or must
 * not follow a link (state/lock.ts) keep their own checks.
 */
import { statSync } from "node:fs";

export function isFile(candidate: string): boolean {
  try {
    return statSync(candidate, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

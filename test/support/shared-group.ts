/**
 * Group-writable test trees whose group is not the user's private group: the
 * PATH search and the launch check accept group write by that group (umask 002
 * installs, src/config/private-group.ts), so a test of the refusal gives the
 * tree a group others may be in. Root (CI containers) takes any group; another
 * user one of its supplementary groups; with none, the tree keeps its group
 * (and the test sees whatever the user's group is).
 */
import { chmodSync, chownSync, readFileSync } from "node:fs";
import { privateGroupOf } from "../../src/config/private-group.js";

/** A gid that is not this user's private group, or undefined when this user can give a file none. */
function sharedGid(): number | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const own = privateGroupOf(uid);
  if (own === undefined) return undefined;
  const candidates =
    uid === 0
      ? readFileSync("/etc/group", "utf8")
          .split("\n")
          .map((line) => Number(line.split(":")[2]))
      : (process.getgroups?.() ?? []);
  return candidates.find((gid) => Number.isInteger(gid) && gid !== own);
}

/** chmod `target` to `mode`, and when the mode lets the group write, gives it a group other than the user's private one. */
export function chmodSharedGroup(target: string, mode: number): void {
  chmodSync(target, mode);
  if ((mode & 0o020) === 0) return;
  const gid = sharedGid();
  if (gid !== undefined) chownSync(target, -1, gid);
}

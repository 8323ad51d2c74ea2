/**
 * The user's private group, if the user has one: under umask 002 (Ubuntu,
 * Fedora and others give each user a group of their own for this), npm and nvm
 * leave every directory they create group-writable, and that write is the
 * user's alone when nobody else is in the group. So the PATH search and the
 * launch check (search-trust.ts) accept group write by that group, and by no
 * other: the group must carry the user's name, be the user's primary group,
 * list no member but the user in /etc/group, and be no other account's primary
 * group in /etc/passwd. A database that cannot be read accepts nothing.
 * Accounts from a directory service (LDAP, sssd) are not in these files: no
 * private group is found for them, and group write stays refused.
 */
import { readFileSync } from "node:fs";

/** Where the account databases are read; the system's by default. */
export interface AccountFiles {
  readonly passwd: string;
  readonly group: string;
}

const SYSTEM_FILES: AccountFiles = { passwd: "/etc/passwd", group: "/etc/group" };

/** The colon-separated fields of each line of `file`, or undefined when it cannot be read. */
function records(file: string): string[][] | undefined {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => line.split(":"));
  } catch {
    return undefined;
  }
}

/** The gid of `uid`'s private group, or undefined when it has none (or the databases cannot be read). */
export function privateGroupOf(uid: number, files: AccountFiles = SYSTEM_FILES): number | undefined {
  const passwd = records(files.passwd);
  const groups = records(files.group);
  if (passwd === undefined || groups === undefined) return undefined;
  const users = passwd.filter((fields) => fields[2] === String(uid));
  const [user] = users;
  if (users.length !== 1 || user?.[0] === undefined || user[3] === undefined) return undefined;
  const [name, gid] = [user[0], user[3]];
  // Another account whose primary group it is writes with it too.
  if (passwd.some((fields) => fields[3] === gid && fields[2] !== String(uid))) return undefined;
  const entries = groups.filter((fields) => fields[2] === gid);
  const [group] = entries;
  if (entries.length !== 1 || group?.[0] !== name) return undefined;
  const members = (group[3] ?? "").split(",").filter((member) => member !== "");
  return members.every((member) => member === name) ? Number(gid) : undefined;
}

/**
 * The name and home directory of the account this process runs as, from the
 * password database (`os.userInfo()`), looked up once: it cannot change while the process runs.
 * Undefined when there is no entry for the uid (a container's arbitrary uid):
 * callers then treat every `~name` as another user's, and Python's getpass
 * finds no name either.
 */
import { userInfo } from "node:os";

let lookup: { readonly name: string | undefined; readonly home: string | undefined } | undefined;

function account(): { readonly name: string | undefined; readonly home: string | undefined } {
  if (lookup === undefined) {
    try {
      const info = userInfo();
      lookup = { name: info.username, home: info.homedir };
    } catch {
      lookup = { name: undefined, home: undefined };
    }
  }
  return lookup;
}

export function accountName(): string | undefined {
  return account().name;
}

/** The account's home directory in the password database (not `HOME`): where Python's `~` goes when `HOME` is unset. */
export function accountHome(): string | undefined {
  return account().home;
}

/**
 * The name of the account this process runs as, from the password database
 * (`os.userInfo()`), looked up once: it cannot change while the process runs.
 * Undefined when there is no entry for the uid (a container's arbitrary uid):
 * callers then treat every `~name` as another user's, and Python's getpass
 * finds no name either.
 */
import { userInfo } from "node:os";

let lookup: { readonly name: string | undefined } | undefined;

export function accountName(): string | undefined {
  if (lookup === undefined) {
    let name: string | undefined;
    try {
      name = userInfo().username;
    } catch {
      name = undefined;
    }
    lookup = { name };
  }
  return lookup.name;
}

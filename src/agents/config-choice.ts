/**
 * Which of a client's equivalent file names Torii edits. opencode reads both
 * `opencode.json` and `opencode.jsonc` (JSON with comments) and lets the
 * `.jsonc` win; a user who keeps only `opencode.jsonc` would otherwise get a
 * second file beside it, which their own file overrides. So install, uninstall
 * and status use the name the client's usual file has, or its alternate when
 * only that one exists.
 */
import { existsSync } from "node:fs";
import type { ClientAdapter } from "./adapter.js";
import type { ConfigScope, Place } from "./place.js";

/** `client`'s file for `scope`: its usual name, or the alternate (`alternateFile`) when only that one exists. */
export function chosenConfigFile(client: ClientAdapter, scope: ConfigScope, place: Place, exists: (file: string) => boolean = existsSync): string {
  const usual = client.configFile(scope, place);
  const alternate = client.alternateFile?.(scope, place);
  return alternate !== undefined && !exists(usual) && exists(alternate) ? alternate : usual;
}

/**
 * What a client actually starts under Torii's name in a folder is not decided
 * by one file: Claude Code prefers its local scope (`projects["<folder>"]` in
 * `~/.claude.json`), then the project's `.mcp.json`, then the user's entry;
 * Codex, Gemini CLI and opencode lay a project's file over the user's; Cursor
 * and VS Code read both. A cloned repository whose `.mcp.json` (or
 * `.cursor/mcp.json`, `.gemini/settings.json`, …) names its own `torii` thus
 * runs instead of, or beside, the one the operator registered, while `status`
 * for the user's file says `registered`. So `status` also reads the client's
 * other places for this folder: an entry there that starts another program
 * makes the row `foreign`, one Torii cannot read makes it `unknown`, and
 * another Torii entry in a place the client prefers (local over project over
 * user) makes it `outdated`.
 */
import type { ClientAdapter, EntrySite, ToriiLaunch } from "./adapter.js";
import type { ConfigScope, Place } from "./place.js";
import { readConfigText } from "./config-file.js";
import { sameValue, valueAt } from "./document-value.js";
import { describeProgram, foreignProgram } from "./entry-owner.js";
import { formatOf } from "./format.js";
import type { RegistrationStatus } from "./registration.js";

/**
 * The places besides `scope`'s file where `client` reads an entry under Torii's
 * name in `place` (in the home folder, a project's file can be the user's own:
 * that one is left out).
 */
export function otherEntrySites(client: ClientAdapter, scope: ConfigScope, place: Place): readonly EntrySite[] {
  const checked = client.configFile(scope, place);
  const scopes = client.scopes
    .filter((other) => other !== scope && client.configFile(other, place) !== checked)
    .map((other) => ({ file: client.configFile(other, place), entryPath: client.entryPath, label: `${other} scope`, overrides: other === "project" }));
  return [...(client.localEntries?.(place) ?? []), ...scopes];
}

/**
 * The entries at `sites` that differ from the one `install` writes for
 * `launch`, as a status to merge with the file's own (undefined when there is
 * none). A file Torii cannot read makes it `unknown` (unless another makes it
 * `foreign`): the client may read it all the same.
 */
export async function shadowingStatus(client: ClientAdapter, sites: readonly EntrySite[], launch: ToriiLaunch): Promise<RegistrationStatus | undefined> {
  const expected = client.entry(launch);
  let foreign = false;
  let unreadable = false;
  const reasons: string[] = [];
  for (const site of sites) {
    let entry: unknown;
    try {
      const text = (await readConfigText(site.file)).text;
      entry = text === undefined ? undefined : valueAt(formatOf(client).parse(site.file, text), site.entryPath);
    } catch (error) {
      // The client may read what Torii refuses to (a repeated key, a second hard link, bytes that are not UTF-8):
      // what it starts there is unknown, so the row cannot say `registered`.
      unreadable = true;
      const why = error instanceof Error ? error.message : String(error);
      reasons.push(
        `${site.file} (${site.label}) cannot be read by Torii (${why}); ${client.title} may read it in this folder, so what it starts here is unknown`,
      );
      continue;
    }
    if (entry === undefined || sameValue(entry, expected)) continue;
    const program = foreignProgram(entry);
    // Another Torii entry the client ranks below the one checked (the user's, under a project's) does not run here.
    if (program === undefined && !site.overrides) continue;
    foreign ||= program !== undefined;
    const what =
      program === undefined
        ? `another entry shaped like Torii's that runs ${describeProgram(entry)} (other paths or settings)`
        : `an entry that runs ${program}, which is not Torii`;
    const how = site.overrides ? "and prefers it to this one" : "too";
    reasons.push(`${site.file} (${site.label}) holds ${what}; ${client.title} reads it in this folder ${how}`);
  }
  if (reasons.length === 0) return undefined;
  return { state: foreign ? "foreign" : unreadable ? "unknown" : "outdated", reasons };
}

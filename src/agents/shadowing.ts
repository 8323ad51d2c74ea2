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
 *
 * The places are more than the scopes' files: machine-wide files (Gemini
 * CLI's system settings, which override everything; Claude Code's
 * managed-mcp.json, which when present is the only place Claude Code starts
 * servers from, so without a `torii` there the row is `blocked`), other files
 * of the user's (VS Code's settings.json `mcp` block, opencode.jsonc), and the
 * project files in the folders above the working directory that the client
 * reads (project-folders.ts). An entry among them whose configuration root the
 * agent can write is `unsafe` (entry-root.ts).
 */
import type { ClientAdapter, EntrySite, ToriiLaunch } from "./adapter.js";
import { pathsOf, type ConfigScope, type Place } from "./place.js";
import { readConfigText } from "./config-file.js";
import { sameValue, valueAt } from "./document-value.js";
import { describeProgram, foreignProgram } from "./entry-owner.js";
import { chosenConfigFile } from "./config-choice.js";
import { entryRootInReach } from "./entry-root.js";
import { formatOf } from "./format.js";
import { otherToriiInstall } from "./other-install.js";
import { projectFolders, type ProjectFolders } from "./project-folders.js";
import type { RegistrationState, RegistrationStatus } from "./registration.js";

/**
 * The places besides `scope`'s file where `client` reads an entry under Torii's
 * name in `place`, each once (in the home folder, a project's file can be the
 * user's own: that one is left out).
 *
 * @param folders the folders a project search covers (project-folders.ts; injected for tests).
 */
export function otherEntrySites(
  client: ClientAdapter,
  scope: ConfigScope,
  place: Place,
  folders: ProjectFolders = projectFolders(place),
): readonly EntrySite[] {
  const paths = pathsOf(place);
  const cwd = paths.resolve(place.cwd);
  const scopes = client.scopes
    .filter((other) => other !== scope)
    .map((other) => ({ file: client.configFile(other, place), entryPath: client.entryPath, label: `${other} scope`, overrides: other === "project" }));
  // A project's files in the folders above: the client ranks them under the working directory's, over the user's.
  const projects = (client.projectFiles ?? []).flatMap((spec) =>
    folders(spec.search).map((folder) => ({
      file: paths.join(folder, ...spec.parts),
      entryPath: spec.entryPath,
      label: folder === cwd ? "project scope" : `project file in ${folder}, a folder above this one`,
      overrides: scope === "user" || folder === cwd,
    })),
  );
  const key = (file: string, entryPath: readonly string[]): string => JSON.stringify([file, entryPath]);
  const seen = new Set([key(chosenConfigFile(client, scope, place), client.entryPath)]);
  // A user's own other file (opencode.jsonc) ranks under a project's registration; a machine-wide one does not.
  const more = (client.moreEntries?.(place) ?? []).map((site) => (scope === "project" && site.system !== true ? { ...site, overrides: false } : site));
  return [...(client.localEntries?.(place) ?? []), ...more, ...scopes, ...projects].filter((site) => {
    const id = key(site.file, site.entryPath);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Which state wins when several places disagree: the one that tells the operator the most about what runs. */
const SEVERITY: readonly RegistrationState[] = ["foreign", "unsafe", "blocked", "unknown", "outdated"];

/** The more severe of two states (registered and missing rank below every finding). */
export function worseState(a: RegistrationState, b: RegistrationState): RegistrationState {
  const rank = (state: RegistrationState): number => {
    const index = SEVERITY.indexOf(state);
    return index < 0 ? SEVERITY.length : index;
  };
  return rank(b) < rank(a) ? b : a;
}

/**
 * The entries at `sites` that differ from the one `install` writes for
 * `launch`, as a status to merge with the file's own (undefined when there is
 * none). A file Torii cannot read makes it `unknown` (unless another makes it
 * `foreign`): the client may read it all the same.
 *
 * @param agentFolders the folders a server started here runs in that the agent can write (launch-trust.ts `agentFolders`).
 */
export async function shadowingStatus(
  client: ClientAdapter,
  sites: readonly EntrySite[],
  launch: ToriiLaunch,
  agentFolders: readonly string[] = [],
): Promise<RegistrationStatus | undefined> {
  const expected = client.entry(launch);
  let state: RegistrationState | undefined;
  const reasons: string[] = [];
  const found = (next: RegistrationState, reason: string): void => {
    state = state === undefined ? next : worseState(state, next);
    reasons.push(reason);
  };
  for (const site of sites) {
    let text: string | undefined;
    let entry: unknown;
    try {
      text = (await readConfigText(site.file, { rootOwned: site.system === true })).text;
      entry = text === undefined ? undefined : valueAt(formatOf(client).parse(site.file, text), site.entryPath);
    } catch (error) {
      // The client may read what Torii refuses to (a repeated key, a second hard link, bytes that are not UTF-8):
      // what it starts there is unknown, so the row cannot say `registered`.
      const why = error instanceof Error ? error.message : String(error);
      found(
        "unknown",
        `${site.file} (${site.label}) cannot be read by Torii (${why}); ${client.title} may read it in this folder, so what it starts here is unknown`,
      );
      continue;
    }
    if (site.exclusive === true && text !== undefined && entry === undefined) {
      found(
        "blocked",
        `${site.file} (${site.label}) exists and lists no ${client.entryPath.at(-1) ?? ""}; ${client.title} starts only the servers it lists, so it does not start Torii (ask whoever manages that file to add Torii's entry)`,
      );
      continue;
    }
    if (entry === undefined) continue;
    const program = foreignProgram(entry);
    const reach = program === undefined ? entryRootInReach(entry, agentFolders) : undefined;
    if (reach !== undefined) {
      found("unsafe", `${site.file} (${site.label}) holds an entry under Torii's name: ${reach}; ${client.title} reads it in this folder`);
      continue;
    }
    if (sameValue(entry, expected)) continue;
    // Another Torii entry the client ranks below the one checked (the user's, under a project's) does not run here.
    if (program === undefined && !site.overrides) continue;
    const other = program === undefined ? otherToriiInstall(entry, launch) : undefined;
    const what =
      program !== undefined
        ? `an entry that runs ${program}, which is not Torii`
        : other !== undefined
          ? `an entry that starts ${other}`
          : `another entry shaped like Torii's that runs ${describeProgram(entry)} (other paths or settings)`;
    const how = site.overrides ? "and prefers it to this one" : "too";
    found(program === undefined ? "outdated" : "foreign", `${site.file} (${site.label}) holds ${what}; ${client.title} reads it in this folder ${how}`);
  }
  return state === undefined ? undefined : { state, reasons };
}

/**
 * Doctor's view of the MCP clients: for every client file that exists on this
 * machine (each client's files per scope, as `torii agent` computes them), is
 * Torii's entry there and does it start this Torii? The comparison is
 * `torii agent status`'s own (agents/registration.ts `statusOf`), so for the
 * files doctor reads the two commands cannot disagree. The other places status
 * reads, which are not a registration of their own (the project files of the
 * folders above this one, Claude Code's managed settings), are judged by
 * status's own functions (shadowing.ts `shadowingStatus`, server-policy.ts
 * `policyStatus`): another program under Torii's name there, an entry the agent
 * can rewrite, or a policy that keeps the client from starting Torii fails; a
 * file Torii cannot read, or another Torii entry the client prefers, is a
 * warning. Claude Code's exclusive managed-mcp.json is one of doctor's files;
 * without Torii's entry it fails (status: `blocked`).
 * An entry whose paths no longer exist stops every call from that client
 * (fail); one that differs otherwise (another checkout, another root) is a
 * warning.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import { CLIENTS } from "../../agents/clients.js";
import { valueAt } from "../../agents/document-value.js";
import type { ClientAdapter, ToriiLaunch } from "../../agents/adapter.js";
import { formatOf } from "../../agents/format.js";
import type { Place } from "../../agents/place.js";
import { statusOf } from "../../agents/registration.js";
import { agentFolders, registrationTrust } from "../../agents/launch-trust.js";
import type { RegistrationStatus } from "../../agents/registration.js";
import { policyStatus } from "../../agents/server-policy.js";
import { otherEntrySites, shadowingStatus } from "../../agents/shadowing.js";
import { currentLaunch } from "../../agents/torii-launch.js";
import { ConfigError } from "../../config/errors.js";
import { readConfigText } from "../../config/read-file.js";
import { operatorTrustedDirectories } from "../shared/operator-path-trust.js";
import { check, type DoctorCheck } from "./doctor-check.js";

function currentPlace(): Place {
  return { platform: process.platform, env: process.env, home: os.homedir(), cwd: process.cwd() };
}

/** A state status reports for what the client reads besides its files, as a finding: what runs instead of Torii fails. */
function surroundingFinding(client: ClientAdapter, status: RegistrationStatus): DoctorCheck {
  const decisive = status.state === "foreign" || status.state === "unsafe" || status.state === "blocked";
  return check(`client ${client.id}`, decisive ? "fail" : "warn", status.reasons.join("; "), "torii agent status shows what it starts in this folder");
}

/**
 * What `client` reads in this folder besides the files doctor has read (`read`, as `[file, entryPath]` keys), judged
 * as `torii agent status` judges a user registration's surroundings: the project files of the folders above, managed
 * settings that deny Torii.
 */
async function surroundingChecks(
  client: ClientAdapter,
  place: Place,
  launch: ToriiLaunch,
  folders: readonly string[],
  read: ReadonlySet<string>,
): Promise<DoctorCheck[]> {
  const unread = otherEntrySites(client, "user", place).filter((site) => !read.has(JSON.stringify([site.file, site.entryPath])));
  const found = [await shadowingStatus(client, unread, launch, folders), await policyStatus(client, place, launch)];
  return found.filter((status): status is RegistrationStatus => status !== undefined).map((status) => surroundingFinding(client, status));
}

/** Findings about the registrations of Torii (serving `root`) in the MCP clients' files found here, and what else they read here. */
export async function clientRegistrationChecks(root: string): Promise<DoctorCheck[]> {
  const place = currentPlace();
  const launch = currentLaunch(root);
  // As agent status judges the code an entry starts: with the operator's trusted directories.
  const trustedDirectories = operatorTrustedDirectories(root);
  // The folders an agent started here can write: a user registration's surroundings are judged with them, as by status.
  const folders = agentFolders(registrationTrust("user", place, trustedDirectories));
  const findings: DoctorCheck[] = [];
  const surroundings: DoctorCheck[] = [];
  for (const client of CLIENTS) {
    const places = [
      ...client.scopes.map((scope) => ({ file: client.configFile(scope, place), entryPath: client.entryPath, scope, label: "", exclusive: false })),
      // Claude Code's local scope (projects["<folder>"] in ~/.claude.json): first in its precedence, as agent status reads it.
      // And the other places it reads (machine-wide settings, VS Code's settings.json, opencode.jsonc), as status does.
      ...[...(client.localEntries?.(place) ?? []), ...(client.moreEntries?.(place) ?? [])].map((site) => ({
        file: site.file,
        entryPath: site.entryPath,
        scope: "user" as const,
        label: ` (${site.label})`,
        exclusive: site.exclusive === true,
      })),
    ];
    for (const { file, entryPath, scope, label, exclusive } of places) {
      if (!existsSync(file)) continue;
      const where = `${file}${label}`;
      const subject = `client ${client.id}`;
      const reinstall = label === "" ? `torii agent install ${client.id}${scope === "project" ? " --scope project" : ""}` : `remove the entry by hand${label}`;
      try {
        // Without blocking, regular files only: a named pipe at a client's file is a finding, not a wait for a writer.
        const parsed = formatOf(client).parse(file, readConfigText(file));
        // An entry elsewhere in the file is judged as if it stood where the client's own entry does.
        const entry = valueAt(parsed, entryPath);
        if (entry === undefined && exclusive) {
          // Claude Code's managed-mcp.json: when it exists, the client starts only the servers it lists (status: blocked).
          const blocked = `${where} lists no ${client.entryPath.at(-1) ?? ""}, and ${client.title} starts only the servers it lists: it does not start Torii`;
          findings.push(check(subject, "fail", blocked, "ask whoever manages that file to add Torii's entry"));
          continue;
        }
        if (entryPath !== client.entryPath && entry === undefined) continue;
        const document = entryPath === client.entryPath ? parsed : client.entryPath.reduceRight<unknown>((inner, key) => ({ [key]: inner }), entry);
        const status = statusOf(client, document, launch, registrationTrust(scope, place, trustedDirectories));
        if (status.state === "registered") findings.push(check(subject, "ok", `registered in ${where}`));
        else if (status.state === "foreign") {
          // Another program under Torii's name: the client starts it as Torii.
          // install/uninstall --force edit the client's own files; the local scope only by hand.
          const remove = label === "" ? `${reinstall} --force` : reinstall;
          findings.push(check(subject, "fail", `${where}: ${status.reasons.join("; ")}`, `check where it came from, then ${remove}`));
        } else if (status.state === "unsafe") {
          // Torii's code, but rules the agent can rewrite: as bad as another program.
          findings.push(check(subject, "fail", `${where}: ${status.reasons.join("; ")}`, label === "" ? reinstall : `remove the entry by hand${label}`));
        } else if (status.state === "outdated") {
          const moved = status.reasons.some((reason) => reason.includes("does not exist"));
          findings.push(check(subject, moved ? "fail" : "warn", `Torii's entry in ${where} is outdated: ${status.reasons.join("; ")}`, reinstall));
        }
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        findings.push(check(subject, "warn", `${file} cannot be read: ${error.message}`, `fix the file, then ${reinstall}`));
      }
    }
    // After the files: what else the client reads in this folder, as status reads it.
    surroundings.push(...(await surroundingChecks(client, place, launch, folders, new Set(places.map((site) => JSON.stringify([site.file, site.entryPath]))))));
  }
  // Findings about other entries (a look-alike, an unreadable file) do not make Torii registered anywhere.
  if (!findings.some((finding) => finding.status === "ok")) {
    findings.push(check("clients", "warn", "no MCP client file here registers Torii", "torii agent install <client> (torii agent status lists the clients)"));
  }
  return [...findings, ...surroundings];
}

/**
 * Whether the code a registration makes the client start can be changed by
 * someone other than the operator. The client runs `node <package>/dist/cli.js
 * mcp` as the MCP server, with every power Torii has (leases, grants, the
 * credentials it layers onto children): whoever can replace the Node.js
 * executable, `cli.js` or the bundle it loads (`cli.cjs`, `chunks/`,
 * `server/`, `activate/`; the bundle holds every dependency) runs as Torii.
 *
 * So these files are held to the rule of every program Torii runs
 * (config/search-trust.ts): each, the directories above it and every link on
 * the way belong to this user or root and are not writable by group or others
 * (a sticky directory above, `/tmp`, passes; the operator's
 * `path.trusted_directories` accept group write as for a CLI). The code must
 * not lie in the folder the operator runs the command from, which is the
 * agent's to write, whatever the scope (a
 * user-scope install from a project with Torii in `node_modules` would
 * otherwise start the project's copy in every folder). For a project's file
 * (`--scope project`), the configuration root must also lie outside the
 * project folder.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { isInside } from "../config/path-inside.js";
import { samePlace } from "../config/physical-path.js";
import { searchTrust } from "../config/search-trust.js";
import type { ToriiLaunch } from "./adapter.js";
import { rootInReach } from "./entry-root.js";
import type { ConfigScope } from "./place.js";
import { toriiCodeDirectory } from "../runtime/own-code.js";

/** The bundle's entries beside `cli.js` that `cli.js` loads (scripts/bundle.mjs). */
const BUNDLE_FILES = ["cli.cjs"];
const BUNDLE_FOLDERS = ["chunks", "server", "activate"];

/** Where the launch is checked from. */
export interface LaunchTrustOptions {
  /** The operator's `path.trusted_directories` (settings.yaml). */
  readonly trustedDirectories?: readonly string[];
  /** The folder the command runs from, the agent's to write: the code must not lie in it. */
  readonly workingDirectory?: string;
  /** The project folder, for a project's registration: neither the code nor the configuration root may lie in it. */
  readonly projectRoot?: string;
  readonly platform?: NodeJS.Platform;
}

/** The files and folders a client starting `launch` runs, each with its kind. */
function launchedCode(launch: ToriiLaunch): readonly { target: string; kind: "file" | "directory" }[] {
  const dist = path.dirname(launch.cli);
  const code: { target: string; kind: "file" | "directory" }[] = [
    { target: launch.node, kind: "file" },
    { target: launch.cli, kind: "file" },
    ...BUNDLE_FILES.map((name) => ({ target: path.join(dist, name), kind: "file" as const })),
  ];
  for (const folder of BUNDLE_FOLDERS) {
    const where = path.join(dist, folder);
    let names: string[];
    try {
      names = readdirSync(where);
    } catch {
      continue;
    }
    code.push({ target: where, kind: "directory" }, ...names.map((name) => ({ target: path.join(where, name), kind: "file" as const })));
  }
  return code;
}

/**
 * What is wrong with the code `launch` starts: one line per problem, naming the
 * path and the fix; empty when the launch may be registered. A missing file is
 * a problem too (the client could not start it, and whoever creates it first
 * decides what runs).
 */
export function launchProblems(launch: ToriiLaunch, options: LaunchTrustOptions = {}): string[] {
  const platform = options.platform ?? process.platform;
  const trust = searchTrust(platform, { trustedDirectories: options.trustedDirectories });
  const real = (folder: string): string => trust.realPath(folder) ?? path.resolve(folder);
  const project = options.projectRoot === undefined ? undefined : real(options.projectRoot);
  // Each place the agent can write, lexically and resolved, with what it is called in the message.
  const agentsPlaces = [
    ...(project === undefined ? [] : [{ places: [project], what: `the project folder ${project}` }]),
    ...(options.workingDirectory === undefined
      ? []
      : [
          {
            places: [path.resolve(options.workingDirectory), real(options.workingDirectory)],
            what: `the folder this runs from, ${real(options.workingDirectory)}`,
          },
        ]),
    // Not the shared temporary directories, which the PATH search never enters: a clone or install there is the
    // operator's own files (under sticky /tmp nobody else can replace them), and CI and test runs clone there.
    // Residual (docs/agents.md): an agent sandbox confining writes to the workspace and /tmp can rewrite such a copy.
  ];
  const problems: string[] = [];
  const inReach = new Map<string, string[]>();
  for (const { target, kind } of launchedCode(launch)) {
    const verdict = trust.inspect(target, kind);
    if ("missing" in verdict) {
      if (target === launch.node || target === launch.cli) problems.push(`${target} does not exist`);
      continue;
    }
    if ("problem" in verdict) {
      problems.push(verdict.problem);
      continue;
    }
    const onTheWay = [path.resolve(target), verdict.real, ...(verdict.steps ?? [])];
    const reached = agentsPlaces.find(({ places }) => onTheWay.some((step) => places.some((place) => isInside(step, place))));
    if (reached !== undefined) inReach.set(reached.what, [...(inReach.get(reached.what) ?? []), target]);
  }
  // One line per place, not one per bundle chunk.
  for (const [what, targets] of inReach) {
    const more = targets.length > 1 ? ` (and ${targets.length - 1} more of the files it runs)` : "";
    problems.push(`${targets[0] ?? ""}${more} lies in ${what}, which the agent can write; install Torii outside it (or run this from another folder)`);
  }
  // The configuration root decides what the agent may run: in the project, or in the folder the server runs in
  // (the agent's, whatever the scope), the agent could rewrite its rules, leases and its own registration. The same
  // judgement as agent status's `unsafe` (entry-root.ts), resolved even before the root exists.
  const rootReached = rootInReach(launch.configRoot, agentFolders(options));
  if (rootReached !== undefined) problems.push(rootReached);
  return [...new Set(problems)];
}

/**
 * The folders a registration checked with `options` runs its server in that the agent can write: the project and
 * the folder the command runs from (none for the user scope run from the home folder: registrationTrust).
 */
export function agentFolders(options: LaunchTrustOptions): readonly string[] {
  return [...new Set([options.projectRoot, options.workingDirectory].filter((folder): folder is string => folder !== undefined))];
}

/**
 * What a registration for `scope`, made or checked from `place`, is held to:
 * the operator's trusted directories, the folder it runs from (the agent's,
 * whatever the scope), and for a project's file the project. One function for
 * install, status, doctor and the setup wizard, so they cannot disagree. The
 * home folder (or one above it, such as /) is where a terminal starts, not a
 * project: an agent working there could rewrite the client's own files anyway,
 * and refusing there would refuse every per-user install (nvm's ~/.nvm, a clone
 * under ~), so for the user scope it is not counted as the agent's. Nor is the
 * root of this Torii's own package (a clone registered from its folder, as the
 * README does): what is refused is a project's copy, in its node_modules.
 */
export function registrationTrust(
  scope: ConfigScope,
  place: { readonly cwd: string; readonly home: string },
  trustedDirectories: readonly string[],
  packageRoot: string = path.dirname(toriiCodeDirectory()),
): LaunchTrustOptions {
  if (scope === "project") return { trustedDirectories, workingDirectory: place.cwd, projectRoot: place.cwd };
  if (isInside(place.home, place.cwd)) return { trustedDirectories };
  // A clone of Torii registered from its own root (the README's path from a clone): the operator runs this
  // checkout by name, not a project's dependency; a copy under the folder's node_modules is still refused.
  if (samePlace(place.cwd, packageRoot)) return { trustedDirectories };
  return { trustedDirectories, workingDirectory: place.cwd };
}

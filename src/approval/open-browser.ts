/**
 * Opens the approval page in the operator's default browser: `xdg-open` on
 * Linux and the BSDs, `open` on macOS, `explorer.exe` on Windows, each given
 * the URL as one argv element (no shell ever sees it). Skipped when
 * `TORII_OPEN_BROWSER=0` (or any value but an "on" spelling, config/env-switch.ts),
 * and on Linux/BSD when there is no display (an SSH
 * session: the operator answers with `torii approvals`). A failure to start
 * the opener is not an error: the approval stays pending for the CLI.
 *
 * The opener is a program the server starts itself, with the one-time link in
 * its argv, so it is found the way a provider's CLI is and never through the
 * agent's reach: `open` and `explorer.exe` by their fixed system paths,
 * `xdg-open` through PATH's trusted absolute entries only, never the working
 * directory or below it, nor Torii's own (search-path.ts). The server's
 * working directory is usually the agent's project: a planted `xdg-open`
 * there, found through `node_modules/.bin` (relative, or absolute as npx puts
 * it), would get the link and answer the page. The opener runs in the root
 * directory with that same reduced PATH, since `xdg-open` itself looks up the
 * browser by name.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { browserOpeningAllowed } from "../config/env-switch.js";
import { searchContext, type SearchPlace } from "../config/search-trust.js";
import { resolveExecutable } from "../runtime/resolve-executable.js";
import { childPathValue } from "../runtime/search-path.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Whether a browser should be opened at all in this environment. */
export function browserWanted(env: Env, platform: NodeJS.Platform): boolean {
  // Fails closed: `false`, `no` or a typo keeps the link out of a browser's argv as `0` does (config/env-switch.ts).
  if (!browserOpeningAllowed(env)) return false;
  if (platform === "darwin" || platform === "win32") return true;
  return (env.DISPLAY ?? "") !== "" || (env.WAYLAND_DISPLAY ?? "") !== "";
}

/** How the opener is started: its absolute file, argv, working directory and environment. */
export interface OpenerLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Env;
}

/**
 * The opener's launch for `url`, or undefined when no opener can be found
 * outside the agent's reach. `place` is the server's working directory and
 * Torii's code directory, which are never searched.
 */
export function openerLaunch(url: string, env: Env, place: SearchPlace, platform: NodeJS.Platform): OpenerLaunch | undefined {
  if (platform === "win32") {
    const systemRoot = /^[A-Za-z]:\\/u.test(env.SystemRoot ?? "") ? (env.SystemRoot ?? "") : "C:\\Windows";
    return { file: path.win32.join(systemRoot, "explorer.exe"), args: [url], cwd: systemRoot, env };
  }
  const context = searchContext(place, platform);
  const reducedEnv = { ...env, PATH: childPathValue(env.PATH, context) };
  if (platform === "darwin") return { file: "/usr/bin/open", args: [url], cwd: "/", env: reducedEnv };
  try {
    const { path: file } = resolveExecutable("xdg-open", { pathEnv: env.PATH, ...context });
    return { file, args: [url], cwd: "/", env: reducedEnv };
  } catch {
    return undefined;
  }
}

/** Starts the opener for `url`, detached, ignoring its output; returns whether one was started. */
export function openBrowser(url: string, env: Env, place: SearchPlace, platform: NodeJS.Platform): boolean {
  if (!browserWanted(env, platform)) return false;
  const launch = openerLaunch(url, env, place, platform);
  if (launch === undefined) return false;
  try {
    const child = spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env, shell: false, stdio: "ignore", detached: true, windowsHide: true });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

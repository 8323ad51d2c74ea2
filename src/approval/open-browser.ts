/**
 * Opens the approval page in the operator's default browser: `xdg-open` on
 * Linux and the BSDs, `open` on macOS, `explorer.exe` on Windows, each given
 * the URL as one argv element (no shell ever sees it). Skipped when
 * `TORII_OPEN_BROWSER=0`, and on Linux/BSD when there is no display (an SSH
 * session: the operator answers with `torii approvals`). A failure to start
 * the opener is not an error: the approval stays pending for the CLI.
 */
import { spawn } from "node:child_process";

/** Whether a browser should be opened at all in this environment. */
export function browserWanted(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): boolean {
  if (env.TORII_OPEN_BROWSER === "0") return false;
  if (platform === "darwin" || platform === "win32") return true;
  return (env.DISPLAY ?? "") !== "" || (env.WAYLAND_DISPLAY ?? "") !== "";
}

/** The opener's argv for `url` on `platform`. */
export function openerArgv(url: string, platform: NodeJS.Platform): readonly [string, ...string[]] {
  if (platform === "darwin") return ["open", url];
  if (platform === "win32") return ["explorer.exe", url];
  return ["xdg-open", url];
}

/** Starts the opener for `url`, detached, ignoring its output; returns whether one was started. */
export function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): boolean {
  if (!browserWanted(env, platform)) return false;
  const [command, ...args] = openerArgv(url, platform);
  try {
    const child = spawn(command, args, { shell: false, stdio: "ignore", detached: true, windowsHide: true });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

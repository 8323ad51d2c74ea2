/**
 * Where a client looks for its configuration depends only on the operating
 * system, a few environment variables, the home directory and (for a
 * project-scoped file) the project folder. `Place` carries exactly those, so
 * every location is a pure function that tests can evaluate for macOS, Linux
 * and Windows on any machine.
 */
import path from "node:path";

/** The inputs every client location is computed from. */
export interface Place {
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  /** The project folder for `--scope project` (the current directory). */
  readonly cwd: string;
}

/** Whether a configuration file is the user's (all projects) or one project's. */
export type ConfigScope = "user" | "project";

/** The path module of the place's platform (so Windows paths are built with backslashes on any host). */
export function pathsOf(place: Place): path.PlatformPath {
  return place.platform === "win32" ? path.win32 : path.posix;
}

/** An environment variable's value when it is set to an absolute path, else undefined. */
export function absoluteEnv(place: Place, name: string): string | undefined {
  const value = place.env[name];
  return value !== undefined && value !== "" && pathsOf(place).isAbsolute(value) ? value : undefined;
}

/** `~/.config` or `$XDG_CONFIG_HOME` (the XDG base directory, used on Linux and by some clients everywhere). */
export function xdgConfigHome(place: Place): string {
  return absoluteEnv(place, "XDG_CONFIG_HOME") ?? pathsOf(place).join(place.home, ".config");
}

/** `%APPDATA%` (falling back to `<home>\AppData\Roaming`). */
export function windowsAppData(place: Place): string {
  return absoluteEnv(place, "APPDATA") ?? pathsOf(place).join(place.home, "AppData", "Roaming");
}

/**
 * The per-user application-data folder of a desktop application: macOS
 * `~/Library/Application Support`, Windows `%APPDATA%`, elsewhere the XDG
 * config home (where Electron apps keep their `userData`).
 */
export function desktopAppData(place: Place): string {
  if (place.platform === "darwin") return pathsOf(place).join(place.home, "Library", "Application Support");
  if (place.platform === "win32") return windowsAppData(place);
  return xdgConfigHome(place);
}

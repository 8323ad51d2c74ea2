/**
 * Where Torii's configuration lives and how the tree below the root is laid out.
 *
 * The layout is Torii's, unchanged, so an existing Torii tree can be used by
 * pointing `TORII_CONFIG_DIR` at it:
 *
 * ```
 * <root>/settings.yaml
 * <root>/providers/<name>/provider.yaml
 * <root>/providers/<name>/rules.yaml
 * <root>/providers/<name>/.env
 * <root>/providers/<name>/targets/<alias>/target.yaml
 * <root>/providers/<name>/targets/<alias>/rules.yaml
 * <root>/providers/<name>/targets/<alias>/.env
 * ```
 */
import path from "node:path";
import { ConfigError } from "./errors.js";

/** The environment variable that overrides the configuration root. */
export const CONFIG_DIR_ENV = "TORII_CONFIG_DIR";

/**
 * Returns the configuration root: `TORII_CONFIG_DIR` when set and non-empty,
 * otherwise `~/.config/torii`, or on Windows `%APPDATA%\torii` (falling back to
 * `<home>\AppData\Roaming\torii` when `APPDATA` is unset or not absolute).
 *
 * A relative `TORII_CONFIG_DIR` is refused rather than resolved: it would make
 * the policy in force depend on whichever directory the MCP client happened to
 * start the server in.
 *
 * @throws ConfigError when `TORII_CONFIG_DIR` is set but not absolute.
 */
export function resolveConfigRoot(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform, homedir: string): string {
  const paths = platform === "win32" ? path.win32 : path.posix;
  const override = env[CONFIG_DIR_ENV];
  if (override !== undefined && override !== "") {
    if (!paths.isAbsolute(override) || isDriveRelative(platform, override)) {
      throw new ConfigError(CONFIG_DIR_ENV, `must be an absolute path, got ${JSON.stringify(override)}`);
    }
    return paths.normalize(override);
  }
  if (platform === "win32") {
    const appData = env.APPDATA;
    const base =
      appData !== undefined && appData !== "" && paths.isAbsolute(appData) && !isDriveRelative(platform, appData)
        ? appData
        : paths.join(homedir, "AppData", "Roaming");
    return paths.join(base, "torii");
  }
  return paths.join(homedir, ".config", "torii");
}

/**
 * `\foo` passes `path.win32.isAbsolute` but is relative to the current drive,
 * which is as unpredictable as a relative path.
 */
function isDriveRelative(platform: NodeJS.Platform, candidate: string): boolean {
  return platform === "win32" && /^[\\/](?![\\/])/.test(candidate);
}

/** `<root>/settings.yaml`. */
export function settingsPath(root: string): string {
  return path.join(root, "settings.yaml");
}

/** `<root>/providers`: one directory per installed provider. */
export function providersDir(root: string): string {
  return path.join(root, "providers");
}

/** `<root>/providers/<name>`. */
export function providerDir(root: string, name: string): string {
  const parent = providersDir(root);
  return path.join(parent, checkedSegment(parent, name));
}

/** `<providerDir>/provider.yaml`. */
export function providerConfigPath(providerDirectory: string): string {
  return path.join(providerDirectory, "provider.yaml");
}

/** `<providerDir>/targets`: one directory per target alias. */
export function targetsDir(providerDirectory: string): string {
  return path.join(providerDirectory, "targets");
}

/** `<providerDir>/targets/<alias>`. */
export function targetDir(providerDirectory: string, alias: string): string {
  const parent = targetsDir(providerDirectory);
  return path.join(parent, checkedSegment(parent, alias));
}

/** `<targetDir>/target.yaml`. */
export function targetConfigPath(targetDirectory: string): string {
  return path.join(targetDirectory, "target.yaml");
}

/** `rules.yaml` in a provider or target directory. */
export function rulesPath(providerOrTargetDir: string): string {
  return path.join(providerOrTargetDir, "rules.yaml");
}

/** `.env` in a provider or target directory. Only read after a policy allow. */
export function envFilePath(providerOrTargetDir: string): string {
  return path.join(providerOrTargetDir, ".env");
}

/** The `.env` a provider reads: `environment.file` (relative to its directory) when set, else `.env`. */
export function providerEnvFilePath(providerDirectory: string, environmentFile: string | undefined): string {
  return environmentFile === undefined ? envFilePath(providerDirectory) : path.join(providerDirectory, environmentFile);
}

/**
 * Names reach these helpers from operator commands and agent requests, so a
 * name that would step out of its parent directory is refused here, once, for
 * every caller.
 */
function checkedSegment(parent: string, name: string): string {
  if (name === "" || name === "." || name === ".." || /[\\/\0]/.test(name)) {
    throw new ConfigError(parent, `${JSON.stringify(name)} is not a valid directory name`);
  }
  return name;
}

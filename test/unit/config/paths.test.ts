import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  envFilePath,
  providerConfigPath,
  providerDir,
  providersDir,
  resolveConfigRoot,
  rulesPath,
  settingsPath,
  targetConfigPath,
  targetDir,
  targetsDir,
} from "../../../src/config/paths.js";
import { catchConfigError } from "./temp-tree.js";

describe("resolveConfigRoot", () => {
  it("uses TORII_CONFIG_DIR when it is set and absolute", () => {
    expect(resolveConfigRoot({ TORII_CONFIG_DIR: "/srv/torii" }, "linux", "/home/ana")).toBe("/srv/torii");
  });

  it("refuses a relative TORII_CONFIG_DIR instead of resolving it against the working directory", () => {
    const error = catchConfigError(() => resolveConfigRoot({ TORII_CONFIG_DIR: "cfg/torii" }, "linux", "/home/ana"));
    expect(error.message).toBe('TORII_CONFIG_DIR: must be an absolute path, got "cfg/torii"');
  });

  it("defaults to ~/.config/torii on Linux and macOS", () => {
    expect(resolveConfigRoot({}, "linux", "/home/ana")).toBe("/home/ana/.config/torii");
    expect(resolveConfigRoot({ TORII_CONFIG_DIR: "" }, "darwin", "/Users/ana")).toBe("/Users/ana/.config/torii");
  });

  it("uses %APPDATA%\\torii on Windows", () => {
    const root = resolveConfigRoot({ APPDATA: "C:\\Users\\ana\\AppData\\Roaming" }, "win32", "C:\\Users\\ana");
    expect(root).toBe("C:\\Users\\ana\\AppData\\Roaming\\torii");
  });

  it("falls back to <home>\\AppData\\Roaming\\torii on Windows without APPDATA", () => {
    expect(resolveConfigRoot({}, "win32", "C:\\Users\\ana")).toBe("C:\\Users\\ana\\AppData\\Roaming\\torii");
  });

  it("ignores a relative APPDATA on Windows", () => {
    expect(resolveConfigRoot({ APPDATA: "Roaming" }, "win32", "C:\\Users\\ana")).toBe("C:\\Users\\ana\\AppData\\Roaming\\torii");
  });

  it("accepts an absolute Windows TORII_CONFIG_DIR and refuses a drive-relative one", () => {
    expect(resolveConfigRoot({ TORII_CONFIG_DIR: "D:\\torii" }, "win32", "C:\\Users\\ana")).toBe("D:\\torii");
    expect(catchConfigError(() => resolveConfigRoot({ TORII_CONFIG_DIR: "\\torii" }, "win32", "C:\\Users\\ana")).file).toBe("TORII_CONFIG_DIR");
    expect(catchConfigError(() => resolveConfigRoot({ TORII_CONFIG_DIR: "torii" }, "win32", "C:\\Users\\ana")).file).toBe("TORII_CONFIG_DIR");
  });
});

describe("layout helpers", () => {
  const root = path.join(path.sep, "cfg");

  it("name every file of the tree", () => {
    const aws = providerDir(root, "aws");
    const prod = targetDir(aws, "prod");
    expect(settingsPath(root)).toBe(path.join(root, "settings.yaml"));
    expect(providersDir(root)).toBe(path.join(root, "providers"));
    expect(aws).toBe(path.join(root, "providers", "aws"));
    expect(providerConfigPath(aws)).toBe(path.join(aws, "provider.yaml"));
    expect(rulesPath(aws)).toBe(path.join(aws, "rules.yaml"));
    expect(envFilePath(aws)).toBe(path.join(aws, ".env"));
    expect(targetsDir(aws)).toBe(path.join(aws, "targets"));
    expect(prod).toBe(path.join(aws, "targets", "prod"));
    expect(targetConfigPath(prod)).toBe(path.join(prod, "target.yaml"));
    expect(rulesPath(prod)).toBe(path.join(prod, "rules.yaml"));
    expect(envFilePath(prod)).toBe(path.join(prod, ".env"));
  });

  it.each(["..", ".", "", "a/b", "a\\b", "../x"])("refuse %j as a provider or target name", (name) => {
    expect(catchConfigError(() => providerDir(root, name)).file).toBe(path.join(root, "providers"));
    expect(catchConfigError(() => targetDir(path.join(root, "providers", "aws"), name)).detail).toMatch(/not a valid directory name/);
  });
});

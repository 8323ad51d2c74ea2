/**
 * The operator CLI's PATH lookups (editor, setup, target add, doctor) use the
 * operator's `path.trusted_directories` from the configuration root's
 * settings.yaml, as the server does; a settings file that does not load
 * trusts none (the strict search), and nothing is read from the environment.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pathCheck } from "../../../../src/commands/doctor/path-check.js";
import { operatorTrustedDirectories } from "../../../../src/commands/shared/operator-path-trust.js";
import { tempDir, writeTree, yaml } from "../../config/temp-tree.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("operatorTrustedDirectories", () => {
  it("reads path.trusted_directories from settings.yaml of the root", () => {
    const root = tempDir();
    writeTree(root, { "settings.yaml": yaml("path:", "  trusted_directories: [/usr/local/bin]") });
    expect(operatorTrustedDirectories(root)).toEqual(["/usr/local/bin"]);
  });

  it("trusts none when settings.yaml is missing or does not load", () => {
    expect(operatorTrustedDirectories(tempDir())).toEqual([]);
    const broken = tempDir();
    writeTree(broken, { "settings.yaml": yaml("path:", "  trusted_directories: [relative/bin]") });
    expect(operatorTrustedDirectories(broken)).toEqual([]);
  });

  it("reads the root TORII_CONFIG_DIR names by default, never a directory list from the environment", () => {
    const root = tempDir();
    writeTree(root, { "settings.yaml": yaml("path:", "  trusted_directories: [/opt/brew/bin]") });
    vi.stubEnv("TORII_CONFIG_DIR", root);
    vi.stubEnv("TORII_PATH_TRUSTED_DIRECTORIES", "/tmp");
    expect(operatorTrustedDirectories()).toEqual(["/opt/brew/bin"]);
  });
});

posixOnly("torii doctor's path check", () => {
  it("does not report a group-writable directory the operator listed, and reports it otherwise", () => {
    const top = tempDir();
    const brew = path.join(top, "brew-bin");
    mkdirSync(brew);
    writeFileSync(path.join(brew, "mycli"), "#!/bin/sh\n");
    chmodSync(brew, 0o775);
    vi.stubEnv("PATH", brew);
    expect(pathCheck([brew])).toMatchObject({ status: "ok" });
    expect(pathCheck([])).toMatchObject({ status: "warn" });
    expect(pathCheck([]).message).toMatch(/brew-bin \(.*writable by group or others \(mode 775\)/u);
  });
});

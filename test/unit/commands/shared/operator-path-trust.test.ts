/**
 * The operator CLI's PATH lookups (editor, setup, target add, doctor) use the
 * operator's `path.trusted_directories` from the configuration root's
 * settings.yaml, as the server does; a settings file that does not load
 * trusts none (the strict search), and nothing is read from the environment.
 * The editor's version-manager pins (config/version-pin.ts) trust what its
 * lookup trusts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pathCheck } from "../../../../src/commands/doctor/path-check.js";
import { pinnedShellEnv, resolveOnPath } from "../../../../src/commands/shared/cli-on-path.js";
import { operatorTrustedDirectories } from "../../../../src/commands/shared/operator-path-trust.js";
import { writeExecutable } from "../../../support/fake-clis.js";
import { tempDir, writeTree, yaml } from "../../config/temp-tree.js";
import { chmodSharedGroup } from "../../../support/shared-group.js";

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
    chmodSharedGroup(brew, 0o775);
    vi.stubEnv("PATH", brew);
    expect(pathCheck([brew])).toMatchObject({ status: "ok" });
    expect(pathCheck([])).toMatchObject({ status: "warn" });
    expect(pathCheck([]).message).toMatch(/brew-bin \(.*writable by group or others \(mode 775\)/u);
  });
});

posixOnly("the editor's pins", () => {
  it("reads a manager's global file in a group-writable directory the operator trusts, as resolveOnPath finds the shim there", () => {
    const top = tempDir();
    const shared = path.join(top, "shared-tools");
    const pyenvRoot = path.join(shared, ".pyenv");
    const shims = path.join(pyenvRoot, "shims");
    writeExecutable(
      path.join(shims, "editor"),
      `#!/usr/bin/env bash\nprogram="\${0##*/}"\nexport PYENV_ROOT="${pyenvRoot}"\nexec "${pyenvRoot}/libexec/pyenv" exec "$program" "$@"\n`,
    );
    writeFileSync(path.join(pyenvRoot, "version"), "3.11.7\n");
    // A team's shared tool tree: group-writable, which only path.trusted_directories accepts.
    for (const directory of [shared, pyenvRoot, shims]) chmodSharedGroup(directory, 0o775);
    chmodSharedGroup(path.join(pyenvRoot, "version"), 0o664);
    const root = tempDir();
    writeTree(root, { "settings.yaml": yaml("path:", `  trusted_directories: [${JSON.stringify(shared)}]`) });
    vi.stubEnv("TORII_CONFIG_DIR", root);
    const env = { HOME: top, PATH: `${shims}:/usr/bin:/bin` };
    const editor = resolveOnPath("editor", env);
    expect(editor).toBe(path.join(shims, "editor"));
    expect(pinnedShellEnv(editor, env).PYENV_VERSION).toBe("3.11.7");
  });
});

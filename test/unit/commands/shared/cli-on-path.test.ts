/**
 * The operator CLI starts a program of its own (the editor) with the version
 * managers it can reach pinned (config/version-pin.ts), trusting what the
 * lookup trusts: the operator's `path.trusted_directories` apply to the
 * manager's global file as they apply to the program found on PATH.
 */
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pinnedShellEnv, resolveOnPath } from "../../../../src/commands/shared/cli-on-path.js";
import { writeExecutable } from "../../../support/fake-clis.js";
import { tempDir, writeTree, yaml } from "../../config/temp-tree.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

afterEach(() => {
  vi.unstubAllEnvs();
});

posixOnly("pinnedShellEnv", () => {
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
    for (const directory of [shared, pyenvRoot, shims]) chmodSync(directory, 0o775);
    chmodSync(path.join(pyenvRoot, "version"), 0o664);
    const root = tempDir();
    writeTree(root, { "settings.yaml": yaml("path:", `  trusted_directories: [${JSON.stringify(shared)}]`) });
    vi.stubEnv("TORII_CONFIG_DIR", root);
    const env = { HOME: top, PATH: `${shims}:/usr/bin:/bin` };
    const editor = resolveOnPath("editor", env);
    expect(editor).toBe(path.join(shims, "editor"));
    expect(pinnedShellEnv(editor, env).PYENV_VERSION).toBe("3.11.7");
  });
});

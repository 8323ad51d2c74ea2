/**
 * A version manager's shim or proxy is recognised from its real path and its
 * first bytes (runtime/version-shim-detect.ts), with the texts the managers
 * themselves write; an ordinary program or script is not. The global version
 * file is read as the rbenv family reads it, and a word naming a path is refused.
 */
import { describe, expect, it } from "vitest";
import { envFamilyGlobalVersion, versionManagerOf } from "../../../src/runtime/version-shim-detect.js";

/** The shim `pyenv rehash` writes (pyenv 2.x); rbenv, nodenv and goenv write the same lines with their own names. */
function envShim(name: string, root: string): string {
  const upper = name.toUpperCase();
  return `#!/usr/bin/env bash
set -e
[ -n "$${upper}_DEBUG" ] && set -x

program="\${0##*/}"

export ${upper}_ROOT="${root}"
exec "${root}/libexec/${name}" exec "$program" "$@"
`;
}

describe("the rbenv family (pyenv, rbenv, nodenv, goenv)", () => {
  it.each([
    ["pyenv", "/root/.pyenv"],
    ["rbenv", "/home/op/.rbenv"],
    ["nodenv", "/home/op/.nodenv"],
    ["goenv", "/opt/goenv"],
  ])("recognises a %s shim with its root and override variable", (name, root) => {
    expect(versionManagerOf({ realPath: `${root}/shims/tool`, head: envShim(name, root) })).toEqual({
      kind: "env-family",
      name,
      root,
      program: `${root}/libexec/${name}`,
      versionVariable: `${name.toUpperCase()}_VERSION`,
    });
  });

  it("takes the root from the manager's program when the shim exports none", () => {
    const head = '#!/usr/bin/env bash\nexec "/srv/tools/pyenv/libexec/pyenv" exec "$program" "$@"\n';
    expect(versionManagerOf({ realPath: "/anywhere/aws", head })).toMatchObject({ name: "pyenv", root: "/srv/tools/pyenv" });
  });

  it("recognises the shim by its content wherever it lies, a copy outside the shims directory included", () => {
    expect(versionManagerOf({ realPath: "/usr/local/bin/aws", head: envShim("pyenv", "/root/.pyenv") })?.kind).toBe("env-family");
  });
});

describe("rustup proxies", () => {
  it("recognises a proxy by its real path being rustup (a link in ~/.cargo/bin)", () => {
    expect(versionManagerOf({ realPath: "/root/.cargo/bin/rustup", head: "\u007fELF" })).toEqual({ kind: "rustup" });
    expect(versionManagerOf({ realPath: "C:\\Users\\op\\.cargo\\bin\\rustup.exe", head: "MZ" })).toEqual({ kind: "rustup" });
  });

  it("recognises a hard-linked proxy by its being the same file as a rustup", () => {
    expect(versionManagerOf({ realPath: "/home/op/.cargo/bin/cargo", head: "\u007fELF", sameFileAsRustup: true })).toEqual({ kind: "rustup" });
  });
});

describe("managers Torii does not pin", () => {
  it("recognises asdf shims (the 0.x bash shims and the exec line of later ones)", () => {
    const bash = '#!/usr/bin/env bash\n# asdf-plugin: nodejs 20.11.0\nexec /home/op/.asdf/libexec/bin/asdf exec "node" "$@" # asdf_allow: \' asdf \'\n';
    expect(versionManagerOf({ realPath: "/home/op/.asdf/shims/node", head: bash })).toEqual({ kind: "unpinnable", name: "asdf" });
    const exec = '#!/usr/bin/env bash\nexec "/usr/local/bin/asdf" exec "python" "$@"\n';
    expect(versionManagerOf({ realPath: "/home/op/.asdf/shims/python", head: exec })).toEqual({ kind: "unpinnable", name: "asdf" });
  });

  it("recognises mise shims: links to the mise binary and file shims", () => {
    expect(versionManagerOf({ realPath: "/home/op/.local/bin/mise", head: "\u007fELF" })).toEqual({ kind: "unpinnable", name: "mise" });
    expect(versionManagerOf({ realPath: "/home/op/.local/share/mise/shims/node", head: '#!/usr/bin/env bash\nexec mise x -- node "$@"\n' })).toEqual({
      kind: "unpinnable",
      name: "mise",
    });
  });

  it("recognises volta's shim", () => {
    expect(versionManagerOf({ realPath: "/home/op/.volta/bin/volta-shim", head: "\u007fELF" })).toEqual({ kind: "unpinnable", name: "volta" });
  });
});

describe("ordinary programs", () => {
  it.each([
    ["an ELF binary", "/usr/bin/kubectl", "\u007fELF\u0002\u0001"],
    ["a Python entry point", "/root/.pyenv/versions/3.11.7/bin/aws", "#!/root/.pyenv/versions/3.11.7/bin/python3.11\nimport sys\n"],
    ["a shell wrapper that mentions exec", "/usr/bin/gcloud", '#!/bin/sh\nexec "/usr/lib/google-cloud-sdk/bin/gcloud" "$@"\n'],
    ["pyenv's own program", "/root/.pyenv/libexec/pyenv", '#!/usr/bin/env bash\nset -e\nexec "$command_path" "$@"\n'],
    ["a shim marker that is not the first text (no #! line)", "/x/tool", 'exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"\n'],
  ])("%s is not a shim", (_what, realPath, head) => {
    expect(versionManagerOf({ realPath, head })).toBeUndefined();
  });
});

describe("the rbenv family's global version file", () => {
  const pyenv = { name: "pyenv" };
  const rbenv = { name: "rbenv" };

  it("names the first word of each line, comments and blank lines skipped; pyenv joins several with ':'", () => {
    expect(envFamilyGlobalVersion(pyenv, "# the default\n\n3.11.7 trailing words\r\n3.12.1\n")).toEqual({ version: "3.11.7:3.12.1" });
    expect(envFamilyGlobalVersion(rbenv, "3.3.0\n3.2.2\n")).toEqual({ version: "3.3.0" });
  });

  it("means the system program when it names nothing", () => {
    expect(envFamilyGlobalVersion(pyenv, "")).toEqual({ system: true });
    expect(envFamilyGlobalVersion(pyenv, "# only a comment\n  \n")).toEqual({ system: true });
  });

  it.each(["..", "../../tmp/planted", "/tmp/planted", "3.11:evil", "a\\b"])("refuses the file when a word is %s, which would name a path", (word) => {
    expect(envFamilyGlobalVersion(pyenv, `3.11.7\n${word}\n`)).toEqual({ refused: word });
  });
});

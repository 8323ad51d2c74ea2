/**
 * Recognises a version manager's shim or proxy from what the filesystem says
 * about a program: its real path and the first bytes of its content.
 *
 * A shim does not run a fixed program: it asks its manager which version to
 * run, and the manager reads the *working directory* (`.python-version`,
 * `.ruby-version`, `.node-version`, `.tool-versions`, `mise.toml`,
 * `rust-toolchain.toml`, whose `path` names any toolchain directory) and the
 * environment. A child runs in the agent's project, so a file planted there
 * would choose the interpreter or toolchain that runs with the operator's
 * credentials. version-pin.ts pins what can be pinned and refuses the rest.
 *
 * Pure: no fs, no process. The caller reads the sample (version-pin.ts).
 */
import path from "node:path";

/**
 * The rbenv family (pyenv, rbenv, nodenv, goenv, …): bash shims that run
 * `<root>/libexec/<name> exec <program>`; `<NAME>_VERSION` overrides every
 * version file, and `<root>/version` is the operator's global choice.
 */
export interface EnvFamilyManager {
  readonly kind: "env-family";
  /** `pyenv`, `rbenv`, `nodenv`, … */
  readonly name: string;
  /** The manager's root (`PYENV_ROOT`), absolute. */
  readonly root: string;
  /** The manager's own program the shim runs (`<install>/libexec/<name>`), absolute: its install's hooks are sourced too. */
  readonly program: string;
  /** The variable that overrides every version file: `PYENV_VERSION`, … */
  readonly versionVariable: string;
}

/** rustup's proxies (`cargo`, `rustc`, … in `~/.cargo/bin`, each the rustup binary); `RUSTUP_TOOLCHAIN` overrides every toolchain file. */
export interface RustupManager {
  readonly kind: "rustup";
}

/**
 * A manager whose choice Torii does not pin: asdf (`ASDF_<TOOL>_VERSION`, one
 * per tool, a table Torii would have to know), mise (its `mise.toml` also
 * defines environment variables and tasks) and volta (reads `package.json`).
 */
export interface UnpinnableManager {
  readonly kind: "unpinnable";
  readonly name: "asdf" | "mise" | "volta";
}

export type VersionManager = EnvFamilyManager | RustupManager | UnpinnableManager;

/** What the caller read about a program. */
export interface ProgramSample {
  /** The program's real path (links resolved). */
  readonly realPath: string;
  /** Its first bytes, decoded as latin1 (a binary never matches the text markers). */
  readonly head: string;
  /** Whether it is the very file of a `rustup` (a hard link: Windows, and rustup where symbolic links fail, install proxies so). */
  readonly sameFileAsRustup?: boolean;
}

/** How many bytes of a program the markers need: every known shim states its manager within its first lines (rbenv's `ruby` shim, the longest, about 700 bytes). */
export const SHIM_SAMPLE_BYTES = 4096;

// `exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"` (rbenv, nodenv, goenv: the same line).
const ENV_FAMILY_EXEC = /^exec "(\/[^"\n]*\/libexec\/([a-z][a-z0-9]*env))" exec /mu;
// `export PYENV_ROOT="/root/.pyenv"`, written by the manager's rehash.
const ENV_FAMILY_ROOT = /^export ([A-Z][A-Z0-9]*)_ROOT="(\/[^"\n]*)"$/mu;
// asdf's shims: `# asdf-plugin: nodejs 20.1.0` and `exec /home/u/.asdf/bin/asdf exec "node" "$@"`.
const ASDF_SHIM = /^# asdf-plugin: |^exec "?\/[^\n]*\/asdf"? exec /mu;
// mise's file shims (`mise settings shim_mode=file`): `exec mise x -- node "$@"`.
const MISE_SHIM = /^exec "?(?:\/[^\n]*\/)?mise"? (?:x|exec) /mu;

/** The version manager `sample` is a shim or proxy of, or undefined for an ordinary program. */
export function versionManagerOf(sample: ProgramSample): VersionManager | undefined {
  const base = path.basename(sample.realPath.replaceAll("\\", "/")).toLowerCase();
  if (base === "rustup" || base === "rustup.exe" || sample.sameFileAsRustup === true) return { kind: "rustup" };
  if (base === "mise" || base === "mise.exe") return { kind: "unpinnable", name: "mise" };
  if (base === "volta-shim" || base === "volta-shim.exe") return { kind: "unpinnable", name: "volta" };
  if (!sample.head.startsWith("#!")) return undefined;
  const family = ENV_FAMILY_EXEC.exec(sample.head);
  if (family !== null) return envFamily(sample.head, family[1] ?? "", family[2] ?? "");
  if (ASDF_SHIM.test(sample.head)) return { kind: "unpinnable", name: "asdf" };
  if (MISE_SHIM.test(sample.head)) return { kind: "unpinnable", name: "mise" };
  return undefined;
}

function envFamily(head: string, program: string, name: string): EnvFamilyManager {
  const upper = name.toUpperCase();
  const exported = ENV_FAMILY_ROOT.exec(head);
  // The shim exports the root it was written for; without that line the program sits in <root>/libexec.
  const root = exported !== null && exported[1] === upper ? (exported[2] ?? "") : path.posix.dirname(path.posix.dirname(program));
  return { kind: "env-family", name, root, program, versionVariable: `${upper}_VERSION` };
}

/** What an rbenv-family global file (`<root>/version`) names: a version, nothing (the `system` program), or a word the manager refuses. */
export type GlobalVersion = { readonly version: string } | { readonly system: true } | { readonly refused: string };

/**
 * The version an rbenv-family global file names, as the manager reads it: the
 * first word of each line, blank lines and `#` comments skipped; pyenv joins
 * several with `:` (one interpreter per word, searched in order), the others
 * use the first. A word that is `..` or holds a path separator would name a
 * directory outside `<root>/versions`: pyenv skips it with a warning, rbenv
 * fails; Torii refuses the file (fail closed, never a guess).
 */
export function envFamilyGlobalVersion(manager: Pick<EnvFamilyManager, "name">, text: string): GlobalVersion {
  const words: string[] = [];
  for (const line of text.split(/\r?\n|\r/u)) {
    const word = line.trim().split(/\s+/u)[0] ?? "";
    if (word === "" || word.startsWith("#")) continue;
    if (word === ".." || word.includes("/") || word.includes("\\") || word.includes(":") || word.includes("\0")) return { refused: word };
    words.push(word);
  }
  const [first] = words;
  if (first === undefined) return { system: true };
  return { version: manager.name === "pyenv" ? words.join(":") : first };
}

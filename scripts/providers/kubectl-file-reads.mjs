// The kubectl arguments that read a local file or directory at a path the caller
// gives, read from kubectl's own help by scripts/providers/kubectl-options.mjs, which
// writes them as `argv.file_reads` (src/policy/file-reads.ts): such a call is held
// like a file write, so only a rule naming its command path accepts it, and the
// credential-places check reads the value.
//
//   - an option that takes a value and whose description says it names a local
//     file or directory (`-f, --filename`: "Filename, directory, or URL to files",
//     `--from-file`: "Specifying a directory will iterate each named file in the
//     directory", `--from-env-file`: "the path to a file to read lines of key=val
//     pairs", `-k, --kustomize`: "Process the kustomization directory", `create
//     secret tls --cert/--key`: "Path to ...", `--patch-file`, `debug --custom`);
//     `-f` and `-k` are rows wherever they exist, whatever their text (`debug -f`
//     says only "identifying the resource to debug");
//   - an operand the usage names as a local source (`cp <file-spec-src>`,
//     `kustomize DIR`).
//
// Switches are not rows: `-R, --recursive` ("Process the directory used in -f")
// reads only through -f, which is held. A global option so described must be a
// locked option, and each reader known today must still be found, or the generator
// fails, so a reworded help text is reviewed, never dropped silently.

import { pathRowYaml, requireKnown } from "./kubectl-file-writes.mjs";

/** Descriptions that say the option's value names a local file or directory. */
const READS_PATH = /\b(?:filename|file path|path to|a file containing|files that contain|kustomization directory|read lines of|specifying a directory)\b/i;

/** Options that name local files wherever kubectl has them (cli-runtime's resource builder). */
const ALWAYS_READS = new Set(["--filename", "--kustomize"]);

/**
 * Options whose text matches but which read no file in any call Torii lets through:
 * `--template` is the template text unless -o names a *-file format, which the
 * kubectl_context floor refuses (src/config/locked-floor.ts); `kustomize --helm-command`
 * names a program, a locked command option (kubectl-local-programs.mjs).
 */
const NOT_READS = new Set(["--template", "--helm-command"]);

/** A local source operand in a usage line (`<file-spec-src>`, `kustomize DIR`). */
const SOURCE_OPERAND = /<([a-z-]*src)>|\bkubectl kustomize (DIR)\b/;

/** The rows kubectl 1.32 has; the generator fails when one of them is not found. */
const KNOWN = [
  "apply --filename",
  "apply --kustomize",
  "create --filename",
  "replace --filename",
  "diff --filename",
  "delete --filename",
  "create secret generic --from-file",
  "create secret generic --from-env-file",
  "create configmap --from-file",
  "create configmap --from-env-file",
  "create secret tls --cert",
  "create secret tls --key",
  "cp file-spec-src",
  "kustomize dir",
];

/** Value-taking options with their description text, from the flag and tab-indented lines of a help section. */
function valueOptions(lines) {
  const out = [];
  let current;
  for (const line of lines) {
    const flag = /^ {4}(?:-[A-Za-z0-9], )?(--[A-Za-z0-9][A-Za-z0-9_-]*)=(.*):$/.exec(line);
    if (flag) {
      current = { name: flag[1], text: "", switch: flag[2] === "false" || flag[2] === "true" };
      out.push(current);
    } else if (line.startsWith("\t") && current !== undefined) current.text += ` ${line.trim()}`;
  }
  return out.filter((option) => !option.switch);
}

/** The options of `lines` whose value names a local file or directory. */
export function readingOptions(lines) {
  return valueOptions(lines)
    .filter((option) => !NOT_READS.has(option.name) && (ALWAYS_READS.has(option.name) || READS_PATH.test(option.text)))
    .map((option) => option.name);
}

/**
 * `argv.file_reads` rows for every command (`scopes`: `{path, optionLines, usage}`
 * with alias paths included), after checking the global readers are locked.
 */
export function fileReadRows(scopes, globalLines, lockedOptions) {
  for (const name of readingOptions(globalLines)) {
    if (!lockedOptions.includes(name)) throw new Error(`global ${name} reads a local file but is not a locked option (targeting.locked_options)`);
  }
  const rows = [];
  for (const scope of scopes) {
    const source = SOURCE_OPERAND.exec(scope.usage ?? "");
    if (source) rows.push({ command: scope.path, operand: (source[1] ?? source[2]).toLowerCase() });
    for (const option of readingOptions(scope.optionLines)) rows.push({ command: scope.path, option });
  }
  requireKnown(rows, KNOWN, "file read");
  return rows;
}

/** The YAML lines of `argv.file_reads`. */
export function fileReadYaml(rows) {
  const lines = [
    "  # Arguments with which kubectl reads a local file or directory at a path the caller gives",
    "  # (from each command's help: scripts/providers/kubectl-file-reads.mjs); held like file",
    "  # writes: a call with one is accepted only by a rule naming its command path.",
    "  file_reads:",
    ...pathRowYaml(rows),
  ];
  return lines;
}

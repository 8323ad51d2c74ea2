// The kubectl arguments that write a local file at a path the caller picks, read
// from kubectl's own help by scripts/providers/kubectl-options.mjs, which writes them
// as `argv.file_writes` (src/policy/file-writes.ts): such a call is accepted only by
// a rule that names its command path.
//
//   - an option whose description says it writes to a path or directory
//     (`kustomize -o`: "write output to this path", `cluster-info dump
//     --output-directory`: "Where to output the files", `proxy --unix-socket`:
//     the socket file is created at the path);
//   - a command whose usage names a destination operand (`cp <file-spec-src>
//     <file-spec-dest>`: the destination is local unless it names a pod).
//
// Global options that write (`--profile-output`, `--profile`, `--cache-dir`) are
// not rows: they must be locked options (targeting.locked_options, and the
// kubectl_context floor in src/config/locked-floor.ts); the generator fails when one
// is not, and when one of the writers known today is no longer found (help text
// reworded), so a new kubectl cannot drop a row silently.

/** Descriptions that say the option writes a local file or directory. */
const WRITES_TO_PATH =
  /\bwrite (?:the )?output to\b|\bwhere to output the files\b|\bunix socket\b|\bfile to write\b|\bcache directory\b|\bprofile to capture\b/i;

/** A destination operand in a usage line (`<file-spec-dest>`). */
const DEST_OPERAND = /<([a-z-]*dest)>/;

/** The rows kubectl 1.32 has; the generator fails when one of them is not found. */
const KNOWN = ["cp file-spec-dest", "kustomize --output", "cluster-info dump --output-directory", "proxy --unix-socket"];
const KNOWN_GLOBAL = ["--cache-dir", "--profile", "--profile-output"];

/** Option names with their description text, from the flag and tab-indented lines of a help section. */
export function describedOptions(lines) {
  const out = [];
  for (const line of lines) {
    const flag = /^ {4}(?:-[A-Za-z0-9], )?(--[A-Za-z0-9][A-Za-z0-9_-]*)=/.exec(line);
    if (flag) out.push({ name: flag[1], text: "" });
    else if (line.startsWith("\t") && out.length > 0) out[out.length - 1].text += ` ${line.trim()}`;
  }
  return out;
}

/** The options of `lines` whose description says they write a local path. */
export function writingOptions(lines) {
  return describedOptions(lines)
    .filter((option) => WRITES_TO_PATH.test(option.text))
    .map((option) => option.name);
}

/**
 * `argv.file_writes` rows for every command (`scopes`: `{path, optionLines, usage}`
 * with alias paths included), after checking the global writers are locked.
 */
export function fileWriteRows(scopes, globalLines, lockedOptions) {
  const globalWriters = writingOptions(globalLines);
  for (const name of globalWriters) {
    if (!lockedOptions.includes(name)) throw new Error(`global ${name} writes a local file but is not a locked option (targeting.locked_options)`);
  }
  for (const name of KNOWN_GLOBAL) {
    if (!globalWriters.includes(name)) throw new Error(`global ${name} is no longer described as writing a file: review kubectl options`);
  }
  const rows = [];
  for (const scope of scopes) {
    const dest = DEST_OPERAND.exec(scope.usage ?? "");
    if (dest) rows.push({ command: scope.path, operand: dest[1] });
    for (const option of writingOptions(scope.optionLines)) rows.push({ command: scope.path, option });
  }
  requireKnown(rows, KNOWN, "file write");
  return rows;
}

/** Throws unless every `known` row (`command words option|operand`) is among `rows`: a reworded help text is reviewed, never dropped. */
export function requireKnown(rows, known, kind) {
  const found = new Set(rows.map((row) => `${row.command.join(" ")} ${row.operand ?? row.option}`));
  for (const row of known) if (!found.has(row)) throw new Error(`${row} is no longer found as a ${kind}: review its help text`);
}

/** The YAML lines of path rows (`{command, option}` or `{command, operand}`), one flow mapping each. */
export function pathRowYaml(rows) {
  return rows.map((row) => `    - {command: [${row.command.join(", ")}], ${row.operand === undefined ? `option: ${row.option}` : `operand: ${row.operand}`}}`);
}

/** The YAML lines of `argv.file_writes`. */
export function fileWriteYaml(rows) {
  const lines = [
    "  # Arguments with which kubectl writes a local file at a path the caller gives (from each",
    "  # command's help: scripts/providers/kubectl-file-writes.mjs); a call with one is accepted",
    "  # only by a rule naming its command path. Unknown command words run plugins (plugins: true).",
    "  file_writes:",
    ...pathRowYaml(rows),
    "  plugins: true",
  ];
  return lines;
}

// The kubectl options with which an accepted call runs a local program or reads
// local files beyond what it names, read from kubectl's own help by
// scripts/providers/kubectl-options.mjs, which writes them as
// `argv.locked_command_options` (src/policy/grammar/locked-commands.ts): no rule,
// grant or approval may allow them, in any spelling.
//
//   - runs a program: `kustomize --helm-command` ("path to executable"),
//     `--enable-helm` (runs helm for the kustomization's helmCharts),
//     `--enable-alpha-plugins` (exec and container KRM functions);
//   - widens the local files read: `kustomize --load-restrictor` ("load files from
//     outside their root"), `--mount` (host paths "read from the filesystem" into
//     function containers);
//   - serves beyond what the call names: `proxy --www` ("serve static files from the
//     given directory", ~/.aws included), and the listening address and host filter
//     of `proxy` and `port-forward` (`--address`, `--accept-hosts`,
//     `--disable-filter`, and `--reject-paths`, whose default keeps exec and
//     attach off the proxy; `--accept-paths` and `--reject-methods` only narrow), which would offer the cluster API or a pod's ports, with
//     the target's credentials, to the network for the call's life.
//
// The kubectl_context floor in src/config/locked-floor.ts lists the same options
// for installed copies made before this table. The generator fails when a global
// option matches (it must be a locked option) and when one of the options known
// today is no longer found (help text reworded), so a new kubectl cannot drop one
// silently.

import { describedOptions } from "./kubectl-file-writes.mjs";

const RUNS_PROGRAM = /\bpath to executable\b|\benable use of the helm chart inflator\b|\benable kustomize plugins\b/i;
const READS_OUTSIDE = /\bload files from outside\b|\bread from the filesystem\b/i;
const SERVES_BEYOND =
  /\bserve static files from the given directory\b|\bIP address on which to serve\b|\baddresses to listen on\b|\bhosts that the proxy should accept\b|\bdisable request filtering\b|\bpaths that the proxy should reject\b/i;

/** The reasons the denial gives; the floor's rows (listed first) give the same. */
const WHY_PROGRAM = "it makes kustomize run a local program (helm, an exec or container KRM function) the call or its kustomization chooses";
const WHY_READS = "it lets a kustomization read local files outside its own directory";
const WHY_SERVES = "it serves local files, or offers the cluster API or a pod's ports with the target's credentials beyond this machine's loopback";

/** The options kubectl 1.32 has; the generator fails when one of them is not found. */
const KNOWN = [
  "kustomize --enable-helm",
  "kustomize --helm-command",
  "kustomize --enable-alpha-plugins",
  "kustomize --mount",
  "kustomize --load-restrictor",
  "proxy --www",
  "proxy --address",
  "proxy --accept-hosts",
  "proxy --disable-filter",
  "proxy --reject-paths",
  "port-forward --address",
];

function matching(lines, pattern) {
  return describedOptions(lines)
    .filter((option) => pattern.test(option.text))
    .map((option) => option.name);
}

/**
 * `argv.locked_command_options` rows for every command (`scopes`: `{path,
 * optionLines}` with alias paths included), after checking no global option matches
 * unless it is locked.
 */
export function localProgramRows(scopes, globalLines, lockedOptions) {
  for (const name of [...matching(globalLines, RUNS_PROGRAM), ...matching(globalLines, READS_OUTSIDE), ...matching(globalLines, SERVES_BEYOND)]) {
    if (!lockedOptions.includes(name))
      throw new Error(`global ${name} runs a program, widens local reads or serves beyond the call but is not a locked option`);
  }
  const rows = [];
  for (const scope of scopes) {
    const program = matching(scope.optionLines, RUNS_PROGRAM).sort();
    const reads = matching(scope.optionLines, READS_OUTSIDE).sort();
    const serves = matching(scope.optionLines, SERVES_BEYOND).sort();
    if (program.length > 0) rows.push({ command: scope.path, options: program, why: WHY_PROGRAM });
    if (reads.length > 0) rows.push({ command: scope.path, options: reads, why: WHY_READS });
    if (serves.length > 0) rows.push({ command: scope.path, options: serves, why: WHY_SERVES });
  }
  const found = new Set(rows.flatMap((row) => row.options.map((option) => `${row.command.join(" ")} ${option}`)));
  for (const known of KNOWN) if (!found.has(known)) throw new Error(`${known} is no longer found as running a program or widening reads: review its help text`);
  return rows;
}

/** The YAML lines of `argv.locked_command_options`. */
export function localProgramYaml(rows) {
  const lines = [
    "  # Options with which kubectl runs a local program, reads local files outside what the",
    "  # call names, or serves files or the cluster beyond loopback (from each command's help:",
    "  # scripts/providers/kubectl-local-programs.mjs); refused whatever the rules say.",
    "  locked_command_options:",
  ];
  const row = (entry) => `    - {command: [${entry.command.join(", ")}], options: [${entry.options.join(", ")}], why: ${JSON.stringify(entry.why)}}`;
  for (const entry of rows) lines.push(row(entry));
  return lines;
}

// The kubectl options with which an accepted call can mint a credential that the
// locked `create token` row (providers/kubectl/provider.yaml, targeting.locked_commands)
// does not see, read from kubectl's own help by scripts/providers/kubectl-options.mjs,
// which writes them as `argv.locked_command_options` rows (docs/policy.md, "Credential
// issuers"): refused whatever the rules say; an operator lifts one by removing its row.
//
//   - `create --raw URI -f FILE` ("Raw URI to POST to the server") POSTs FILE to any API
//     path: `/api/v1/namespaces/NS/serviceaccounts/SA/token` is the TokenRequest
//     subresource `create token` calls, and the API server reads any JSON object (an
//     empty TokenRequest: the kind comes from the path) as a request for a token.
//     `get --raw` (GET), `replace --raw` (PUT) and `delete --raw` (DELETE) mint nothing:
//     the token subresource only serves create.
//
// The generator fails when the option is no longer found (help text reworded), so a
// new kubectl cannot drop it silently.

import { describedOptions } from "./kubectl-file-writes.mjs";

const RAW_POST = /\bRaw URI to POST\b/i;

/** The reason the denial gives. */
export const WHY_RAW_POST =
  "it prints a credential usable outside Torii, which outlives the target's lease: it POSTs to any API path, and serviceaccounts/NAME/token mints a service account token as the locked create token does";

/** The options kubectl 1.32 has; the generator fails when one of them is not found. */
const KNOWN = ["create --raw"];

/** `argv.locked_command_options` rows for the raw POST options of every command (`scopes`: `{path, optionLines}`). */
export function rawPostRows(scopes) {
  const rows = [];
  for (const scope of scopes) {
    const options = describedOptions(scope.optionLines)
      .filter((option) => RAW_POST.test(option.text))
      .map((option) => option.name)
      .sort();
    if (options.length > 0) rows.push({ command: scope.path, options, why: WHY_RAW_POST });
  }
  const found = new Set(rows.flatMap((row) => row.options.map((option) => `${row.command.join(" ")} ${option}`)));
  for (const known of KNOWN) if (!found.has(known)) throw new Error(`${known} is no longer found as a raw POST: review its help text`);
  return rows;
}

/** The YAML lines of those rows, which follow the `locked_command_options:` key. */
export function rawPostYaml(rows) {
  const lines = ["    # Raw POSTs to any API path (serviceaccounts/NAME/token): scripts/providers/kubectl-credential-issuers.mjs."];
  for (const entry of rows)
    lines.push(`    - {command: [${entry.command.join(", ")}], options: [${entry.options.join(", ")}], why: ${JSON.stringify(entry.why)}}`);
  return lines;
}

/**
 * Options whose value sets other parameters of the operation (the AWS CLI's
 * `--cli-input-json` and `--cli-input-yaml`): a call that carries one may set
 * any option a deny rule names without spelling it, so for deny rules and
 * forbidden arguments it counts as carrying every option of its operation.
 */
import { bodyOption } from "./grammar/body-option.js";

/**
 * Whether an argparse body token is a carrier, also abbreviated: the command's
 * own parser expands unambiguous prefixes (`--cli-input-js`), and Torii cannot
 * tell which prefixes are unambiguous, so any prefix of a carrier counts (fail closed).
 */
function isCarrier(token: string, carriers: readonly string[]): boolean {
  return bodyOption(token, carriers) !== undefined;
}

/** Whether any token of an argparse body (the canonical positionals) is a parameter carrier. */
export function carriesParameters(body: readonly string[], carriers: readonly string[]): boolean {
  if (carriers.length === 0) return false;
  return body.some((token) => isCarrier(token, carriers));
}

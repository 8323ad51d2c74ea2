/**
 * The one reader of a command's own options in an argparse body (az, gcloud,
 * the AWS CLI's operations): Torii does not model those options, so they stay
 * positional, and every check that looks for one (file writes, fetched values,
 * locked command options, forbidden arguments, deny rules, parameter carriers)
 * reads a body token through this function, the way argparse reads it.
 *
 * argparse expands an unambiguous prefix of a long name (`--dest` is
 * `--destination-path`) and takes a value after `=`. A single-dash token is a
 * short option with its value glued (`-dPATH`, `-d=PATH`), or a cluster of the
 * command's switches ending in an option (`-rd PATH`, `-rdPATH` is `-r -d PATH`).
 * Torii knows neither which prefixes are unambiguous nor which shorts are
 * switches, so it fails closed: any prefix counts, and any letter after the
 * dash may be the option.
 */

/** An option a body token names, and its value when glued to the token. */
export interface BodyOptionUse {
  readonly name: string;
  readonly value: string | undefined;
}

/**
 * The option among `options` (long `--name` or short `-n` forms) that a body
 * token names, and its glued value; `undefined` for a word that is no option.
 */
export function bodyOption(token: string, options: readonly string[]): BodyOptionUse | undefined {
  if (!token.startsWith("-") || token === "-") return undefined;
  if (token.startsWith("--")) {
    const equals = token.indexOf("=");
    const written = equals === -1 ? token : token.slice(0, equals);
    const value = equals === -1 ? undefined : token.slice(equals + 1);
    const name = options.find((option) => option.startsWith("--") && written.length > 2 && option.startsWith(written));
    return name === undefined ? undefined : { name, value };
  }
  for (let at = 1; at < token.length; at += 1) {
    const name = `-${token.charAt(at)}`;
    if (!options.includes(name)) continue;
    const rest = token.slice(at + 1);
    return { name, value: rest === "" ? undefined : rest.replace(/^=/u, "") };
  }
  return undefined;
}

/** Whether a body token names `option` in any spelling argparse reads as it (see bodyOption). */
export function namesBodyOption(token: string, option: string): boolean {
  return bodyOption(token, [option]) !== undefined;
}

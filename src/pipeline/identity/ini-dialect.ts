/**
 * The AWS CLI (botocore) reads the config and credentials files with Python's
 * `configparser.RawConfigParser`; the probe reads them with the JS SDK's INI
 * loader. The two disagree on a handful of constructs, and on each of them the
 * probe would resolve another route or other credentials than the CLI. Rather
 * than read every file twice, a file holding one of them is refused (fail
 * closed) with the file, section and line, never the value:
 *
 * - a key that is not lowercase: configparser lower-cases it (`Services` is
 *   `services`), the SDK keeps it (and then ignores it);
 * - `:` as the delimiter (`services: s`): configparser splits on the first `=`
 *   or `:`, the SDK only on `=`;
 * - an inline comment (` #` or ` ;` after text): the SDK cuts it off, while
 *   configparser (no inline comment prefixes) keeps it in the value;
 * - an indented line after a key with a value: a continuation of that value for
 *   configparser, a key of its own for the SDK;
 * - a key with an empty value and no indented block under it: `""` for
 *   botocore (an empty `ca_bundle` turns certificate checks off), no key at all
 *   for the SDK;
 * - a `[DEFAULT]` section, whose keys configparser gives every section;
 * - a line starting with `[` but not ending with `]`: a section header for
 *   configparser (`[profile p] x`), not for the SDK;
 * - a `[profile …]`, `[sso-session …]` or `[services …]` header the SDK's
 *   pattern does not read (two spaces, other characters): botocore's profile
 *   map may still take it;
 * - a lone carriage return, a line break for Python only;
 * - one section written twice (`[profile p]` and `[profile "p"]`, `[default]`
 *   and `[profile default]`): botocore keeps the last one's keys only (or
 *   fails on an exact repeat), the SDK merges them.
 */
import { ProbeRefusal } from "./probe-refusal.js";

/** The SDK's pattern for a prefixed section name (@smithy/shared-ini-file-loader). */
const SDK_PREFIXED = /^([\w-]+)\s(["'])?([\w\-@+.%:/]+)\2$/u;
const PREFIXES = ["profile", "sso-session", "services"];

function printable(section: string): string {
  return /^[\x20-\x7e]{1,100}$/u.test(section) ? `[${section}]` : "a section whose name is not printable";
}

/** A configparser option line: the key up to the first `=` or `:`. */
const OPTION = /^(.*?)\s*([=:])\s*(.*)$/su;

/**
 * Refuses `text` (an AWS config or credentials file, `label` naming which)
 * when botocore and the SDK would read it differently (see above).
 *
 * @throws ProbeRefusal with code IniDialectNotSupported.
 */
export function assertSameIniReading(text: string, label: string): void {
  let section: string | undefined;
  /** Indentation of the last key or header line, and whether that key's value was empty. */
  let indent = 0;
  let lastKey: { readonly empty: boolean; readonly line: number } | undefined;
  let continued = false;
  /** The sections met so far, by the name the SDK files them under. */
  const seen = new Set<string>();
  const refuse = (line: number, reason: string): never => {
    throw new ProbeRefusal(
      "IniDialectNotSupported",
      `the AWS ${label} file, ${section === undefined ? "before any section" : `section ${printable(section)}`}, line ${String(line)}: ${reason}; the AWS CLI and the account check would read it differently`,
    );
  };
  const closeKey = (): void => {
    if (lastKey?.empty === true && !continued) refuse(lastKey.line, "a key with an empty value (write the value, or remove the key)");
  };
  if (/\r(?!\n)/u.test(text)) refuse(1, "a carriage return that does not end a line");
  const lines = text.split(/\r?\n/u);
  lines.forEach((raw, index) => {
    const number = index + 1;
    const stripped = raw.trim();
    if (stripped === "" || stripped.startsWith("#") || stripped.startsWith(";")) return;
    const lineIndent = raw.length - raw.trimStart().length;
    if (/\s[;#]/u.test(stripped)) refuse(number, "an inline comment (put comments on their own line)");
    if (lastKey !== undefined && lineIndent > indent) {
      // configparser: a continuation of the last key's value; the SDK reads a nested block only under an empty value.
      if (!lastKey.empty) refuse(number, "an indented line under a key that has a value");
      continued = true;
      return;
    }
    closeKey();
    indent = lineIndent;
    continued = false;
    lastKey = undefined;
    if (stripped.startsWith("[")) {
      if (!stripped.endsWith("]")) refuse(number, "text after a section header");
      section = stripped.slice(1, -1);
      if (section === "DEFAULT") refuse(number, "a [DEFAULT] section (configparser gives its keys to every section)");
      // botocore takes any section starting with a prefix (then shlex-splits it); the SDK only its exact pattern.
      const prefix = PREFIXES.find((candidate) => section?.startsWith(candidate));
      if (prefix !== undefined && SDK_PREFIXED.exec(section)?.[1] !== prefix) refuse(number, `a section header spelt other than \`[${prefix} name]\``);
      const sdkName = SDK_PREFIXED.exec(section);
      const filed = sdkName === null ? (section === "default" ? "profile.default" : section) : `${sdkName[1] ?? ""}.${sdkName[3] ?? ""}`;
      if (seen.has(filed)) refuse(number, "a section written a second time (botocore keeps one of them, the SDK merges them)");
      seen.add(filed);
      return;
    }
    const option = OPTION.exec(stripped);
    if (option === null) return; // configparser fails the CLI; the SDK skips the line.
    const [, key = "", delimiter, value = ""] = option;
    if (delimiter === ":") refuse(number, "`:` as the delimiter (write `key = value`)");
    if (key !== key.toLowerCase()) refuse(number, "a key that is not lowercase");
    lastKey = { empty: value === "", line: number };
  });
  closeKey();
}

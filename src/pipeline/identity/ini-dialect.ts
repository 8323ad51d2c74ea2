/**
 * The AWS CLI (botocore) reads the config and credentials files with Python's
 * `configparser.RawConfigParser`; the probe reads them with the JS SDK's INI
 * loader. The two disagree on a handful of constructs, and on each of them the
 * probe could resolve another route or other credentials than the CLI. Rather
 * than read every file twice, such a construct is refused (fail closed) with
 * the file, section and line, never the value.
 *
 * File-wide: the constructs that change where a section starts or which
 * section a line belongs to, so that no section's keys can be trusted:
 *
 * - a `[DEFAULT]` section, whose keys configparser gives every section;
 * - a line starting with `[` but not ending with `]`, or holding an inline
 *   comment: a section header for configparser (`[profile p] x`), not for the
 *   SDK, or the other way round (`[a #b]`);
 * - an indented `[…]` line under a key: part of that key's value for
 *   configparser, a section header for the SDK;
 * - a `[profile …]`, `[sso-session …]` or `[services …]` header the SDK's
 *   pattern does not read (two spaces, other characters): botocore's profile
 *   map may still take it;
 * - a lone carriage return, a line break for Python only;
 * - one section written twice (`[profile p]` and `[profile "p"]`, `[default]`
 *   and `[profile default]`): botocore keeps the last one's keys only (or
 *   fails on an exact repeat), the SDK merges them; or two sections the SDK
 *   files under one name (`[profile sso-session.s]` and `[sso-session s]` in
 *   the config file): botocore keeps a profile and a session apart, the SDK
 *   the later one's keys only.
 *
 * Section-scoped: a `[profile x]` (or `[sso-session s]`, `[services s]`)
 * header in the credentials file, which the SDK files as profile `profile.x`
 * and botocore as profile `profile x`: a profile `profile.x` would take its
 * keys for the SDK only. And the constructs that change one key only. They are refused
 * in the sections the probe resolves (the target profile, its source_profile
 * chain, their sso-session and services sections: `isResolved`) and let
 * through elsewhere, where neither reader's answer is used. With the headers
 * read alike (above), those sections hold the same lines for both readers, so
 * they hold the same keys, and the chain the SDK's reading names is botocore's:
 *
 * - a key that is not lowercase: configparser lower-cases it (`Services` is
 *   `services`), the SDK keeps it (and then ignores it);
 * - `:` as the delimiter (`services: s`): configparser splits on the first `=`
 *   or `:`, the SDK only on `=`;
 * - an inline comment (` #` or ` ;` after text): the SDK cuts it off, while
 *   configparser (no inline comment prefixes) keeps it in the value;
 * - an indented line after a key with a value: a continuation of that value for
 *   configparser, a key of its own for the SDK;
 * - an empty value with no indented block under it, for a key botocore's
 *   credential, endpoint or region resolution reads (READ_KEYS, and every key
 *   of a services section): `""` for
 *   botocore (an empty `ca_bundle` turns certificate checks off), no key at all
 *   for the SDK. Other keys (`output =`, `cli_pager =`) are read by neither
 *   resolution, and `aws_session_token =` (what `aws configure set
 *   aws_session_token ""` writes) signs alike: botocore's signer skips an empty
 *   token, the SDK has none.
 */
import { ProbeRefusal } from "./probe-refusal.js";
import type { IniSection } from "./sts-endpoint.js";

/** The SDK's pattern for a prefixed section name (@smithy/shared-ini-file-loader). */
const SDK_PREFIXED = /^([\w-]+)\s(["'])?([\w\-@+.%:/]+)\2$/u;
const PREFIXES = ["profile", "sso-session", "services"];

/** A header's text as the SDK's prefixed pattern reads it: `profile "p"` is prefix `profile`, name `p`. */
export interface SdkSection {
  readonly prefix: string;
  readonly name: string;
}

/** How the SDK reads the text between a header's brackets as a prefixed section; undefined when its pattern does not match. */
function sdkSection(section: string): SdkSection | undefined {
  const match = SDK_PREFIXED.exec(section);
  return match === null ? undefined : { prefix: match[1] ?? "", name: match[3] ?? "" };
}

/**
 * The keys botocore's credential, region and endpoint resolution reads (and
 * the prefixes of families of them), where `""` and absent may differ.
 * `aws_security_token` is here: botocore takes it before `aws_session_token`,
 * so an empty one hides the session token from the CLI, not from the SDK.
 */
const READ_KEYS = new Set([
  "ca_bundle",
  "endpoint_url",
  "ignore_configured_endpoint_urls",
  "region",
  "sts_regional_endpoints",
  "use_fips_endpoint",
  "use_dualstack_endpoint",
  "services",
  "role_arn",
  "source_profile",
  "credential_source",
  "credential_process",
  "web_identity_token_file",
  "aws_access_key_id",
  "aws_secret_access_key",
  "aws_security_token",
  "login_session",
  "mfa_serial",
  "duration_seconds",
  "external_id",
  "role_session_name",
]);
const READ_PREFIXES = ["sso_", "ec2_metadata_", "metadata_service_"];

/** Whether botocore's resolution reads `key` in a profile section, where an empty value and none may differ. */
export function isReadKey(key: string): boolean {
  return READ_KEYS.has(key) || READ_PREFIXES.some((prefix) => key.startsWith(prefix));
}

function printable(section: string): string {
  return /^[\x20-\x7e]{1,100}$/u.test(section) ? `[${section}]` : "a section whose name is not printable";
}

/** A configparser option line: the key up to the first `=` or `:`. */
const OPTION = /^(.*?)\s*([=:])\s*(.*)$/su;

/** The names of the sections the probe resolves for one profile (see sectionsReadFor). */
export interface ReadSections {
  readonly profiles: ReadonlySet<string>;
  readonly ssoSessions: ReadonlySet<string>;
  readonly services: ReadonlySet<string>;
}

/**
 * The sections the probe (and the CLI) resolve for a profile: `linked`, the
 * profile and every profile its `source_profile` links reach (credential-chain.ts
 * walks them), and the sso-session and services sections any of them names.
 * More than the credential walk stops at, never less: a section wrongly counted
 * in is only checked more strictly.
 */
export function sectionsReadFor(sectionOf: (profile: string) => IniSection, linked: readonly string[]): ReadSections {
  const profiles = new Set(linked);
  const ssoSessions = new Set<string>();
  const services = new Set<string>();
  for (const name of linked) {
    const data = sectionOf(name);
    if (data.sso_session !== undefined) ssoSessions.add(data.sso_session);
    if (data.services !== undefined) services.add(data.services);
  }
  return { profiles, ssoSessions, services };
}

/**
 * Whether the section headed `[section]` in the `label` file is one of `read`:
 * in the config file as the SDK files it (`[profile p]`, `[default]`,
 * `[sso-session s]`, `[services s]`), in the credentials file by its plain name.
 * `sdk` is `sdkSection(section)`, read once per header by the caller.
 */
export function isReadSection(read: ReadSections, label: string, section: string, sdk: SdkSection | undefined): boolean {
  if (label !== "config") return read.profiles.has(section) || (sdk !== undefined && read.profiles.has(`${sdk.prefix}.${sdk.name}`));
  if (section === "default") return read.profiles.has("default");
  if (sdk?.prefix === "profile") return read.profiles.has(sdk.name);
  if (sdk?.prefix === "sso-session") return read.ssoSessions.has(sdk.name);
  if (sdk?.prefix === "services") return read.services.has(sdk.name);
  return false;
}

/** Whether the SDK files the section under one of its prefixes (`profile`, `sso-session`, `services`). */
function hasKnownPrefix(sdk: SdkSection | undefined): sdk is SdkSection {
  return sdk !== undefined && PREFIXES.includes(sdk.prefix);
}

/**
 * The name the SDK files `[section]` of the `label` file under, where two sections must not meet. The config
 * file's profiles lose their prefix (`[profile sso-session.s]` is `sso-session.s`, as is `[sso-session s]`: the
 * SDK keeps the later one's keys, botocore a profile and a session apart); a section the SDK does not file by a
 * prefix keeps its own text, apart from the prefixed names.
 */
function sdkFiledName(section: string, sdk: SdkSection | undefined, label: string): string {
  if (!hasKnownPrefix(sdk)) return section === "default" ? "default" : `[${section}]`;
  return label === "config" && sdk.prefix === "profile" ? sdk.name : `${sdk.prefix}.${sdk.name}`;
}

/**
 * Refuses `text` (an AWS config or credentials file, `label` naming which)
 * when botocore and the SDK would read it differently (see above); the
 * section-scoped rules apply to the sections `isResolved` takes (by the text
 * between the brackets, and that text as the SDK reads it), every section when
 * not given.
 *
 * @throws ProbeRefusal with code IniDialectNotSupported.
 */
export function assertSameIniReading(text: string, label: string, isResolved: (section: string, sdk: SdkSection | undefined) => boolean = () => true): void {
  let section: string | undefined;
  /** Whether the current section is one the probe resolves; keys before any section fail the CLI (no header). */
  let resolved = false;
  /** Indentation of the last key or header line, and whether that key's value was empty. */
  let indent = 0;
  let lastKey: { readonly key: string; readonly empty: boolean; readonly line: number } | undefined;
  let continued = false;
  /** The sections met so far, by the name the SDK files them under. */
  const seen = new Set<string>();
  const refuse = (line: number, reason: string): never => {
    throw new ProbeRefusal(
      "IniDialectNotSupported",
      `the AWS ${label} file, ${section === undefined ? "before any section" : `section ${printable(section)}`}, line ${String(line)}: ${reason}; the AWS CLI and the account check would read it differently`,
    );
  };
  /** A section-scoped rule: refused only in a resolved section. */
  const refuseInResolved = (line: number, reason: string): void => {
    if (resolved) refuse(line, reason);
  };
  const closeKey = (): void => {
    // In a services section every key names a service whose settings botocore reads (an empty one is `""`).
    if (lastKey?.empty === true && !continued && (isReadKey(lastKey.key) || section?.startsWith("services") === true)) {
      refuseInResolved(lastKey.line, "a key with an empty value (write the value, or remove the key)");
    }
  };
  if (/\r(?!\n)/u.test(text)) refuse(1, "a carriage return that does not end a line");
  const lines = text.split(/\r?\n/u);
  lines.forEach((raw, index) => {
    const number = index + 1;
    const stripped = raw.trim();
    if (stripped === "" || stripped.startsWith("#") || stripped.startsWith(";")) return;
    const lineIndent = raw.length - raw.trimStart().length;
    const header = stripped.startsWith("[");
    const inlineComment = /\s[;#]/u.test(stripped);
    if (lastKey !== undefined && lineIndent > indent) {
      // configparser: a continuation of the last key's value; the SDK reads a nested block only under an empty value.
      if (header && stripped.endsWith("]")) refuse(number, "an indented section header under a key");
      if (inlineComment) refuseInResolved(number, "an inline comment (put comments on their own line)");
      if (!lastKey.empty) refuseInResolved(number, "an indented line under a key that has a value");
      continued = true;
      return;
    }
    closeKey();
    indent = lineIndent;
    continued = false;
    lastKey = undefined;
    if (header) {
      if (inlineComment) refuse(number, "an inline comment (put comments on their own line)");
      if (!stripped.endsWith("]")) refuse(number, "text after a section header");
      section = stripped.slice(1, -1);
      const sdk = sdkSection(section);
      resolved = isResolved(section, sdk);
      if (section === "DEFAULT") refuse(number, "a [DEFAULT] section (configparser gives its keys to every section)");
      // botocore takes any section starting with a prefix (then shlex-splits it); the SDK only its exact pattern.
      const prefix = PREFIXES.find((candidate) => section?.startsWith(candidate));
      if (prefix !== undefined && sdk?.prefix !== prefix) refuse(number, `a section header spelt other than \`[${prefix} name]\``);
      // The SDK files the credentials file's `[profile x]` as profile `profile.x`, botocore as profile `profile x`.
      if (label !== "config" && hasKnownPrefix(sdk)) {
        refuseInResolved(
          number,
          "a prefixed section header in the credentials file (botocore and the SDK file it under different profile names): write `[name]`",
        );
      }
      const filed = sdkFiledName(section, sdk, label);
      if (seen.has(filed))
        refuse(
          number,
          "a section written a second time, or filed by the SDK under another section's name (botocore keeps one of them or both apart, the SDK merges them or keeps one)",
        );
      seen.add(filed);
      return;
    }
    if (inlineComment) refuseInResolved(number, "an inline comment (put comments on their own line)");
    const option = OPTION.exec(stripped);
    if (option === null) return; // configparser fails the CLI; the SDK skips the line.
    const [, key = "", delimiter, value = ""] = option;
    if (delimiter === ":") refuseInResolved(number, "`:` as the delimiter (write `key = value`)");
    if (key !== key.toLowerCase()) refuseInResolved(number, "a key that is not lowercase");
    lastKey = { key, empty: value === "", line: number };
  });
  closeKey();
}

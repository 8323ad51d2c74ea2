/**
 * Values that name a path into the operator's credential stores, refused in
 * every argument of every provider whatever the rules.
 *
 * Many CLI arguments read a local path with no marker (file-reads.ts lists the
 * known ones; az reads any compound argument from a path that exists). An
 * operator may accept such a command knowingly, yet no rule, grant or approval
 * should let an agent point the CLI at the credentials Torii keeps from it (to
 * read and upload or echo them, or to overwrite them): the AWS shared files, the
 * az token cache, gcloud's credential databases, kubeconfigs, Torii's own
 * configuration and any `.env` file. No shell runs, so a
 * path is written as the CLI will open it: absolute, `~/…` (az and gcloud expand
 * `~`), or relative to the child's working directory (`../.aws/credentials`).
 * Every such spelling holds a directory or file name below, compared without
 * case (macOS and Windows file systems ignore it) on either separator, also
 * inside `key=value` shorthand and after a URL-ish prefix (`file:///root/.aws`).
 * The segments are read twice: as written, and with `.` and `..` resolved
 * (`~/.config/./torii`, `~/.config/x/../gcloud`) and the trailing dots and
 * spaces Windows drops removed (`.aws.`). A token that is the home directory
 * itself (`~`, `~/`) or a `.config` directory holds every store below it.
 */

/** Directory names, and name pairs (`.config/gcloud`), that hold credentials. */
const STORE_DIRECTORIES: readonly (readonly string[])[] = [[".aws"], [".azure"], [".kube"], [".config", "gcloud"], [".config", "torii"]];

/** File names that hold credentials wherever they are (the working directory may be inside a store). */
const STORE_FILES: ReadonlySet<string> = new Set([
  "msal_token_cache.json",
  "msal_token_cache.bin",
  "accesstokens.json",
  "azureprofile.json",
  "credentials.db",
  "access_tokens.db",
  "application_default_credentials.json",
  "legacy_credentials",
  "kubeconfig",
]);

/** Characters that end a path segment in a token: the separators, and what shorthand and URLs put around a path. */
const SEGMENT_BREAK = /[/\\=,:;@"'\s{}[\]]+/u;

/** Whether a lower-cased segment is a `.env` file (`.env`, `.env.local`, `prod.env`). */
function isDotEnv(segment: string): boolean {
  return segment === ".env" || segment.startsWith(".env.") || segment.endsWith(".env");
}

/**
 * The credential store a token names, as a fixed label (never the token: it may
 * be a secret), or `undefined`.
 */
export function credentialStoreIn(token: string): string | undefined {
  const written = token.toLowerCase().split(SEGMENT_BREAK);
  const resolved = resolveDotSegments(written);
  if (resolved.at(-1) === "~") return "the home directory";
  if (resolved.at(-1) === ".config") return ".config";
  return storeIn(written) ?? storeIn(resolved);
}

/** The segments with empty and `.` ones dropped, `..` removing the one before, and Windows' dropped trailing dots and spaces gone. */
function resolveDotSegments(segments: readonly string[]): string[] {
  const resolved: string[] = [];
  for (const raw of segments) {
    const segment = /^\.+$/u.test(raw) ? raw : raw.replace(/[. ]+$/u, "");
    if (segment === "" || segment === ".") continue;
    if (segment === "..") resolved.pop();
    else resolved.push(segment);
  }
  return resolved;
}

function storeIn(segments: readonly string[]): string | undefined {
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i] ?? "";
    for (const names of STORE_DIRECTORIES) {
      if (names.every((name, offset) => segments[i + offset] === name)) return names.join("/");
    }
    if (STORE_FILES.has(segment)) return segment;
    if (isDotEnv(segment)) return ".env";
  }
  return undefined;
}

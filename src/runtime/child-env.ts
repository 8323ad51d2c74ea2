/**
 * The environment of a child process (the real call, and the auth lifecycle's
 * validate and identity commands) is built, never inherited:
 *
 * 1. the server's own variables, but only those on a short allowlist
 *    (SERVER_ENV_ALLOWLIST, plus every `LC_*`; on Windows also the system
 *    essentials in WINDOWS_SERVER_ENV_ALLOWLIST), minus `removed_env` (an entry `NAME_*` removes every variable starting with
 *    `NAME_`; the entry `AWS_ENDPOINT_URL` also removes `AWS_ENDPOINT_URL_*`, as in Torii):
 *    `removed_env` filters only what the server inherited from its parent (the agent's client);
 * 2. then the operator's `.env` layers in increasing precedence (identity
 *    provider, provider, target): a later layer wins. What the operator wrote in
 *    Torii's own files is the operator's choice and is never removed
 *    (docs/environment.md);
 * 3. then the provider's `runtime.fixed_env`, values its CLI must run with
 *    whatever a `.env` says: the bundled Python CLIs' `PYTHONSAFEPATH=1` (a
 *    Python started with `-m` or `-c`, as az runs `python -m pip`, would
 *    otherwise put the working directory, the agent's project, first on its
 *    module search path), az's `AZURE_EXTENSION_USE_DYNAMIC_INSTALL=no`; a
 *    name ending in `{USER}` ends instead in the child's user name
 *    (childUserName), so az's per-user `AZURE_LOCAL_CONTEXT_<USER>` can be fixed;
 * 4. plus the pinned values the broker owns (`AWS_PROFILE`, …), which win over everything;
 * 5. with PATH reduced to the directories executable lookup searches (absolute
 *    entries only, never the working directory or Torii's own: search-path.ts),
 *    whichever layer set it, and on Windows PATHEXT to its well-formed `.ext`
 *    entries and `NoDefaultCurrentDirectoryInExePath` set, so a bare name is
 *    never looked up in the working directory first.
 *
 * Loader, proxy, TLS-trust and cloud-identity variables (SERVER_ENV_DENYLIST)
 * can never come from the server's environment: they are not on the allowlist,
 * and a module-load check throws if anyone ever adds one. They do reach the
 * child when the operator's `.env` (or a pinned value) sets them: the operator
 * owns those files.
 *
 * On Windows variable names are case-insensitive: layers merge so that the later
 * layer wins whatever the spelling, and the result holds one spelling per name
 * (the one of the layer that set it last).
 *
 * The result is a null-prototype object: Node's spawn copies inherited
 * properties too ("prototype values are intentionally included"), so a polluted
 * Object.prototype must not reach a child, and a `.env` key `__proto__` stays an
 * ordinary variable.
 */

import { childPathValue, parsePathExt, type SearchPathContext } from "./search-path.js";

/**
 * Server variables a child may inherit on every platform. Deliberately absent:
 * `TERM` (children run on pipes, not a terminal, so terminal capabilities would
 * only invite escape sequences into the agent's output), `SHELL`, `EDITOR`,
 * `XDG_*` (they relocate CLI configuration).
 */
export const SERVER_ENV_ALLOWLIST: readonly string[] = Object.freeze(["PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "TZ", "TMPDIR"]);

/** Prefixes of server variables a child may inherit (the locale categories `LC_CTYPE`, `LC_TIME`, …). */
export const SERVER_ENV_ALLOWLIST_PREFIXES: readonly string[] = Object.freeze(["LC_"]);

/** The Windows essentials a child inherits in addition on `win32` (names compared case-insensitively). */
export const WINDOWS_SERVER_ENV_ALLOWLIST: readonly string[] = Object.freeze([
  "SystemRoot",
  "SYSTEMDRIVE",
  "COMSPEC",
  "PATHEXT",
  "WINDIR",
  "TEMP",
  "TMP",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "USERNAME",
  "PROGRAMFILES",
  "ProgramData",
  "NUMBER_OF_PROCESSORS",
  "PROCESSOR_ARCHITECTURE",
]);

/**
 * Variables that must never pass from the server's environment to a child,
 * compared case-insensitively; an entry ending in `*` is a prefix. They load
 * code into the child (`NODE_OPTIONS`, `LD_PRELOAD`, `PYTHONSTARTUP`, `BASH_ENV`),
 * redirect its traffic or trust (`HTTPS_PROXY`, `SSL_CERT_FILE`,
 * `NODE_EXTRA_CA_CERTS`), or switch the identity, endpoint or configuration a
 * CLI uses (`AWS_*`, `KUBECONFIG`, `AZURE_*`, `CLOUDSDK_*`, `GH_*`, `XDG_*`).
 * The allowlist is the control; this list documents what it keeps out and is
 * checked against it when this module loads.
 */
export const SERVER_ENV_DENYLIST: readonly string[] = Object.freeze([
  // Code loaders and interpreter start-up hooks.
  "NODE_*",
  "LD_*",
  "DYLD_*",
  "PYTHON*",
  "PERL5*",
  "PERLLIB",
  "RUBYOPT",
  "RUBYLIB",
  "BASH_ENV",
  "ENV",
  "ZDOTDIR",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "GCONV_PATH",
  // Proxies and TLS trust.
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "FTP_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "SSLKEYLOGFILE",
  "OPENSSL_*",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  // Cloud and cluster identity, endpoints and configuration.
  "KUBE*",
  "AWS_*",
  "AZURE_*",
  "ARM_*",
  "CLOUDSDK_*",
  "GOOGLE_*",
  "GCE_*",
  "GH_*",
  "GITHUB_*",
  "GIT_*",
  "DOCKER_*",
  "XDG_*",
  // Version managers: they choose which interpreter or toolchain a shim runs (config/version-pin.ts pins them).
  "PYENV_*",
  "RBENV_*",
  "NODENV_*",
  "GOENV_*",
  "PLENV_*",
  "JENV_*",
  "ASDF_*",
  "MISE_*",
  "RUSTUP_*",
  "VOLTA_*",
]);

/**
 * `removed_env` entries that also remove a family of variables, as in Torii:
 * the per-service endpoint overrides `AWS_ENDPOINT_URL_<SERVICE>` would
 * otherwise survive the removal of `AWS_ENDPOINT_URL`.
 */
export const REMOVED_ENV_FAMILIES: ReadonlyMap<string, string> = new Map([["AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_"]]);

/** A `removed_env` entry: a variable name, or `NAME_*` for every variable starting with `NAME_`. */
export const REMOVED_ENV_ENTRY = /^[A-Za-z_][A-Za-z0-9_]*(?:_\*)?$/;

export interface ChildEnvInput extends SearchPathContext {
  /** The server's own environment (`process.env`); only allowlisted variables are read. */
  readonly serverEnv: Readonly<Record<string, string | undefined>>;
  /** `.env` layers in increasing precedence (identity provider, provider, target). */
  readonly layers?: readonly ReadonlyMap<string, string>[];
  /** The provider's `.env`; applied after `layers`. */
  readonly providerEnv?: ReadonlyMap<string, string>;
  /** The target's `.env`; applied after `providerEnv`. */
  readonly targetEnv?: ReadonlyMap<string, string>;
  /** The provider's `runtime.fixed_env`; applied after every `.env` layer, before `pinned`. */
  readonly fixedEnv?: Readonly<Record<string, string>>;
  /** The account's name, for a `{USER}` name when the environment names no user (os.userInfo); asked only then. */
  readonly accountName?: () => string | undefined;
  /** The provider's `auth.removed_env`: names, or `NAME_*` prefixes, removed from the server's variables only. */
  readonly removedEnv: readonly string[];
  /** Values the broker owns; applied last, never removed. */
  readonly pinned?: Readonly<Record<string, string>>;
  /**
   * The reduction of a PATH value to what the child receives: `childPathValue` unless the caller
   * answers it the same way from a memory of its own (pipeline/remembered-search-path.ts).
   */
  readonly childPath?: (pathEnv: string | undefined, context: SearchPathContext) => string;
}

/**
 * Builds a child's environment from the allowlisted server variables minus
 * `removed_env`, the `.env` layers, the provider's fixed
 * values and the pinned values (see the module comment).
 *
 * @throws TypeError for a `removed_env` entry that is neither a name nor `NAME_*`,
 *   or a layer or pinned name that no environment can hold (empty, `=`, NUL),
 *   or a value containing NUL. Messages name the variable, never its value.
 */
export function buildChildEnv(input: ChildEnvInput): Record<string, string> {
  const fold = input.platform === "win32" ? (name: string) => name.toUpperCase() : (name: string) => name;
  const removal = removalMatcher(input.removedEnv, fold);
  // folded name → [spelling, value]; re-inserted on every write so the spelling is the last layer's.
  const merged = new Map<string, readonly [string, string]>();
  const set = (name: string, value: string): void => {
    const key = fold(name);
    merged.delete(key);
    merged.set(key, [name, value]);
  };

  // removed_env filters only what the server inherited; the operator's own files are applied after it.
  for (const [name, value] of inheritableServerVariables(input.serverEnv, input.platform)) {
    if (!removal(fold(name))) set(name, value);
  }
  const layers = [...(input.layers ?? []), input.providerEnv, input.targetEnv];
  for (const layer of layers) {
    for (const [name, value] of layer ?? []) set(checkedName(name), checkedValue(name, value));
  }
  const fixed = Object.entries(input.fixedEnv ?? {});
  for (const values of [fixed.filter(([name]) => !name.endsWith(USER_NAME_PLACEHOLDER)), Object.entries(input.pinned ?? {})]) {
    for (const [name, value] of values) set(checkedName(name), checkedValue(name, value));
  }
  setPerUserVariables(
    fixed.filter(([name]) => name.endsWith(USER_NAME_PLACEHOLDER)),
    merged,
    input,
    fold,
  );
  restrictSearchVariables(merged, input, fold);

  const env = Object.create(null) as Record<string, string>;
  for (const [name, value] of merged.values()) env[name] = value;
  return env;
}

/** A `fixed_env` name ending in this ends in the child's user name instead (setPerUserVariables). */
export const USER_NAME_PLACEHOLDER = "{USER}";

/**
 * The variables Python's `getpass.getuser()` reads, in its order: the first
 * one set and non-empty names the user; without one it asks the password
 * database (the account's name).
 */
const PYTHON_USER_VARIABLES: readonly string[] = Object.freeze(["LOGNAME", "USER", "LNAME", "USERNAME"]);

/**
 * The user name the child's Python sees: the first non-empty of LOGNAME, USER,
 * LNAME, USERNAME in the child's environment, else the account's name.
 * azure-cli names the per-user switch of its working-directory "local
 * context" after it (`[local_context] <user>`, read from
 * `AZURE_LOCAL_CONTEXT_<USER>` first), so Torii must name the same user.
 */
export function childUserName(lookup: (name: string) => string | undefined, accountName: (() => string | undefined) | undefined): string | undefined {
  for (const name of PYTHON_USER_VARIABLES) {
    const value = lookup(name);
    if (value !== undefined && value !== "") return value;
  }
  return accountName?.();
}

/**
 * Sets each `fixed_env` entry whose name ends in `{USER}` under that name with
 * the child's user name, upper-cased as knack spells a configuration option's
 * variable (`AZURE_<SECTION>_<OPTION>`, option `.upper()`). A pinned value of
 * the same name still wins. Without a user name there is nothing to name: the
 * child's Python finds none either, and azure-cli then keeps local context off.
 */
function setPerUserVariables(
  entries: readonly (readonly [string, string])[],
  merged: Map<string, readonly [string, string]>,
  input: ChildEnvInput,
  fold: (name: string) => string,
): void {
  if (entries.length === 0) return;
  const user = childUserName((name) => merged.get(fold(name))?.[1], input.accountName);
  if (user === undefined || user === "") return;
  const pinned = new Set(Object.keys(input.pinned ?? {}).map(fold));
  for (const [template, value] of entries) {
    const name = checkedName(template.slice(0, -USER_NAME_PLACEHOLDER.length) + user.toUpperCase());
    if (pinned.has(fold(name))) continue;
    merged.delete(fold(name));
    merged.set(fold(name), [name, checkedValue(name, value)]);
  }
}

/** The inheritable variables of a frozen server environment (the server's copy: mcp/call-path.ts), by platform: computed once. */
const inheritableOfFrozen = new WeakMap<object, Map<NodeJS.Platform, readonly (readonly [string, string])[]>>();

/** The server variables that may pass to a child, in their order; a frozen environment's are computed once. */
function inheritableServerVariables(
  serverEnv: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): readonly (readonly [string, string])[] {
  const kept = inheritableOfFrozen.get(serverEnv)?.get(platform);
  if (kept !== undefined) return kept;
  const inheritable = Object.entries(serverEnv).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && isInheritableServerVariable(entry[0], platform),
  );
  if (Object.isFrozen(serverEnv)) {
    const byPlatform = inheritableOfFrozen.get(serverEnv) ?? new Map<NodeJS.Platform, readonly (readonly [string, string])[]>();
    byPlatform.set(platform, inheritable);
    inheritableOfFrozen.set(serverEnv, byPlatform);
  }
  return inheritable;
}

/**
 * True when a server variable may pass to a child on `platform`: it is on the
 * allowlist (case-insensitively on Windows) and, belt and braces, not denylisted.
 */
export function isInheritableServerVariable(name: string, platform: NodeJS.Platform): boolean {
  const windows = platform === "win32";
  const same = windows ? (a: string, b: string) => a.toUpperCase() === b.toUpperCase() : (a: string, b: string) => a === b;
  const allowed =
    SERVER_ENV_ALLOWLIST.some((entry) => same(entry, name)) ||
    (windows && WINDOWS_SERVER_ENV_ALLOWLIST.some((entry) => same(entry, name))) ||
    SERVER_ENV_ALLOWLIST_PREFIXES.some((prefix) => (windows ? name.toUpperCase() : name).startsWith(prefix));
  return allowed && !isDenylisted(name);
}

/** True when `name` matches SERVER_ENV_DENYLIST (case-insensitively). */
export function isDenylisted(name: string): boolean {
  const upper = name.toUpperCase();
  return SERVER_ENV_DENYLIST.some((entry) => (entry.endsWith("*") ? upper.startsWith(entry.slice(0, -1)) : upper === entry));
}

/**
 * Throws when an allowlist entry or prefix could admit a denylisted variable.
 * Runs when this module loads, so a bad edit to either list fails every test
 * and every start, not one call in production.
 *
 * @throws Error naming the offending entries.
 */
export function assertAllowlistExcludesDenylist(names: readonly string[], prefixes: readonly string[], denylist: readonly string[]): void {
  const upperPrefixes = prefixes.map((prefix) => prefix.toUpperCase());
  const offending = denylist.filter((entry) => {
    const denied = entry.endsWith("*") ? entry.slice(0, -1) : entry;
    const deniedIsPrefix = entry.endsWith("*");
    const byName = names.some((name) => {
      const upper = name.toUpperCase();
      return deniedIsPrefix ? upper.startsWith(denied) : upper === denied;
    });
    const byPrefix = upperPrefixes.some((prefix) => (deniedIsPrefix ? prefix.startsWith(denied) || denied.startsWith(prefix) : denied.startsWith(prefix)));
    return byName || byPrefix;
  });
  if (offending.length > 0) {
    throw new Error(`child-env: the server allowlist admits denylisted variables: ${offending.join(", ")}`);
  }
}

assertAllowlistExcludesDenylist([...SERVER_ENV_ALLOWLIST, ...WINDOWS_SERVER_ENV_ALLOWLIST], SERVER_ENV_ALLOWLIST_PREFIXES, SERVER_ENV_DENYLIST);

/**
 * Rewrites PATH (and on Windows PATHEXT) in place, keeping the spelling. A
 * POSIX child always gets a PATH (an absent one makes bash search the working
 * directory); a Windows child gets one only when a layer set it.
 */
function restrictSearchVariables(merged: Map<string, readonly [string, string]>, context: ChildEnvInput, fold: (name: string) => string): void {
  const windows = context.platform === "win32";
  const pathEntry = merged.get(fold("PATH"));
  if (pathEntry !== undefined || !windows) {
    const reduce = context.childPath ?? childPathValue;
    merged.set(fold("PATH"), [pathEntry?.[0] ?? "PATH", reduce(pathEntry?.[1], context)]);
  }
  const pathExt = merged.get(fold("PATHEXT"));
  if (windows && pathExt !== undefined) merged.set(fold("PATHEXT"), [pathExt[0], parsePathExt(pathExt[1]).join(";")]);
  // Windows looks a bare program name up in the current directory (the agent's project) before PATH: cmd.exe
  // running a batch wrapper's lines, CreateProcess with no path, Python's shutil.which. The variable's presence
  // (NeedCurrentDirectoryForExePath) turns that off, so it is always set, whatever a layer said.
  if (windows) merged.set(fold(NO_CURRENT_DIRECTORY_LOOKUP), [NO_CURRENT_DIRECTORY_LOOKUP, "1"]);
}

/** On Windows, present in every child's environment: bare program names are not looked up in the working directory. */
export const NO_CURRENT_DIRECTORY_LOOKUP = "NoDefaultCurrentDirectoryInExePath";

/** A predicate over folded names for the `removed_env` entries. */
function removalMatcher(entries: readonly string[], fold: (name: string) => string): (folded: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const entry of entries) {
    if (!REMOVED_ENV_ENTRY.test(entry)) {
      throw new TypeError(`removed_env entry ${JSON.stringify(entry)} is neither a variable name nor NAME_*`);
    }
    if (entry.endsWith("_*")) {
      prefixes.push(fold(entry.slice(0, -1)));
      continue;
    }
    exact.add(fold(entry));
    const family = REMOVED_ENV_FAMILIES.get(fold(entry));
    if (family !== undefined) prefixes.push(fold(family));
  }
  return (folded) => exact.has(folded) || prefixes.some((prefix) => folded.startsWith(prefix));
}

function checkedName(name: string): string {
  if (name === "" || name.includes("=") || name.includes("\0")) {
    throw new TypeError(`child-env: ${JSON.stringify(name)} cannot be an environment variable name`);
  }
  return name;
}

function checkedValue(name: string, value: string): string {
  if (value.includes("\0")) throw new TypeError(`child-env: the value of ${name} contains a NUL character`);
  return value;
}

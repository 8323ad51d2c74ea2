/**
 * Arguments that reach a credential store by where they point, not by what
 * they are called: the store itself or a file inside it, and every directory
 * above one (`aws s3 sync /root s3://x`, `s3 sync ..` from a project in the
 * home directory, `/`). credential-paths.ts refuses the store names in any
 * token; this check resolves each path-like part of a token as the CLI would
 * (`~`, known variables, `.`/`..` against the child's working directory, case
 * folding, trailing dots, 8.3 short names, globs) and refuses it when it is
 * inside a store or an ancestor of one, whatever the rules.
 *
 * Pure: the caller passes the places as data (credentialPlacesFor in
 * pipeline/credential-places.ts); nothing here reads the file system or the
 * environment.
 */
import { fold, isGlob, segmentMatches, toSegments, type Segments } from "./path-spellings.js";

/** Where the credential stores of this call are, as the server knows before the allow. */
export interface CredentialPlaces {
  /** Absolute home directories of the child (its `HOME`, the account's home); `~` is the first. */
  readonly homes: readonly string[];
  /** The child's working directory (absolute): relative paths start there. */
  readonly cwd: string;
  /** The account's user name: `~name` for it is the home, any other `~name` another user's home. */
  readonly userName?: string | undefined;
  /** Absolute store paths beyond the fixed ones below each home: the configuration root, a target's kubeconfig, files named by known variables. */
  readonly stores: readonly string[];
  /** Values of the variables that name a home or a folder of stores (HOME, USERPROFILE, HOMEDRIVE, HOMEPATH, SYSTEMDRIVE, APPDATA, LOCALAPPDATA, XDG_CONFIG_HOME), when set. */
  readonly variables: Readonly<Record<string, string>>;
  /** This machine's host names: a UNC path `\\<name>\share\…` is one of its own folders. `localhost` and loopback addresses always are. */
  readonly hostNames?: readonly string[] | undefined;
}

/** A store the child's environment names (a `.env` that moves AWS_SHARED_CREDENTIALS_FILE, HOME), with the variable that names it. */
export interface NamedStore {
  readonly variable: string;
  /** As the variable's value spells it: absolute, relative to the child's working directory, or from `~`. */
  readonly path: string;
}

/** Store directories below every home. */
const HOME_STORES = [".aws", ".azure", ".kube", ".config/gcloud", ".config/torii", "appdata/roaming/gcloud", "appdata/roaming/torii", "appdata/roaming/azure"];
/** Homes of other accounts, as a pattern (`*` is any one name, `*:` any drive). */
const OTHER_HOMES = ["/root", "/var/root", "/home/*", "/users/*", "*:/users/*"];
/**
 * Variables that name a store, read by the bundled providers' CLIs or Torii
 * (providers/*\/provider.yaml `removed_env` lists them): AWS_SHARED_CREDENTIALS_FILE,
 * AWS_CONFIG_FILE, AWS_WEB_IDENTITY_TOKEN_FILE, AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE;
 * KUBECONFIG; CLOUDSDK_CONFIG, CLOUDSDK_AUTH_ACCESS_TOKEN_FILE,
 * CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE, GOOGLE_APPLICATION_CREDENTIALS,
 * GOOGLE_AUTH_TOKEN_FILE; AZURE_CONFIG_DIR, AZURE_FEDERATED_TOKEN_FILE,
 * AZURE_CLIENT_CERTIFICATE_PATH; TORII_CONFIG_DIR. Referring to one in a
 * token is refused whatever its value; a value the child gets is a store.
 */
const STORE_VARIABLE =
  /^(?:aws_\w*file|kubeconfig|cloudsdk_config|cloudsdk_auth_\w*file\w*|google_application_credentials|google_auth_token_file|azure_config_dir|azure_federated_token_file|azure_client_certificate_path|torii_config_dir)$/u;
/** Variables that name a home or a folder of stores: replaced by their value, refused when it is not known. */
const PLACE_VARIABLES = new Set(["home", "userprofile", "homedrive", "homepath", "systemdrive", "appdata", "localappdata", "xdg_config_home"]);
/** Store folders below a folder variable's value (a home's are HOME_STORES). */
const FOLDER_STORES: Readonly<Record<string, readonly string[]>> = {
  home: HOME_STORES,
  userprofile: HOME_STORES,
  appdata: ["gcloud", "torii", "azure"],
  xdg_config_home: ["gcloud", "torii"],
};
const VARIABLE = /\$\{(\w+)\}|\$(\w+)|%(\w+)%/gu;
/** What separates paths inside one token: shorthand, JSON, lists. */
const PART_BREAK = /[=,;"'\s{}()<>|]+/u;
/** Prefixes that make the AWS CLI, az and others read the rest as a local path. */
const LOCAL_PREFIX = /^(?:@|fileb?:(?:\/\/)?)/u;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//u;

/** `\\?\`, `\\.\` and the NT `\??\`: Windows device namespaces in front of a path (either separator). */
const DEVICE_NAMESPACE = /^(?:[\\/]{2}[?.]|[\\/]\?\?)[\\/]/u;
/** `\\host\share\rest`, either separator. */
const UNC = /^[\\/]{2}([^\\/]+)[\\/]+([^\\/]+)(.*)$/su;
/** An administrative share: the root of a drive of that host (`C$`). */
const ADMIN_SHARE = /^([a-z])\$$/u;
/** Host names that are this machine whatever it is called. */
const LOOPBACK_HOST = /^(?:localhost|localhost\.localdomain|127(?:\.\d+){3}|0\.0\.0\.0|\[?(?:0*:)+:?0*1\]?|0--1\.ipv6-literal\.net)$/u;
/** `C:rest`: relative to that drive's working directory, which Torii does not know for another drive. */
const DRIVE_RELATIVE = /^([a-z]):(?![\\/])(.+)$/su;

const PROCESS_VIEW = "a process's view of the file system (/proc/*/cwd, root, fd; /dev/fd)";
const DEVICE_PATH = "a Windows device path (\\\\?\\, \\\\.\\) that does not name a drive";
const LOCAL_SHARE = "a share of this machine (a UNC path), whose folder Torii cannot know";

interface CompiledPlaces {
  readonly cwd: Segments;
  readonly home: Segments;
  readonly userName: string | undefined;
  readonly stores: readonly Segments[];
  readonly variables: ReadonlyMap<string, string>;
  readonly hostNames: ReadonlySet<string>;
}

const compiledCache = new WeakMap<CredentialPlaces, CompiledPlaces>();

function compile(places: CredentialPlaces): CompiledPlaces {
  let compiled = compiledCache.get(places);
  if (compiled !== undefined) return compiled;
  const root = ["/"];
  const cwd = toSegments(fold(places.cwd), root);
  const homes = places.homes.map((home) => toSegments(fold(home), root));
  const homeStores = [...homes.map((home) => home.join("/")), ...OTHER_HOMES].flatMap((home) => HOME_STORES.map((store) => `${home}/${store}`));
  const stores = [...homeStores, ...places.stores.map(fold)].map((store) => toSegments(store, root));
  const variables = new Map(Object.entries(places.variables).map(([name, value]) => [fold(name), value]));
  // A fully qualified name and its first label both reach this machine.
  const hostNames = new Set((places.hostNames ?? []).flatMap((name) => [fold(name), fold(name).split(".")[0] ?? ""]).filter((name) => name !== ""));
  compiled = { cwd, home: homes[0] ?? root, userName: places.userName === undefined ? undefined : fold(places.userName), stores, variables, hostNames };
  compiledCache.set(places, compiled);
  return compiled;
}

/**
 * What a token reaches, as a fixed label (never the token: it may be a
 * secret), or `undefined` when no part of it is inside or above a store.
 */
export function credentialPlaceIn(token: string, places: CredentialPlaces): string | undefined {
  const compiled = compile(places);
  const expanded = expandVariables(fold(token), compiled.variables);
  if (typeof expanded !== "string") return expanded.refused;
  for (const part of expanded.split(PART_BREAK)) {
    const resolved = resolvePart(part, compiled);
    if (typeof resolved === "string") return resolved;
    if (resolved.some((segments) => compiled.stores.some((store) => overlaps(segments, store)))) return "a credential store or a directory above one";
  }
  return undefined;
}

/** Whether a variable names a credential store (compared without case: Windows variables are case-insensitive). */
export function isStoreVariable(name: string): boolean {
  return STORE_VARIABLE.test(fold(name));
}

/**
 * The stores one variable of the child's environment places: a store
 * variable's value (a list, split on the platform's `delimiter`: KUBECONFIG),
 * the store folders below a home (HOME, USERPROFILE), `APPDATA` or
 * `XDG_CONFIG_HOME`. Any other variable places none.
 */
export function storesNamedBy(name: string, value: string, delimiter: string): NamedStore[] {
  if (isStoreVariable(name)) return value.split(delimiter).flatMap((entry) => (entry === "" ? [] : [{ variable: name, path: entry }]));
  const below = FOLDER_STORES[fold(name)];
  return below === undefined || value === "" ? [] : below.map((store) => ({ variable: name, path: `${value}/${store}` }));
}

/**
 * The variable whose store a token reaches (inside or above it), or
 * `undefined`: the check for stores only the child's environment knows (a
 * `.env` layer read after the allow). `places` are the child's (its home,
 * variables); a token `credentialPlaceIn` refuses is left to it.
 */
export function storeVariableReachedBy(token: string, places: CredentialPlaces, named: readonly NamedStore[]): string | undefined {
  const compiled = compile(places);
  const expanded = expandVariables(fold(token), compiled.variables);
  if (typeof expanded !== "string") return undefined;
  const stores = named.flatMap((store) => {
    const resolved = resolvePart(fold(store.path), compiled);
    return typeof resolved === "string" ? [] : resolved.map((segments) => ({ variable: store.variable, segments }));
  });
  for (const part of expanded.split(PART_BREAK)) {
    const resolved = resolvePart(part, compiled);
    if (typeof resolved === "string") continue;
    const reached = stores.find((store) => resolved.some((segments) => overlaps(segments, store.segments)));
    if (reached !== undefined) return reached.variable;
  }
  return undefined;
}

/**
 * The token with the home variables replaced by their values (`$HOME`,
 * `${HOME}`, `%APPDATA%`, `%HOMEDRIVE%%HOMEPATH%`: some CLIs expand them in
 * file options), or why it is refused: it names a store variable, or a home
 * variable whose value is not known. Other variables are left as written
 * (see docs/policy.md).
 */
function expandVariables(token: string, variables: ReadonlyMap<string, string>): string | { readonly refused: string } {
  let refused: string | undefined;
  const expanded = token.replace(VARIABLE, (whole, ...names: (string | undefined)[]) => {
    const name = names.slice(0, 3).find((entry) => entry !== undefined) ?? "";
    if (STORE_VARIABLE.test(name)) refused = "a variable that names a credential store";
    if (!PLACE_VARIABLES.has(name)) return whole;
    const value = variables.get(name);
    if (value === undefined) refused ??= "a home variable whose value Torii does not know";
    return fold(value ?? "");
  });
  return refused === undefined ? expanded : { refused };
}

/**
 * Every place a path-like part may be, as segments (more than one when the
 * spelling is read differently by the platforms: `//host/share` is a POSIX
 * path and a UNC share), or why it is refused outright. A remote URL is none.
 */
function resolvePart(written: string, places: CompiledPlaces): string | readonly Segments[] {
  const part = written.replace(LOCAL_PREFIX, "");
  // s3://, gs://, https://: the CLI reads a remote object, not a local path.
  if (part === "" || URL_SCHEME.test(part)) return [];
  if (isProcessView(part)) return PROCESS_VIEW;
  const tilde = /^~([^\\/]*)/u.exec(part);
  if (tilde !== null) {
    const user = tilde[1] ?? "";
    if (user !== "" && user !== places.userName) return "another user's home directory";
    return [toSegments(`.${part.slice(tilde[0].length)}`, places.home)];
  }
  const windows = windowsSpelling(part, places);
  if (typeof windows === "string") return windows;
  return [toSegments(part, places.cwd), ...windows];
}

/**
 * The Windows readings of a part, beyond the plain one: `\\?\C:\…`,
 * `\\.\C:\…` and `\??\C:\…` are the drive path; `\\?\UNC\host\share` is
 * `\\host\share`; an administrative share (`\\host\C$\…`, any host: this
 * machine may be reached by a name Torii does not know) is that drive's root;
 * `C:rest` may be below the working directory. Refused: any other device
 * path (`\\?\GLOBALROOT\…`, `\\.\PhysicalDrive0`, a volume GUID), which
 * reaches a drive without naming it, and a share of this machine (`\\localhost\Users`),
 * whose folder only the machine's share table knows.
 */
function windowsSpelling(part: string, places: CompiledPlaces): string | readonly Segments[] {
  let path = part;
  const device = DEVICE_NAMESPACE.exec(path);
  if (device !== null) {
    const rest = path.slice(device[0].length);
    if (/^[a-z]:(?:[\\/]|$)/u.test(rest)) return [toSegments(rest, places.cwd)];
    const unc = /^unc[\\/]+/u.exec(rest);
    if (unc === null) return DEVICE_PATH;
    path = `//${rest.slice(unc[0].length)}`;
  }
  const share = UNC.exec(path);
  if (share !== null) {
    const [, host = "", name = "", rest = ""] = share;
    const drive = ADMIN_SHARE.exec(name);
    if (drive !== null) return [toSegments(`${drive[1] ?? ""}:/${rest}`, places.cwd)];
    if (host === "." || host === "?" || LOOPBACK_HOST.test(host) || places.hostNames.has(host)) return LOCAL_SHARE;
    return [];
  }
  const relative = DRIVE_RELATIVE.exec(path);
  return relative === null ? [] : [toSegments(relative[2] ?? "", places.cwd)];
}

/**
 * Whether the written path and the store agree on every segment they both
 * have: the path is the store, inside it, or above it. A `**` segment matches
 * any depth, so what came before it decides.
 */
function overlaps(path: Segments, store: Segments): boolean {
  const shared = Math.min(path.length, store.length);
  for (let i = 0; i < shared; i += 1) {
    const pattern = path[i] as string;
    if (pattern.includes("**") && isGlob(pattern)) return true;
    if (!segmentMatches(pattern, store[i] as string)) return false;
  }
  return true;
}

/** Segments of a kernel link to a process's directories and files under /proc/<pid>/. */
const PROCESS_LINKS = new Set(["cwd", "root", "fd", "fdinfo", "map_files", "exe"]);

/**
 * `/proc/self/cwd/..`, `/proc/1/root/home/u`, `/dev/fd/3`: links the kernel
 * resolves to a process's working or root directory or open files, which reach
 * any place (a store, a home) without naming it, and which `..` cannot be
 * resolved through lexically. Read on the written segments, before any `.`/`..`.
 */
function isProcessView(part: string): boolean {
  if (!/^[\\/]/u.test(part)) return false;
  const segments = part.split(/[\\/]+/u).filter((segment) => segment !== "" && segment !== ".");
  if (segments[0] === "dev" && segments[1] === "fd") return true;
  return segments[0] === "proc" && segments.some((segment) => PROCESS_LINKS.has(segment));
}

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
  /** Values of the variables that name a home or a folder of stores (HOME, USERPROFILE, APPDATA, LOCALAPPDATA, XDG_CONFIG_HOME), when set. */
  readonly variables: Readonly<Record<string, string>>;
}

/** Store directories below every home. */
const HOME_STORES = [".aws", ".azure", ".kube", ".config/gcloud", ".config/torii", "appdata/roaming/gcloud", "appdata/roaming/torii", "appdata/roaming/azure"];
/** Homes of other accounts, as a pattern (`*` is any one name, `*:` any drive). */
const OTHER_HOMES = ["/root", "/var/root", "/home/*", "/users/*", "*:/users/*"];
/** Variables that name a store: referring to one is refused whatever its value. */
const STORE_VARIABLE = /^(?:aws_\w*file|kubeconfig|cloudsdk_config|azure_config_dir|torii_config_dir|google_application_credentials)$/u;
/** Variables that name a home or a folder of stores: replaced by their value, refused when it is not known. */
const PLACE_VARIABLES = new Set(["home", "userprofile", "appdata", "localappdata", "xdg_config_home"]);
const VARIABLE = /\$\{(\w+)\}|\$(\w+)|%(\w+)%/gu;
/** What separates paths inside one token: shorthand, JSON, lists. */
const PART_BREAK = /[=,;"'\s{}()<>|]+/u;
/** Prefixes that make the AWS CLI, az and others read the rest as a local path. */
const LOCAL_PREFIX = /^(?:@|fileb?:(?:\/\/)?)/u;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//u;

interface CompiledPlaces {
  readonly cwd: Segments;
  readonly home: Segments;
  readonly userName: string | undefined;
  readonly stores: readonly Segments[];
  readonly variables: ReadonlyMap<string, string>;
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
  compiled = { cwd, home: homes[0] ?? root, userName: places.userName === undefined ? undefined : fold(places.userName), stores, variables };
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
    const found = placeOfPart(part, compiled);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The token with the home variables replaced by their values (`$HOME`,
 * `${HOME}`, `%APPDATA%`: some CLIs expand them in file options), or why it is
 * refused: it names a store variable, or a home variable whose value is not
 * known. Other variables are left as written (see docs/policy.md).
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

function placeOfPart(written: string, places: CompiledPlaces): string | undefined {
  const part = written.replace(LOCAL_PREFIX, "");
  // s3://, gs://, https://: the CLI reads a remote object, not a local path.
  if (part === "" || URL_SCHEME.test(part)) return undefined;
  if (isProcessView(part)) return "a process's view of the file system (/proc/*/cwd, root, fd; /dev/fd)";
  const tilde = /^~([^\\/]*)/u.exec(part);
  let segments: Segments;
  if (tilde !== null) {
    const user = tilde[1] ?? "";
    if (user !== "" && user !== places.userName) return "another user's home directory";
    segments = toSegments(`.${part.slice(tilde[0].length)}`, places.home);
  } else {
    segments = toSegments(part, places.cwd);
  }
  return places.stores.some((store) => overlaps(segments, store)) ? "a credential store or a directory above one" : undefined;
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

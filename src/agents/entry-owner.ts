/**
 * Whether the entry named `torii` in a client's file starts Torii at all. The
 * name is only a key: another product may use it, and an agent that can write
 * the client's file may put its own program there (`npx -y some-package`, a
 * script) under Torii's name. `install` replacing such an entry, or
 * `uninstall` removing it, would silently destroy what someone else set up,
 * and `status` calling it merely "outdated" would hide that the client has
 * been running another program as Torii. So an entry is Torii's only when it
 * starts Torii the way Torii registers itself (`<node> …/dist/cli.js mcp`, any
 * version or checkout), the way `torii setup --registration` prints it (the
 * same without `mcp`), by its bin (`torii`, `torii-mcp`, optionally with
 * `mcp`) or the README's npx form (`npx [-y|--yes] torii-mcp [mcp]`), with no
 * environment but Torii's own `TORII_CONFIG_DIR`; anything else is another
 * program's. "Node" is any Node.js executable's name, versioned ones included
 * (Fedora's `/usr/bin/node-22`, which `process.execPath` resolves to), so the
 * entry and the guard hook `install` write are always recognised as Torii's.
 */
import path from "node:path";
import { visibleJson } from "../runtime/display-text.js";

/** The words an entry starts: opencode's one `command` array, or `command` followed by `args`; undefined for anything else. */
export function argvOf(entry: unknown): readonly unknown[] | undefined {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return undefined;
  const { command, args } = entry as { command?: unknown; args?: unknown };
  if (Array.isArray(command)) return args === undefined ? (command as unknown[]) : undefined;
  if (typeof command !== "string") return undefined;
  if (args === undefined) return [command];
  return Array.isArray(args) ? [command, ...(args as unknown[])] : undefined;
}

/** The last path component of `word` in either separator, lower case, without a Windows launcher's extension. */
function baseName(word: string): string {
  return path.win32
    .basename(word)
    .toLowerCase()
    .replace(/\.(exe|cmd|bat|ps1)$/u, "");
}

/** A Node.js executable's base name (baseName: lower case, no `.exe`): `node`, `nodejs`, `node22`, `node-22`, `nodejs-20.19`. */
const NODE_NAME = /^node(js)?(-?\d+(\.\d+)*)?$/u;
const TORII_BINS = new Set(["torii", "torii-mcp"]);
const TORII_ENTRY_SCRIPTS = new Set(["cli.js", "cli.cjs"]);

/**
 * The arguments `words` give Torii when they start Torii (`<node> …/dist/cli.js …`
 * or Torii's bin `torii …`), else undefined. Shared with the guard hook's
 * recognition (guard/hook-installer.ts).
 */
export function toriiArguments(words: readonly string[]): readonly string[] | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  if (TORII_BINS.has(baseName(first))) return words.slice(1);
  if (!NODE_NAME.test(baseName(first)) || second === undefined) return undefined;
  const script = path.win32.basename(second).toLowerCase();
  return TORII_ENTRY_SCRIPTS.has(script) && baseName(path.win32.dirname(second)) === "dist" ? words.slice(2) : undefined;
}

/** Whether `rest` asks Torii for its MCP server: `mcp`, or no argument (its default, as `torii setup --registration` prints it). */
function serverArguments(rest: readonly string[] | undefined): boolean {
  return rest !== undefined && (rest.length === 0 || (rest.length === 1 && rest[0] === "mcp"));
}

/** The arguments the README's `npx [-y|--yes] torii-mcp …` gives Torii (exactly that package, no version or other source), else undefined. */
function npxArguments(words: readonly string[]): readonly string[] | undefined {
  if (words[0] === undefined || baseName(words[0]) !== "npx") return undefined;
  const rest = words[1] === "-y" || words[1] === "--yes" ? words.slice(2) : words.slice(1);
  return rest[0] === "torii-mcp" ? rest.slice(1) : undefined;
}

/** Whether `words` start Torii's MCP server. */
function startsTorii(words: readonly string[]): boolean {
  return serverArguments(toriiArguments(words)) || serverArguments(npxArguments(words));
}

/** The environment variables Torii's own entry sets; any other (`NODE_OPTIONS=--require …`) changes what runs. */
const TORII_ENV = new Set(["TORII_CONFIG_DIR"]);

/**
 * The fields of an entry whose values may be credentials (a token in `env`, an
 * `Authorization` header): messages name what they hold, never the values, which
 * status and doctor would otherwise print to a terminal, a CI log or `--json`.
 */
const SECRET_FIELDS = new Set(["env", "environment", "headers"]);

/** What stands for a value that is not shown. */
const HIDDEN = "(value not shown)";

/** A secret-bearing field as its names only: `{ "NAME": "(value not shown)" }`, or the placeholder itself. */
function namesOnly(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return HIDDEN;
  return Object.fromEntries(Object.keys(value).map((name) => [name, HIDDEN]));
}

/** `entry` with the values of its secret-bearing fields hidden (SECRET_FIELDS), for messages. */
export function withoutSecrets(entry: unknown): unknown {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return entry;
  return Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, SECRET_FIELDS.has(key) ? namesOnly(value) : value]));
}

/** The entry's variables Torii never sets, by name (`NAME=(value not shown)`) for messages; empty when there are none. */
function foreignEnvironment(entry: unknown): string[] {
  const { env, environment } = entry as { env?: unknown; environment?: unknown };
  return [env, environment].flatMap((variables) => {
    if (variables === undefined) return [];
    if (typeof variables !== "object" || variables === null || Array.isArray(variables)) return [`an environment that is not a map (${HIDDEN})`];
    return Object.keys(variables)
      .filter((name) => !TORII_ENV.has(name))
      .map((name) => `${visibleJson(name)}=${HIDDEN}`);
  });
}

/**
 * What an entry that is not Torii's runs, for messages (`npx -y pkg`, or the
 * entry's JSON when it starts nothing Torii can read), shown with every
 * character outside printable ASCII escaped; undefined when it is Torii's.
 */
export function foreignProgram(entry: unknown): string | undefined {
  const words = argvOf(entry);
  if (words === undefined || !words.every((word): word is string => typeof word === "string") || !startsTorii(words)) return describeProgram(entry);
  const variables = foreignEnvironment(entry);
  return variables.length === 0 ? undefined : `${describeProgram(entry)} with ${variables.join(" ")}`;
}

/**
 * What an entry starts, for messages: its words (or its JSON, with the values
 * of `env` and `headers` hidden), every character outside printable ASCII escaped.
 */
export function describeProgram(entry: unknown): string {
  const words = argvOf(entry);
  return words === undefined ? visibleJson(withoutSecrets(entry)) : words.map((word) => visibleJson(word)).join(" ");
}

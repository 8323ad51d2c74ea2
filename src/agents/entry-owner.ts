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
 * same without `mcp`) or by its bin (`torii`, `torii-mcp`, optionally with
 * `mcp`); anything else is another program's.
 */
import path from "node:path";
import { visibleJson } from "../runtime/display-text.js";

/** The words an entry starts: opencode's one `command` array, or `command` followed by `args`; undefined for anything else. */
function argvOf(entry: unknown): readonly unknown[] | undefined {
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

const NODE_NAMES = new Set(["node", "nodejs"]);
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
  if (!NODE_NAMES.has(baseName(first)) || second === undefined) return undefined;
  const script = path.win32.basename(second).toLowerCase();
  return TORII_ENTRY_SCRIPTS.has(script) && baseName(path.win32.dirname(second)) === "dist" ? words.slice(2) : undefined;
}

/** Whether `words` start Torii's MCP server: `mcp`, or no argument (its default, as `torii setup --registration` prints it). */
function startsTorii(words: readonly string[]): boolean {
  const rest = toriiArguments(words);
  return rest !== undefined && (rest.length === 0 || (rest.length === 1 && rest[0] === "mcp"));
}

/**
 * What an entry that is not Torii's runs, for messages (`npx -y pkg`, or the
 * entry's JSON when it starts nothing Torii can read), shown with every
 * character outside printable ASCII escaped; undefined when it is Torii's.
 */
export function foreignProgram(entry: unknown): string | undefined {
  const words = argvOf(entry);
  if (words !== undefined && words.every((word): word is string => typeof word === "string") && startsTorii(words)) return undefined;
  return describeProgram(entry);
}

/** What an entry starts, for messages: its words (or its JSON), every character outside printable ASCII escaped. */
export function describeProgram(entry: unknown): string {
  const words = argvOf(entry);
  return words === undefined ? visibleJson(entry) : words.map((word) => visibleJson(word)).join(" ");
}

/**
 * What Torii knows about one MCP client: where its configuration file is, in
 * which format, under which key Torii's server entry goes and what that entry
 * looks like in the client's own shape. `torii agent install|uninstall|status`
 * and the README's client list are both driven by these adapters
 * (src/agents/clients.ts), so they cannot disagree.
 */
import type { ConfigScope, Place } from "./place.js";

/** How Torii is started: absolute paths, because GUI clients do not see the shell's PATH. */
export interface ToriiLaunch {
  /** The Node.js executable (`process.execPath`). */
  readonly node: string;
  /** Torii's `dist/cli.js`. */
  readonly cli: string;
  /** The configuration root the server reads (`TORII_CONFIG_DIR`). */
  readonly configRoot: string;
}

/** The server name Torii registers under in every client. */
export const SERVER_NAME = "torii";

/** An edit Torii will not compute for the file as it is (the caller names the file in a ConfigError). */
export class EditRefusedError extends Error {
  override readonly name = "EditRefusedError";
}

/** A change to a JSON document: set `value` at `path`, or remove the member when `value` is undefined. */
export interface JsonEdit {
  readonly path: readonly (string | number)[];
  readonly value: unknown;
}

/**
 * An optional capability of an adapter: registering a pre-tool hook (the
 * shell guard, `torii agent install <client> --guard`). Implemented per client
 * by the guard's code (src/agents/guard/hook-config.ts builds the fragments);
 * `torii agent` applies the edits to the JSON hook file with the same writer
 * as the server entry (`applyConfigEdits`: parse check, backup, atomic write).
 */
export interface HookInstaller {
  /** The JSON file the client reads its hooks from for `scope` (it may differ from the MCP file). */
  hookFile(scope: ConfigScope, place: Place): string;
  /** Edits that register `torii guard`, started as `launch` says, as the client's pre-tool hook; `current` is the parsed file. */
  installEdits(current: unknown, launch: ToriiLaunch): readonly JsonEdit[];
  /** Edits that remove only Torii's hook from `current`. */
  uninstallEdits(current: unknown): readonly JsonEdit[];
}

/** One MCP client. */
export interface ClientAdapter {
  /** The id the operator types: `torii agent install <id>`. */
  readonly id: string;
  /** The product's name, for messages and the README. */
  readonly title: string;
  /** The file format: JSON (comments allowed where the client allows them) or TOML. */
  readonly format: "json" | "toml";
  /** The scopes the client has a file for; the first is the default. */
  readonly scopes: readonly ConfigScope[];
  /** The configuration file for `scope`, a pure function of the place. */
  configFile(scope: ConfigScope, place: Place): string;
  /**
   * Another name for the same file that the client reads too (opencode's
   * `opencode.jsonc` beside `opencode.json`): edited when only it exists
   * (config-choice.ts).
   */
  alternateFile?(scope: ConfigScope, place: Place): string;
  /** Where Torii's entry sits in the parsed document, e.g. `["mcpServers", "torii"]`. */
  readonly entryPath: readonly string[];
  /** Torii's entry in the client's own shape. */
  entry(launch: ToriiLaunch): Record<string, unknown>;
  /**
   * Further edits Torii owns besides its entry (e.g. opencode's `permission`
   * rule for Torii's tools), for `current` (the parsed file, or undefined).
   */
  ownedEdits?(current: unknown, action: "install" | "uninstall"): readonly JsonEdit[];
  /** What the client does about approving each tool call, and what Torii sets (docs/agents.md). */
  readonly approval: string;
  /** The shell guard's hook writer, for clients with a pre-tool hook. Absent: `--guard` is refused. */
  readonly installHook?: HookInstaller;
  /**
   * Entries under Torii's name that this client reads in `place` besides its
   * scopes' files (Claude Code's local scope: `projects["<folder>"].mcpServers`
   * in `~/.claude.json`, which wins over both other scopes). See shadowing.ts.
   */
  localEntries?(place: Place): readonly EntrySite[];
  /**
   * Other places this client reads that no scope names: machine-wide files
   * (Gemini CLI's system settings, Claude Code's managed-mcp.json) and other
   * files of the user's that hold servers (VS Code's settings.json `mcp` block,
   * opencode.jsonc). A pure function of the place, like the rest.
   */
  moreEntries?(place: Place): readonly EntrySite[];
  /**
   * The files, relative to a project folder, the client reads servers from,
   * and how far up from the working directory it looks for them (see
   * project-folders.ts). Without it, only the project scope's file in the
   * working directory is read.
   */
  readonly projectFiles?: readonly ProjectFile[];
}

/** How far above the working directory a client looks for a project's files. */
export type ProjectSearch =
  /** Only the working directory. */
  | "cwd"
  /** Up to the nearest folder holding `.git`, or only the working directory when there is none (Codex). */
  | "git-root-or-cwd"
  /** Up to the nearest folder holding `.git`, or the filesystem root when there is none (opencode). */
  | "git-root-or-root"
  /** Every folder up to the filesystem root. */
  | "root";

/** One file a client reads in a project folder (and maybe in the folders above it). */
export interface ProjectFile {
  /** The path below the project folder, e.g. `[".vscode", "settings.json"]`. */
  readonly parts: readonly string[];
  readonly entryPath: readonly string[];
  readonly search: ProjectSearch;
}

/** One place a client reads an entry under Torii's name from. */
export interface EntrySite {
  readonly file: string;
  readonly entryPath: readonly string[];
  /** How the operator knows it: `project scope`, `local scope`. */
  readonly label: string;
  /** Whether the client prefers it to the entry being checked (a user's entry is overridden by a project's or a local one). */
  readonly overrides: boolean;
  /**
   * When the file exists, the client starts only the servers it lists
   * (Claude Code's managed-mcp.json): no `torii` there means the entry checked
   * is never started.
   */
  readonly exclusive?: boolean;
  /** A machine-wide file: root's (or the administrator's), read though it is not the user's. */
  readonly system?: boolean;
}

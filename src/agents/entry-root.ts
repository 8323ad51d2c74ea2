/**
 * Where an entry under Torii's name keeps its rules, and whether the agent can
 * rewrite them. The configuration root (`TORII_CONFIG_DIR`) holds the rules,
 * grants and leases that decide what the agent may run; a root inside the
 * folder the server runs in (the client starts it in the agent's working
 * directory, or in the entry's own `cwd`) is the agent's to write, so the agent
 * could grant itself anything or rewrite its own registration. Such an entry
 * is refused by install and called `unsafe` by status, whichever Torii it
 * starts.
 */
import path from "node:path";
import { isInside } from "../config/path-inside.js";
import { physicalPath } from "../config/physical-path.js";

/** The configuration root an entry sets (`env` or opencode's `environment`), when it is a string. */
function entryConfigRoot(entry: unknown): string | undefined {
  if (typeof entry !== "object" || entry === null) return undefined;
  const { env, environment } = entry as { env?: unknown; environment?: unknown };
  for (const variables of [env, environment]) {
    const root = typeof variables === "object" && variables !== null ? (variables as Record<string, unknown>).TORII_CONFIG_DIR : undefined;
    if (typeof root === "string") return root;
  }
  return undefined;
}

/** The working directory an entry asks for (`cwd`, Codex and Gemini CLI), when absolute. */
function entryWorkingDirectory(entry: unknown): string | undefined {
  const cwd = typeof entry === "object" && entry !== null ? (entry as { cwd?: unknown }).cwd : undefined;
  return typeof cwd === "string" && path.isAbsolute(cwd) ? cwd : undefined;
}

/**
 * Why `root` is the agent's to rewrite, when it lies in one of `folders` (the
 * folders the server runs in that the agent can write), else undefined. Both
 * as written and as the kernel resolves them (physical-path.ts): a root reached
 * through a link into the folder, or spelt in another case on a disk that
 * ignores case, is the folder's all the same.
 */
export function rootInReach(root: string, folders: readonly string[]): string | undefined {
  if (!path.isAbsolute(root)) return undefined;
  // The server tidies `..` away by text (resolveConfigRoot normalises the variable) before it touches the disk; a
  // program that opens the path as written meets the kernel's reading. Both count.
  const roots = [path.resolve(root), physicalPath(path.resolve(root)), physicalPath(root)];
  const folder = folders.find((candidate) => [path.resolve(candidate), physicalPath(candidate)].some((bound) => roots.some((place) => isInside(place, bound))));
  if (folder === undefined) return undefined;
  return `its configuration root ${root} lies in ${folder}, the folder the server runs in, which the agent can write: it could rewrite its own rules and registration; register Torii with a root outside it (TORII_CONFIG_DIR)`;
}

/**
 * Why the entry's configuration root is the agent's to rewrite: in
 * `agentFolders` (the working directory when it is the agent's, see
 * launch-trust.ts `registrationTrust`) or in the entry's own `cwd`.
 */
export function entryRootInReach(entry: unknown, agentFolders: readonly string[]): string | undefined {
  const root = entryConfigRoot(entry);
  if (root === undefined) return undefined;
  const own = entryWorkingDirectory(entry);
  return rootInReach(root, own === undefined ? agentFolders : [...agentFolders, own]);
}

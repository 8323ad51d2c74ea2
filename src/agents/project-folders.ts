/**
 * The folders a client reads a project's files from, nearest first. Clients
 * do not stop at the working directory: Claude Code reads `.mcp.json` in each
 * folder above it, Codex each `.codex/config.toml` up to the repository root,
 * opencode each `opencode.json(c)` up to the worktree root. A `torii` entry in a
 * parent folder (a checkout's outer repository, a shared workspace) is started
 * just as one in the working directory is, so status reads them all.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { ProjectSearch } from "./adapter.js";
import { pathsOf, type Place } from "./place.js";

/** Whether `folder` is a repository's root (holds `.git`, a folder or a worktree's file). */
type RootTest = (folder: string) => boolean;

const hasGit: RootTest = (folder) => existsSync(path.join(folder, ".git"));

/** The working directory and the folders above it that a search covers, nearest first. */
export type ProjectFolders = (search: ProjectSearch) => readonly string[];

/**
 * The folders each search covers from `place`'s working directory. One walk serves every search (a client reads
 * several project files, opencode four): the folders above are listed once, and the repository root is looked for
 * once, when a search first needs it.
 *
 * @param isRepositoryRoot injected for tests of other platforms; by default, whether the folder holds `.git`.
 */
export function projectFolders(place: Place, isRepositoryRoot: RootTest = hasGit): ProjectFolders {
  const paths = pathsOf(place);
  const chain: string[] = [];
  for (let folder = paths.resolve(place.cwd); ; folder = paths.dirname(folder)) {
    chain.push(folder);
    if (paths.dirname(folder) === folder) break;
  }
  let root: number | undefined;
  return (search) => {
    if (search === "cwd") return chain.slice(0, 1);
    if (search === "root") return chain;
    root ??= chain.findIndex((folder) => isRepositoryRoot(folder));
    if (root >= 0) return chain.slice(0, root + 1);
    return search === "git-root-or-cwd" ? chain.slice(0, 1) : chain;
  };
}

/**
 * Which file a client configuration path names when Torii writes it. A
 * symbolic link (a dotfiles repository, say) is written through, never
 * replaced: the link is followed with `lstat`/`readlink` one step at a time,
 * so a dangling link names the file it will create (a `realpath` fails on it).
 * That file is created only inside a folder that exists and is the user's;
 * Torii creates no folder a link points into. For a project's file, a link
 * (or a linked folder) that leads outside the project is refused: a cloned
 * repository must not make `--scope project` rewrite one of the user's files
 * and leave a backup beside it.
 */
import { lstat, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../config/errors.js";
import { isInside } from "../config/path-inside.js";

/** More links than this in a row is a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * The file `file` names with every link followed (itself when it is no link;
 * when it does not exist, its path under its folders' real paths).
 *
 * @param projectRoot the project folder, for a project's file: a file inside it must resolve inside it.
 * @throws ConfigError for a link loop, a dangling link into a missing folder or another user's, or a project's link leading out.
 */
export async function resolveConfigTarget(file: string, projectRoot?: string): Promise<string> {
  const given = path.resolve(file);
  const target = await followLinks(given);
  if (projectRoot !== undefined && isInside(given, path.resolve(projectRoot))) {
    const root = await realpath(projectRoot);
    if (!isInside(target, root)) {
      throw new ConfigError(
        given,
        `leads outside the project folder ${root}, to ${target}; Torii does not write a project's file there (edit it with --config ${target} if that is meant)`,
      );
    }
  }
  return target;
}

async function followLinks(given: string): Promise<string> {
  let current = given;
  for (let hops = 0; hops <= MAX_LINKS; hops += 1) {
    const folder = await realFolder(given, path.dirname(current));
    const here = path.join(folder.path, path.basename(current));
    const stats = folder.missing ? undefined : await lstatIfAny(here);
    if (stats?.isSymbolicLink() !== true) {
      if (hops > 0 && stats === undefined) await assertCreatableTarget(given, here, folder.missing);
      return here;
    }
    current = path.resolve(folder.path, await readlink(here));
  }
  throw new ConfigError(given, `more than ${MAX_LINKS} symbolic links in a row (a loop?)`);
}

/** `dir` with every link followed; a folder that does not exist yet keeps its name under its nearest existing ancestor's real path. */
async function realFolder(given: string, dir: string): Promise<{ path: string; missing: boolean }> {
  try {
    return { path: await realpath(dir), missing: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const above = await realFolder(given, path.dirname(dir));
  const here = path.join(above.path, path.basename(dir));
  if ((await lstatIfAny(here)) !== undefined) {
    throw new ConfigError(
      given,
      `${here} is a symbolic link to a folder that does not exist; create that folder first (Torii creates no folder a link points into)`,
    );
  }
  return { path: here, missing: true };
}

/** A dangling link's target is created only in an existing folder of the user's. */
async function assertCreatableTarget(given: string, target: string, folderMissing: boolean): Promise<void> {
  const folder = path.dirname(target);
  if (folderMissing) {
    throw new ConfigError(
      given,
      `is a symbolic link to ${target}, whose folder does not exist; create ${folder} first (Torii creates no folder a link points into)`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && (await stat(folder)).uid !== uid) {
    throw new ConfigError(given, `is a symbolic link to ${target}, in ${folder}, which is not yours; Torii creates no file there`);
  }
}

async function lstatIfAny(target: string): Promise<import("node:fs").Stats | undefined> {
  try {
    return await lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw error;
  }
}

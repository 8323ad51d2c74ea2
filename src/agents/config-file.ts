/**
 * Reading and replacing a client's configuration file: the previous bytes are
 * kept as `<file>.torii-backup` before the new content is renamed into place
 * (state/atomic-write.ts), the file's mode is kept, and a symbolic link (a
 * dotfiles repository, say) is written through rather than replaced.
 */
import { chmod, mkdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../state/atomic-write.js";

/** A configuration file as read: its resolved path and its text (undefined when it does not exist). */
export interface ConfigText {
  /** The file written to: `file` itself, or the target of the link it is. */
  readonly target: string;
  readonly text: string | undefined;
}

/** Reads `file` (following a link); a missing file has undefined text. */
export async function readConfigText(file: string): Promise<ConfigText> {
  try {
    const target = await realpath(file);
    return { target, text: await readFile(target, "utf8") };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { target: file, text: undefined };
    throw error;
  }
}

/** The backup `replaceConfigText` keeps of a file's previous content. */
export function backupPathOf(target: string): string {
  return `${target}.torii-backup`;
}

/**
 * Atomically replaces `current.target` with `text`, after writing the old
 * content (when there was a file) to its backup; returns the backup's path.
 * Refuses when the file changed since it was read (the client may be writing it).
 * A new file's folder is created (0700 for the folders Torii creates).
 */
export async function replaceConfigText(current: ConfigText, text: string): Promise<string | undefined> {
  await mkdir(path.dirname(current.target), { recursive: true, mode: 0o700 });
  const now = await readConfigText(current.target);
  if (now.text !== current.text) throw new Error(`${current.target} changed while Torii was editing it; nothing was written, run the command again`);
  let backup: string | undefined;
  let mode = 0o600;
  if (current.text !== undefined) {
    mode = (await stat(current.target)).mode & 0o777;
    backup = backupPathOf(current.target);
    await writeFileAtomic(backup, Buffer.from(current.text, "utf8"));
  }
  await writeFileAtomic(current.target, Buffer.from(text, "utf8"));
  if (mode !== 0o600) await chmod(current.target, mode);
  return backup;
}

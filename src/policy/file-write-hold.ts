/**
 * The file-write hold as a property of the allow, not of one allow source.
 *
 * A call that writes a local file (file-writes.ts) is left unresolved unless an
 * accept rule names its command. Every other source that may allow it must hold
 * it alike: a prefix grant shorter than the writing command path (`iot-data`
 * for `iot-data get-thing-shadow … ~/.aws/credentials`) is as broad as a short
 * accept rule and does not allow it; an exact grant, an exact rule (Always
 * allow) or an operator's answer to this very call names the call and does.
 */
import { isFileRead, type FileReadHit } from "./file-reads.js";
import type { LocalWrite } from "./file-writes.js";

/** What the held call does locally: writes a listed file, reads a listed file or directory, or runs a plugin program from PATH. */
export const HELD_ACCESSES = ["write", "read", "plugin"] as const;
export type HeldAccess = (typeof HELD_ACCESSES)[number];

/** What an unresolved decision carries for a listed file write (or read, or plugin run). */
export interface FileWriteHold {
  /** The writing command path (table words only: never an agent's token). */
  readonly command: readonly string[];
  /** Why the call is held, for the words an approval uses to say why no shorter prefix grant is offered. */
  readonly access: HeldAccess;
  /**
   * The fewest canonical tokens a prefix grant must cover to name the writing
   * command: up to and including its last word. More than the call's token
   * count when the path cannot be placed: then no prefix grant fits (fail closed).
   */
  readonly minimumPrefix: number;
}

/**
 * The hold for `write` on a call's flattened canonical tokens. The command's
 * words are found in order (ignore_args may put other words between them), so
 * a prefix grant fits only when it spells every word of the command path.
 */
export function fileWriteHold(write: LocalWrite | FileReadHit, canonicalTokens: readonly string[]): FileWriteHold {
  let matched = 0;
  let end = 0;
  while (end < canonicalTokens.length && matched < write.command.length) {
    if (canonicalTokens[end] === write.command[matched]) matched += 1;
    end += 1;
  }
  const access: HeldAccess = isFileRead(write) ? "read" : "plugin" in write ? "plugin" : "write";
  return { command: write.command, access, minimumPrefix: matched === write.command.length ? end : canonicalTokens.length + 1 };
}

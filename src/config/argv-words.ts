/**
 * The words of an argv table in `provider.yaml`: command path words, option
 * names, short options, locked option names. Each is a pattern (for the plain
 * row checks, plain-rows.ts) and the zod schema built on it, with one message.
 */
import * as z from "zod";

/** A command path word: printable ASCII, no space, not starting with "-". */
export const COMMAND_WORD = /^[\x21-\x2c\x2e-\x7e][\x21-\x7e]*$/;
export const COMMAND_WORD_ERROR = 'a command path word must be printable ASCII without spaces and must not start with "-"';
export const commandWordSchema = z.string().regex(COMMAND_WORD, { error: COMMAND_WORD_ERROR });

/** Whether `word` is a command path word. */
export function isCommandWord(word: unknown): word is string {
  return typeof word === "string" && COMMAND_WORD.test(word);
}

export const OPTION_NAME = /^--[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const OPTION_NAME_ERROR = 'an option name must be "--" and ASCII letters, digits, ".", "_" or "-"';
export const optionNameSchema = z.string().regex(OPTION_NAME, { error: OPTION_NAME_ERROR });

export const SHORT_OPTION = /^-[A-Za-z0-9?]$/;
export const SHORT_OPTION_ERROR = 'a short option must be "-" and one ASCII letter, digit or "?"';
export const shortOptionSchema = z.string().regex(SHORT_OPTION, { error: SHORT_OPTION_ERROR });

/** A broker-owned option: "--" and printable ASCII without "=" or whitespace. */
export const LOCKED_OPTION = /^--[\x21-\x3c\x3e-\x7e]+$/;
export const lockedOptionSchema = z.string().regex(LOCKED_OPTION, {
  error: 'a locked option must be "--" and a name of printable ASCII, without "=" or whitespace',
});

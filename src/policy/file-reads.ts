/**
 * Calls that make the CLI read a local file or directory named by a bare path.
 *
 * Torii refuses the markers it knows (`file://`, `fileb://`, az `@`), but many
 * arguments read a path with no marker: az loads any compound argument (AAZ
 * object, dict, list, free-form dict) and every `validate_file_or_dict`
 * argument from the path when it exists (`--tags ~/.azure/msal_token_cache.json`,
 * also inside shorthand, `key=./f.json`) and echoes it in its errors; the AWS
 * CLI uploads a streaming blob member (`s3api put-object --body PATH`) or a
 * directory (`deploy push --source`); gcloud `--data-file`, `builds submit
 * SOURCE`. The provider lists them (`argv.file_reads`, generated) and such a
 * call is held exactly like a file write (file-writes.ts, file-write-hold.ts):
 * only a rule naming the command path, an exact grant or rule, or the operator
 * accepts it. A value that is empty or `-` (stdin) reads nothing and is not held.
 * Paths into the operator's credential stores are refused outright whatever the
 * rules (grammar/credential-paths.ts).
 */
import { commandWords, runsCommand, type WriteCandidate } from "./file-writes.js";
import { bodyOption } from "./grammar/body-option.js";
import type { CompiledGrammar } from "./grammar/option-table.js";
import { rowsStartingWith } from "./grammar/rows-by-leading-words.js";
import type { FileReadSpec } from "./grammar/types.js";

/** A listed read argument a call gives with a value that may name a path. */
export type FileReadHit = FileReadSpec & { readonly read: true };

/** Whether a held local access is a listed read (not a write or a plugin run). */
export function isFileRead(access: object): access is FileReadHit {
  return "read" in access && access.read === true;
}

/** Whether a value names nothing to read: empty, or `-` (stdin). */
function readsNothing(value: string | undefined): boolean {
  return value === "" || value === "-";
}

/** Whether the call gives `row`'s option a value that may be a path, in any spelling argparse reads, or among the canonical options. */
function givesPath(row: FileReadSpec & { option: string }, call: WriteCandidate): boolean {
  const names = row.short === undefined ? [row.option] : [row.option, row.short];
  const inBody = call.positionals.some((token, index) => {
    const use = bodyOption(token, names);
    if (use === undefined) return false;
    // A value not glued is the next token; a missing one reads nothing (the CLI refuses the call), but fail closed anyway.
    return !readsNothing(use.value ?? call.positionals[index + 1]);
  });
  return (
    inBody ||
    call.options.some((token) => {
      const equals = token.indexOf("=");
      return (equals === -1 ? token : token.slice(0, equals)) === row.option && !readsNothing(equals === -1 ? undefined : token.slice(equals + 1));
    })
  );
}

/**
 * The listed local read this call makes, if any. An operand row holds every
 * call of its command (`builds submit` with no SOURCE uploads the working
 * directory), and so does an option row with a default path (`deploy push`
 * without `--source` uploads `.`); another option row holds a call that gives
 * the option a value other than empty or `-`. `call` is read as localFileWrite reads it.
 */
export function localFileRead(grammar: CompiledGrammar, call: WriteCandidate): FileReadHit | undefined {
  if (grammar.fileReads.length === 0) return undefined;
  const words = commandWords(grammar, call);
  const matching = rowsStartingWith(grammar.fileReads, [call.positionals, words]).filter((read) => {
    if (!runsCommand(call, words, read.command)) return false;
    // Left out, a defaulted option reads its default; given, it reads its value: either way a read.
    return read.option === undefined || read.defaultPath !== undefined || givesPath({ ...read, option: read.option }, call);
  });
  // The deepest path names the hold: `cloudformation deploy ... push --source DIR` is a push, and a
  // rule that names "cloudformation deploy push" covers its parent's reads too, not the reverse.
  const row = matching.reduce<FileReadSpec | undefined>(
    (deepest, read) => (deepest === undefined || read.command.length > deepest.command.length ? read : deepest),
    undefined,
  );
  return row === undefined ? undefined : { ...row, read: true };
}

/** Why a local read is left for a decision: table words only, never a value (it may be a secret path). */
export function fileReadReason(tool: string, read: FileReadHit): string {
  const path = read.command.join(" ");
  const argument = read.option ?? `its ${read.operand ?? "source"} operand`;
  // The default is a table word (`.`), never the call's value, so it may be quoted.
  const where = read.defaultPath === undefined ? "" : `, or at ${read.defaultPath} when ${argument} is left out`;
  return (
    `${tool} ${path} reads a local file or directory at the path given by ${argument}${where} (and may upload or echo it); ` +
    `only an accept rule that names "${path}" accepts it, so a grant or the operator's approval is needed`
  );
}

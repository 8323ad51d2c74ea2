/** One `argv.file_reads` row: an option or a named operand of one command path. */
export interface FileReadRow {
  command: string[];
  option?: string;
  operand?: string;
}
/** The value-taking options of a help section whose value names a local file or directory. */
export function readingOptions(lines: readonly string[]): string[];
/** Rows for every command scope (`optionLines`: its help's Options section, `usage`: its Usage text); throws when a known reader is gone or a reading global is not locked. */
export function fileReadRows(
  scopes: readonly { path: string[]; optionLines: readonly string[]; usage?: string }[],
  globalLines: readonly string[],
  lockedOptions: readonly string[],
): FileReadRow[];
/** The YAML lines of `argv.file_reads`. */
export function fileReadYaml(rows: readonly FileReadRow[]): string[];

/** One `argv.locked_command_options` row: options of one command path, with the denial's reason. */
export interface RawPostRow {
  command: string[];
  options: string[];
  why: string;
}
/** The reason the denial gives. */
export const WHY_RAW_POST: string;
/** Rows for the raw POST options of every command scope (`optionLines`: its help's Options section); throws when a known option is gone. */
export function rawPostRows(scopes: readonly { path: string[]; optionLines: readonly string[] }[]): RawPostRow[];
/** The YAML lines of those rows, which follow the `locked_command_options:` key. */
export function rawPostYaml(rows: readonly RawPostRow[]): string[];

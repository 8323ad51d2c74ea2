/** One `argv.locked_command_options` row: options of one command path, with the denial's reason. */
export interface LocalProgramRow {
  command: string[];
  options: string[];
  why: string;
}
/** Rows for every command scope (`optionLines`: its help's Options section); throws when a known option is gone or a matching global is not locked. */
export function localProgramRows(
  scopes: readonly { path: string[]; optionLines: readonly string[] }[],
  globalLines: readonly string[],
  lockedOptions: readonly string[],
): LocalProgramRow[];
/** The YAML lines of `argv.locked_command_options`. */
export function localProgramYaml(rows: readonly LocalProgramRow[]): string[];

/**
 * The one error type of the configuration layer.
 *
 * Every configuration problem names the file it is in and, when the problem
 * has a place inside the file, the 1-based line and column, so an operator can
 * jump straight to it: `…/providers/aws/provider.yaml:4:3: unknown field "toool"`.
 */

/** A 1-based position inside a text file. */
export interface FilePosition {
  readonly line: number;
  readonly column: number;
}

/** A configuration problem, located in a file and, when it has one, at a line and column. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** The file the problem is in (or, for an environment variable, the variable's name). */
  readonly file: string;
  /** 1-based; undefined for whole-file problems such as a missing file. */
  readonly line: number | undefined;
  /** 1-based; undefined exactly when `line` is. */
  readonly column: number | undefined;
  /** The problem without its location prefix. */
  readonly detail: string;
  /**
   * Further problems found in the same load, in the order they were found. The
   * message lists them after this one, one per line, each with its own location.
   */
  readonly related: readonly ConfigError[];

  constructor(file: string, detail: string, position?: FilePosition, related: readonly ConfigError[] = []) {
    const lines = [formatLocated(file, detail, position), ...related.map((error) => formatLocated(error.file, error.detail, positionOf(error)))];
    super(lines.join("\n"));
    this.file = file;
    this.line = position?.line;
    this.column = position?.column;
    this.detail = detail;
    this.related = related;
  }
}

/**
 * Folds several problems into one error whose message lists them all. A load
 * that found problems in more than one place reports every one of them, so the
 * operator does not fix them one restart at a time.
 */
export function combineConfigErrors(errors: readonly ConfigError[]): ConfigError | undefined {
  if (errors.length === 1) return errors[0];
  const [first, ...rest] = errors.flatMap((error) => [withoutRelated(error), ...error.related]);
  if (first === undefined) return undefined;
  return new ConfigError(first.file, first.detail, positionOf(first), rest);
}

function withoutRelated(error: ConfigError): ConfigError {
  return error.related.length === 0 ? error : new ConfigError(error.file, error.detail, positionOf(error));
}

function positionOf(error: ConfigError): FilePosition | undefined {
  return error.line === undefined || error.column === undefined ? undefined : { line: error.line, column: error.column };
}

function formatLocated(file: string, detail: string, position: FilePosition | undefined): string {
  return position === undefined ? `${file}: ${detail}` : `${file}:${position.line}:${position.column}: ${detail}`;
}

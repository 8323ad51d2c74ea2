/**
 * YAML with positions: parses a configuration file, validates it with a zod
 * schema, and maps every problem (syntax or schema) back to the line and column
 * the operator wrote, so no error ever says only "invalid config".
 */
import { isAlias, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, visit } from "yaml";
import type { Document, Node, YAMLError } from "yaml";
import type * as z from "zod";
import { combineConfigErrors, ConfigError } from "./errors.js";
import type { FilePosition } from "./errors.js";
import { readConfigText } from "./read-file.js";
import { keyForMessage, recordKeyForMessage, segmentForMessage, yamlProblemText } from "./yaml-problem-text.js";

/** A path into a document: map keys and sequence indexes, as zod reports them. */
export type YamlPath = readonly PropertyKey[];

/** Which end of a `key: value` pair a position should point at. */
export type PositionAnchor = "key" | "value";

/** A validated document that can still say where each of its parts was written. */
export interface YamlDocument<T> {
  readonly file: string;
  /** The schema's output (defaults applied). */
  readonly value: T;
  /**
   * The position of the node at `path`. For a path that does not exist it is the
   * nearest ancestor that does (for a missing field: the map it is missing from).
   * `anchor: "key"` points at the key of a map entry rather than its value.
   * Undefined only for an empty document.
   */
  positionOf(path: YamlPath, anchor?: PositionAnchor): FilePosition | undefined;
  /** A ConfigError at `path` (see `positionOf`). */
  errorAt(path: YamlPath, detail: string, anchor?: PositionAnchor): ConfigError;
}

/** Options for `parseYamlDocument`. */
export interface ParseYamlOptions {
  /**
   * Treat an empty document (nothing, or only comments) as `{}` instead of an
   * error. For files whose every field is optional.
   */
  readonly allowEmpty?: boolean;
}

/**
 * Parses `text` (the contents of `file`) and validates it with `schema`.
 *
 * Syntax errors and warnings (an unresolved tag, say) are both refused: a
 * security configuration should mean exactly what it says or not load.
 * Duplicate keys are errors. The default alias limit of `yaml` stays in force
 * against alias bombs. The root must be a map.
 *
 * @throws ConfigError listing every problem, each with its line and column.
 */
export function parseYamlDocument<S extends z.ZodType>(file: string, text: string, schema: S, options: ParseYamlOptions = {}): YamlDocument<z.output<S>> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, strict: true });
  const syntaxProblems = [...doc.errors, ...doc.warnings].map((problem) => syntaxError(file, problem, lineCounter));
  throwIfAny(syntaxProblems);

  const locator = new Locator(file, doc, lineCounter);
  const root = doc.contents;
  let input: unknown;
  if (root === null || (isScalar(root) && root.value === null && root.source === "")) {
    if (options.allowEmpty !== true) throw new ConfigError(file, "is empty; expected a YAML map of fields");
    input = {};
  } else if (!isMap(root)) {
    throw locator.errorAt([], `the top level must be a map of fields, found ${describeNode(root)}`);
  } else {
    input = documentToJs(file, doc, lineCounter);
  }

  const result = schema.safeParse(input);
  if (!result.success) {
    throwIfAny(result.error.issues.flatMap((issue) => locator.issueErrors(issue)));
  }
  const value = result.data as z.output<S>;
  return {
    file,
    value,
    positionOf: (path, anchor) => locator.positionOf(path, anchor),
    errorAt: (path, detail, anchor) => locator.errorAt(path, detail, anchor),
  };
}

/**
 * Reads `file` and parses it with `parseYamlDocument`.
 *
 * @throws ConfigError for a missing or unreadable file, and for every problem `parseYamlDocument` reports.
 */
export function readYamlDocument<S extends z.ZodType>(file: string, schema: S, options: ParseYamlOptions = {}): YamlDocument<z.output<S>> {
  return parseYamlDocument(file, readConfigText(file), schema, options);
}

/**
 * Validates `value`, the data of `text` (the contents of `file`) obtained some
 * cheaper way than parsing the YAML, with `schema`. Positions are found by
 * parsing the YAML only when one is asked for (an error in a check across
 * files). Returns undefined when `value` does not validate: the caller then
 * parses the YAML, whose errors carry their positions.
 */
export function documentFromData<S extends z.ZodType>(file: string, text: string, value: unknown, schema: S): YamlDocument<z.output<S>> | undefined {
  const result = schema.safeParse(value);
  if (!result.success) return undefined;
  let locator: Locator | undefined;
  const locate = (): Locator => {
    if (locator === undefined) {
      const lineCounter = new LineCounter();
      locator = new Locator(file, parseDocument(text, { lineCounter, uniqueKeys: true, strict: true }), lineCounter);
    }
    return locator;
  };
  return {
    file,
    value: result.data,
    positionOf: (path, anchor) => locate().positionOf(path, anchor),
    errorAt: (path, detail, anchor) => locate().errorAt(path, detail, anchor),
  };
}

/**
 * The document as data. An alias to an anchor not defined before it is refused at its own place; `yaml`'s
 * own refusals (an alias bomb) quote the alias's name, so their text is never passed on (yaml-problem-text.ts).
 */
function documentToJs(file: string, doc: Document, lineCounter: LineCounter): unknown {
  let unresolved: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (node.resolve(doc) !== undefined) return undefined;
      unresolved = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  if (unresolved !== undefined) {
    const { line, col } = lineCounter.linePos(unresolved);
    throw new ConfigError(file, "YAML syntax: an alias names no anchor defined before it", { line, column: col });
  }
  try {
    return doc.toJS();
  } catch {
    // `yaml` refuses documents whose aliases expand beyond its limit (an alias bomb).
    throw new ConfigError(file, "cannot be read as data: its aliases expand beyond the limit");
  }
}

function syntaxError(file: string, problem: YAMLError, lineCounter: LineCounter): ConfigError {
  const position = problem.linePos?.[0] ?? lineCounter.linePos(problem.pos[0]);
  return new ConfigError(file, `YAML syntax: ${yamlProblemText(problem)}`, { line: position.line, column: position.col });
}

function throwIfAny(errors: readonly ConfigError[]): void {
  const sorted = [...errors].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const combined = combineConfigErrors(sorted);
  if (combined !== undefined) throw combined;
}

function describeNode(node: Node): string {
  if (isSeq(node)) return "a list";
  if (isScalar(node)) return `the value ${JSON.stringify(node.value)}`;
  return "an alias";
}

interface LocatedNode {
  readonly key: Node | undefined;
  readonly value: Node | undefined;
}

/** Finds nodes by path and turns zod issues into located errors. */
class Locator {
  constructor(
    private readonly file: string,
    private readonly doc: Document,
    private readonly lineCounter: LineCounter,
  ) {}

  positionOf(path: YamlPath, anchor: PositionAnchor = "value"): FilePosition | undefined {
    const { located } = this.walk(path);
    const node = anchor === "key" || isEmptyValue(located.value) ? (located.key ?? located.value) : located.value;
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }

  errorAt(path: YamlPath, detail: string, anchor?: PositionAnchor): ConfigError {
    return new ConfigError(this.file, detail, this.positionOf(path, anchor));
  }

  issueErrors(issue: z.core.$ZodIssue): ConfigError[] {
    const path = issue.path;
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => this.errorAt([...path, key], `${prefix(path)}unknown field ${keyForMessage(key)}`, "key"));
    }
    if (issue.code === "invalid_key") {
      return [this.errorAt(path, `${prefix(path.slice(0, -1))}invalid key ${recordKeyForMessage(path.at(-1) ?? "")}: ${issue.message}`, "key")];
    }
    if (issue.code === "custom") {
      return [this.errorAt(path, `${prefix(path)}${issue.message}`, anchorOf(issue))];
    }
    if (!this.walk(path).complete && path.length > 0) {
      // zod reports a missing field at the field's own path; the operator needs the map it is missing from.
      return [this.errorAt(path, `${prefix(path.slice(0, -1))}missing required field ${JSON.stringify(String(path.at(-1)))}`)];
    }
    return [this.errorAt(path, `${prefix(path)}${issue.message}`)];
  }

  private walk(path: YamlPath): { located: LocatedNode; complete: boolean } {
    let located: LocatedNode = { key: undefined, value: this.doc.contents ?? undefined };
    for (const segment of path) {
      const next = this.child(located.value, segment);
      if (next === undefined) return { located, complete: false };
      located = next;
    }
    return { located, complete: true };
  }

  private child(parent: Node | undefined, segment: PropertyKey): LocatedNode | undefined {
    const node = isAlias(parent) ? parent.resolve(this.doc) : parent;
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) return undefined;
      return { key: isNode(pair.key) ? pair.key : undefined, value: isNode(pair.value) ? pair.value : undefined };
    }
    if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment];
      return isNode(item) ? { key: undefined, value: item } : undefined;
    }
    return undefined;
  }
}

/**
 * Cross-field rules that refuse a field outright mark their issue with
 * `params: { anchor: "key" }`, so the error points at the field's name.
 */
function anchorOf(issue: z.core.$ZodIssueCustom): PositionAnchor {
  return issue.params?.anchor === "key" ? "key" : "value";
}

/** `key:` with nothing after it: its empty scalar sits at the end of the line, the key is the useful place. */
function isEmptyValue(node: Node | undefined): boolean {
  return node === undefined || (isScalar(node) && node.value === null && (node.source === "" || node.source === undefined));
}

/** `auth.fields[0].name: ` for a path, or nothing for the root. */
function prefix(path: YamlPath): string {
  if (path.length === 0) return "";
  let text = "";
  for (const segment of path) {
    text += typeof segment === "number" ? `[${segment}]` : `${text === "" ? "" : "."}${segmentForMessage(segment)}`;
  }
  return `${text}: `;
}

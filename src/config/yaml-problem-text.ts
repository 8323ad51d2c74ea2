/**
 * What a YAML problem is called in an error, without the document's text.
 *
 * Why: a configuration error reaches stderr, `<root>/torii-server.log` and, at
 * start-up, the agent (the `torii_config_error` tool and the server's
 * instructions). A `rules.yaml` holds rules the page's "Always allow" wrote from
 * a call's whole argv, option values included, so an error must locate a
 * problem (file, line, column) and say what kind it is, never quote what was
 * written there: not a tag, an alias or anchor name, a block scalar header, an
 * escape sequence nor a key that is no field name.
 */
import type { YAMLError } from "yaml";

/**
 * The `yaml` library's messages that interpolate nothing, kept as they are: they
 * are the most precise wording. A message not listed (a new wording in a later
 * version, or one that names document text) is replaced by its code's description.
 */
const FIXED_MESSAGES: ReadonlySet<string> = new Set([
  "An alias node must not specify any properties",
  "Alias cannot be an empty string",
  "Alias ending in : is ambiguous",
  "Anchor cannot be an empty string",
  "Anchor ending in : is ambiguous",
  "All sequence items must start at the same column",
  "All mapping items must start at the same column",
  "A block sequence may not be used as an implicit map key",
  "Nested mappings are not allowed in compact mappings",
  "Map keys must be unique",
  "Block collection cannot start on same line with directives-end marker",
  "Comments must be separated from other tokens by white space characters",
  "Implicit map keys need to be followed by map values",
  'Missing closing "quote',
  "Missing closing 'quote",
  "Missing directives-end indicator line",
  "Missing directives-end/doc-start indicator line",
  "Sequence item without - indicator",
  "Tags and anchors must be separated from the next token by white space",
  "Implicit keys need to be on a single line",
  "Implicit keys of flow sequence pairs need to be on a single line",
  "A node can have at most one anchor",
  "A node can have at most one tag",
  "Tabs are not allowed as indentation",
]);

/** Messages whose only interpolation is the kind of flow collection, a word of the library's own. */
const FLOW_COLLECTION_MESSAGE =
  /^(?:Missing , between|Missing , or : between|Missing space after : in|Unexpected , in|Unexpected empty item in) flow (?:map|sequence|collection)(?: items)?$/u;

/** What each code means, for a message that is not kept. */
const CODE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  ALIAS_PROPS: "an alias must not carry an anchor or a tag",
  BAD_ALIAS: "an alias or anchor name is not valid",
  BAD_COLLECTION_TYPE: "a tag does not fit the collection it is written on",
  BAD_DIRECTIVE: "a directive is not valid",
  BAD_DQ_ESCAPE: "a double-quoted string holds an escape sequence YAML does not define",
  BAD_INDENT: "the indentation is not consistent",
  BAD_PROP_ORDER: "anchors and tags must come after the indicator",
  BAD_SCALAR_START: "a plain value starts with a character YAML reserves (quote the value)",
  BLOCK_AS_IMPLICIT_KEY: "a block collection cannot be an implicit map key",
  BLOCK_IN_FLOW: "a block collection cannot sit inside a flow collection",
  DUPLICATE_KEY: "map keys must be unique",
  IMPOSSIBLE: "the text cannot be parsed here",
  MISSING_CHAR: "a character YAML needs is missing here",
  MULTILINE_IMPLICIT_KEY: "implicit keys need to be on a single line",
  MULTIPLE_ANCHORS: "a node can have at most one anchor",
  MULTIPLE_DOCS: "the file holds multiple documents (one YAML document per file)",
  MULTIPLE_TAGS: "a node can have at most one tag",
  NON_STRING_KEY: "map keys must be strings",
  RESOURCE_EXHAUSTION: "the aliases expand beyond the limit",
  TAB_AS_INDENT: "tabs are not allowed as indentation",
  TAG_RESOLVE_FAILED: "a tag this file does not support (no value here takes a tag)",
  UNEXPECTED_TOKEN: "unexpected text here",
};

/** The description of `problem` for an error message: the library's wording when it quotes nothing, else its code's. */
export function yamlProblemText(problem: YAMLError): string {
  // prettyErrors appends " at line N, column M:" and a source excerpt; the location is formatted by the caller.
  const message = problem.message.replace(/ at line \d+, column \d+:[\s\S]*$/u, "");
  if (FIXED_MESSAGES.has(message) || FLOW_COLLECTION_MESSAGE.test(message)) return message;
  return CODE_DESCRIPTIONS[problem.code] ?? `a YAML error (${problem.code})`;
}

/**
 * An unknown key that is quoted: lowercase words as this project's field names are spelled (a typo such as
 * `descripton` is named). Anything else, a misplaced rule line (spaces), a token (digits, capitals), is not quoted:
 * the line and column locate it.
 */
const FIELD_SPELLING = /^[a-z][a-z_]{0,23}$/u;

/** An unknown or invalid key for a message: quoted when it is spelled like a field name, else described. */
export function keyForMessage(key: PropertyKey): string {
  const text = String(key);
  return FIELD_SPELLING.test(text) ? JSON.stringify(text) : "(its key is not quoted; see the line and column)";
}

/** A key that could be a field name or a record's name (a target alias, a variable); longer keys are not printed. */
const NAME_LIKE = /^[A-Za-z_][A-Za-z0-9_-]{0,31}$/u;

/**
 * A path segment for a message's `a.b[0]` prefix: a key that is not name-like becomes `<key>`. The prefix names the
 * maps above a problem, which the schema declared or the operator named; the problem's own key is quoted only when spelled like a field
 * (see `keyForMessage`: a misplaced line may be a rule, and a token may be name-like).
 */
export function segmentForMessage(segment: PropertyKey): string {
  return NAME_LIKE.test(String(segment)) ? String(segment) : "<key>";
}

/** A record's key the schema refused (a variable name, say) for a message: quoted when name-like, else described. */
export function recordKeyForMessage(key: PropertyKey): string {
  const text = String(key);
  return NAME_LIKE.test(text) ? JSON.stringify(text) : "(its key is not quoted; see the line and column)";
}

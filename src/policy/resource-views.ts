/**
 * Rules and calls of commands that take kubectl resources, read per resource
 * type and per name, the type in the plural (resource-types.ts):
 *
 * - `get pods,secrets x y` is read as `get pods x`, `get pods y`, `get secrets x`, `get secrets y`;
 * - `get secret/x pod/y` (every operand `type/name`) as `get secrets x` and `get pods y`;
 * - operands kubectl reads as changes (`key=value`, `key:effect`, `key-`: label,
 *   annotate, taint, set env/image) follow the name in every reading;
 * - `named` commands (`logs`, `exec`, …) take `NAME` (of the default type, a pod)
 *   or `TYPE/NAME` first: `logs api` is `logs pods api`, `logs deploy/api` is `logs deployments api`;
 * - `.group` suffixes: for deny rules the type is read without it (a deny of
 *   `get secrets` also covers `get secrets.v1.`, and a same-named type of
 *   another group: fail closed); for accept rules it stays (`get pods` does not
 *   accept `pods.metrics.k8s.io`);
 * - objects a call does not name literally (a selector, a manifest, no name,
 *   a controller) are, in its deny reading, any object (object-set.ts).
 */
import { ANY_OBJECT, listLength, objectSetOf, type ObjectSet } from "./object-set.js";
import { canonicalType, sameWords, type CompiledResourceTypes } from "./resource-types.js";

/** At most this many readings (types × names) of one call are matched one by one. */
export const MAX_RESOURCE_VIEWS = 64;

interface ResourceItem {
  readonly type: string;
  readonly name: string | undefined;
}

/** `type` or `type/name`, per comma-separated item. */
function itemsOf(operand: string): ResourceItem[] {
  return operand.split(",").map((item) => {
    const slash = item.indexOf("/");
    return slash === -1 ? { type: item, name: undefined } : { type: item.slice(0, slash), name: item.slice(slash + 1) };
  });
}

/**
 * A change operand (label/annotate/env/image `key=value`, taint `key:effect`,
 * a removal `key-`): kubectl ends the resource operands there, and no object
 * name contains `=` or `:` or ends with `-`.
 */
function isChange(operand: string): boolean {
  return operand.includes("=") || operand.includes(":") || (operand.endsWith("-") && operand !== "-");
}

function commandOf(paths: readonly (readonly string[])[], positionals: readonly string[]): readonly string[] | undefined {
  return paths.find((path) => path.length < positionals.length && path.every((word, i) => positionals[i] === word));
}

/** A call that is exactly one of `paths` (no operand): it names objects only through its options. */
function bareCommand(paths: readonly (readonly string[])[], positionals: readonly string[]): boolean {
  return paths.some((path) => sameWords(path, positionals));
}

/** How to read positionals: a deny rule or a call's deny reading drops `.group`; a call's readings are capped. */
export interface ReadingOptions {
  readonly dropGroup: boolean;
  /** More readings than this throw (the caller fails closed). */
  readonly limit?: number;
  /** A rule: the first operand of a named command may be a type (`deny: [logs pods]`). */
  readonly rule?: boolean;
  /** A call's deny reading: its options; objects it does not name literally are read as ANY_OBJECT (object-set.ts). */
  readonly anyObjectFrom?: readonly string[];
}

/**
 * The positionals of a call (or a rule) once per resource type and name it
 * names, the type in the plural; undefined when its command takes no resource
 * type, names none, or is already read that way (the common call: no second
 * reading to match).
 */
export function resourceViews(positionals: readonly string[], table: CompiledResourceTypes, options: ReadingOptions): string[][] | undefined {
  const views = typeViews(positionals, table, options) ?? namedViews(positionals, table, options);
  return views !== undefined && views.length === 1 && sameWords(views[0] as string[], positionals) ? undefined : views;
}

function typeViews(positionals: readonly string[], table: CompiledResourceTypes, options: ReadingOptions): string[][] | undefined {
  const set = options.anyObjectFrom === undefined ? undefined : objectSetOf(options.anyObjectFrom, table);
  const verb = commandOf(table.verbs, positionals);
  if (verb === undefined)
    return set !== undefined && set !== "names" && bareCommand(table.verbs, positionals) ? [[...positionals, ANY_OBJECT, ANY_OBJECT]] : undefined;
  const operands = positionals.slice(verb.length);
  if ((operands[0] as string).startsWith("-")) return undefined;
  // The last operand of `set serviceaccount` (the account) is kept after every name, like a change.
  const last = table.trailing.some((path) => sameWords(path, verb)) && operands.length > 1 ? operands.length - 1 : -1;
  const changes = operands.filter((operand, i) => i === last || isChange(operand));
  const [typeList, ...names] = operands.filter((operand, i) => i !== last && !isChange(operand));
  const anyType = set === "manifest" || (set === "selected" && typeList === undefined) ? [[...verb, ANY_OBJECT, ANY_OBJECT, ...changes]] : [];
  if (typeList === undefined) return anyType.length === 0 ? undefined : anyType;
  // kubectl reads every operand as `type/name` once the first one is; otherwise the first is the type list and the others names.
  const slashed = typeList.includes("/");
  // Counted before anything is built: a long list of types and names costs nothing to refuse.
  const literal = slashed ? [typeList, ...names].reduce((sum, operand) => sum + listLength(operand), 0) : listLength(typeList) * Math.max(names.length, 1);
  const anyName = set === "selected" && (slashed || names.length > 0) ? literal : 0;
  const count = literal + anyName + anyType.length;
  if (count > (options.limit ?? Infinity)) {
    throw new Error(`the call names ${count} resources (types × names); more than ${options.limit} are not read one by one: split the call`);
  }
  // A call's type without a name acts on every object of it (`get secrets`): any name, for a deny.
  const unnamed = set === undefined ? undefined : ANY_OBJECT;
  const items: ResourceItem[] = slashed
    ? [typeList, ...names].flatMap(itemsOf)
    : itemsOf(typeList).flatMap(({ type }) => (names.length === 0 ? [{ type, name: unnamed }] : names.map((name): ResourceItem => ({ type, name }))));
  const selected = anyName === 0 ? [] : items.map(({ type }): ResourceItem => ({ type, name: ANY_OBJECT }));
  const view = ({ type, name }: ResourceItem): string[] => [
    ...verb,
    canonicalType(type, table, options.dropGroup),
    ...(name === undefined ? [] : [name]),
    ...changes,
  ];
  return [...items.map(view), ...selected.map(view), ...anyType];
}

function namedViews(
  positionals: readonly string[],
  table: CompiledResourceTypes,
  { dropGroup, rule = false, anyObjectFrom }: ReadingOptions,
): string[][] | undefined {
  const set = anyObjectFrom === undefined ? undefined : objectSetOf(anyObjectFrom, table);
  const verb = commandOf(table.named, positionals);
  if (verb === undefined)
    return set !== undefined && set !== "names" && bareCommand(table.named, positionals) ? [openReading(positionals, [], table, set)] : undefined;
  const [first, ...rest] = positionals.slice(verb.length) as [string, ...string[]];
  if (first.startsWith("-")) return undefined;
  const slash = first.indexOf("/");
  const type = slash === -1 ? undefined : canonicalType(first.slice(0, slash), table, dropGroup);
  const open = openReadings(verb, rest, type, table, set);
  if (type !== undefined) return [[...verb, type, first.slice(slash + 1), ...rest], ...open];
  // kubectl reads a plain operand as a pod's name; a rule's known type names the type (`logs pods`: every pod).
  const asType = rule ? canonicalType(first, table, dropGroup) : undefined;
  if (asType !== undefined && table.plural.has(asType.split(".")[0] as string)) return [[...verb, asType, ...rest]];
  return [[...verb, table.namedDefault, first, ...rest], ...open];
}

/** A named command's "any object" readings for a deny: its selector or manifest, or its controller `TYPE/NAME`. */
function openReadings(
  verb: readonly string[],
  rest: readonly string[],
  type: string | undefined,
  table: CompiledResourceTypes,
  set: ObjectSet | undefined,
): string[][] {
  if (set === undefined) return [];
  if (set !== "names") return [openReading(verb, rest, table, set)];
  const controller = type !== undefined && type.split(".")[0] !== table.namedDefault;
  return controller ? [openReading(verb, rest, table, "selected")] : [];
}

/**
 * A named command's "any object" reading: a manifest names any type; a
 * selector, or a controller (`exec sts/db` runs in one of its pods), any
 * object of the default type.
 */
function openReading(verb: readonly string[], rest: readonly string[], table: CompiledResourceTypes, set: ObjectSet): string[] {
  return [...verb, set === "manifest" ? ANY_OBJECT : table.namedDefault, ANY_OBJECT, ...rest];
}

/**
 * What the server must do with one stdin line, written from the rules in
 * docs/mcp-api.md ("Transport") with JSON.parse as the only parser, so the fuzz
 * suite judges the transport against an independent reading of each line.
 */
import { isUtf8 } from "node:buffer";

export type ReplyId = string | number | undefined;

export interface LineExpectation {
  /** One entry per reply the line must get (undefined = a reply without id). */
  readonly replies: readonly ReplyId[];
  /** Whether the line is a tools/call that the fuzz provider's policy allows (so a child must run). */
  readonly spawns: boolean;
}

/** The allowed call's shape: tool, first argument, and the provider's rule (`accept: [ok-to-run]`). */
export const ALLOWED = { tool: "rec", firstArg: "ok-to-run" } as const;

const NONE: LineExpectation = { replies: [], spawns: false };

/** The expectation for `line` (without its newline) on a server whose limit is `limit` bytes. */
export function expectationFor(line: Buffer, limit: number): LineExpectation {
  const value = withWrittenId(parse(line), line.toString("latin1"));
  if (line.length > limit) return { replies: [isRecord(value) ? scannedId(value, line) : undefined], spawns: false };
  if (/^[ \t\r]*$/u.test(line.toString("latin1"))) return NONE;
  if (value === PARSE_ERROR) return { replies: [undefined], spawns: false };
  if (!isUtf8(line)) return { replies: [isRecord(value) && expectsReply(value) ? scannedId(value, line) : undefined], spawns: false };
  if (Array.isArray(value)) {
    // Each element's id is read as a top-level one is, from the element's own text.
    const texts = elementTexts(line.toString("latin1"));
    const ids = value
      .map((element, index) => withWrittenId(element, texts[index] ?? ""))
      .filter((element) => isRecord(element) && expectsReply(element))
      .map((element) => readableId(element as Record<string, unknown>));
    // docs/mcp-api.md: more than 1,024 of them get one reply without id.
    return { replies: ids.length > 0 && ids.length <= 1024 ? ids : [undefined], spawns: false };
  }
  if (!isRecord(value)) return { replies: [undefined], spawns: false };
  return { replies: expectsReply(value) ? [readableId(value)] : [], spawns: isAllowedCall(value) };
}

const PARSE_ERROR = Symbol("parse error");

/**
 * Stands for a number id whose text is not the integer's own (`1.0`, `1e0`, `-0`, `1.00000000000000001`), or a string
 * id whose bytes are not valid UTF-8 (parsed, they read U+FFFD): never echoed.
 */
const INEXACT_ID = Symbol("inexact id");

/**
 * docs/mcp-api.md: a number id must be written as an integer; JSON.parse reads `1.0` as 1, so the id's text is
 * compared with how JSON writes the number it parsed to; and a string id is echoed only when its bytes are valid
 * UTF-8. An object whose id is not so written keeps INEXACT_ID. `bytes` is the object's text, one char per byte.
 */
function withWrittenId(value: unknown, bytes: string): unknown {
  if (!isRecord(value) || (typeof value.id !== "number" && typeof value.id !== "string")) return value;
  const text = topLevelIdText(bytes);
  const exact = typeof value.id === "number" ? text === JSON.stringify(value.id) : text === undefined || isUtf8(Buffer.from(text, "latin1"));
  return exact ? value : { ...value, id: INEXACT_ID };
}

/** The raw text of the last top-level `id` member's value (the one JSON.parse keeps; a number or a string), by a plain walk of the JSON text. */
function topLevelIdText(json: string): string | undefined {
  let depth = 0;
  let found: string | undefined;
  let index = 0;
  const skipString = (): string => {
    const start = index;
    index += 1;
    while (index < json.length && json[index] !== '"') index += json[index] === "\\" ? 2 : 1;
    index += 1;
    return json.slice(start, index);
  };
  while (index < json.length) {
    const char = json[index] ?? "";
    if (char === '"') {
      const raw = skipString();
      if (depth !== 1) continue;
      let key: unknown;
      try {
        key = JSON.parse(raw);
      } catch {
        continue;
      }
      let after = index;
      while (/\s/u.test(json[after] ?? "")) after += 1;
      if (key !== "id" || json[after] !== ":") continue;
      after += 1;
      while (/\s/u.test(json[after] ?? "")) after += 1;
      if (json[after] === '"') {
        index = after;
        found = skipString();
        continue;
      }
      const token = /^-?[0-9][0-9.eE+-]*/u.exec(json.slice(after));
      found = token?.[0];
      continue;
    }
    if (char === "{" || char === "[") depth += 1;
    else if (char === "}" || char === "]") depth -= 1;
    index += 1;
  }
  return found;
}

/** The text of each element of the JSON array `json` (one JSON.parse accepted), by a plain walk of its text. */
function elementTexts(json: string): string[] {
  const texts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < json.length; index += 1) {
    const char = json[index];
    if (char === '"') {
      index += 1;
      while (index < json.length && json[index] !== '"') index += json[index] === "\\" ? 2 : 1;
    } else if (char === "[" || char === "{") {
      depth += 1;
      if (depth === 1) start = index + 1;
    } else if (char === "]" || char === "}") {
      depth -= 1;
      if (depth === 0) {
        texts.push(json.slice(start, index));
        break;
      }
    } else if (char === "," && depth === 1) {
      texts.push(json.slice(start, index));
      start = index + 1;
    }
  }
  return texts;
}

function parse(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString("utf8")) as unknown;
  } catch {
    return PARSE_ERROR;
  }
}

/** JSON-RPC answers requests and malformed objects, never notifications or responses. */
function expectsReply(value: Record<string, unknown>): boolean {
  const responseLike = !("method" in value) && ("result" in value || "error" in value);
  if (responseLike) return false;
  return "id" in value || typeof value.method !== "string";
}

/**
 * The id of a line too long to keep or not valid UTF-8, which the server reads from the line's bytes as it goes:
 * as readableId, but a string id only when its text (quotes and escapes included) takes at most 513 bytes.
 */
function scannedId(value: Record<string, unknown>, line: Buffer): ReplyId {
  const text = typeof value.id === "string" ? topLevelIdText(line.toString("latin1")) : undefined;
  return text !== undefined && text.length > 513 ? undefined : readableId(value);
}

function readableId(value: Record<string, unknown>): ReplyId {
  const id = value.id;
  if (typeof id === "string") return id;
  // A number read without loss: finite, and not an integer past 2^53 (it would be echoed as a neighbour).
  return typeof id === "number" && Number.isFinite(id) && !(Number.isInteger(id) && !Number.isSafeInteger(id)) ? id : undefined;
}

function isAllowedCall(value: unknown): boolean {
  if (!isRecord(value) || !hasKeys(value, ["jsonrpc", "id", "method", "params"])) return false;
  if (value.jsonrpc !== "2.0" || value.method !== "tools/call") return false;
  if (!(typeof value.id === "string" || Number.isSafeInteger(value.id))) return false;
  const params = value.params;
  // MCP lets params carry more members; the SDK ignores them (the fuzz never sends `_meta` or `task`, which it reads).
  if (!isRecord(params) || params.name !== ALLOWED.tool || "_meta" in params || "task" in params) return false;
  const args = params.arguments;
  if (!isRecord(args) || !hasKeys(args, ["args"]) || !Array.isArray(args.args)) return false;
  const argv: unknown[] = args.args;
  // A token with NUL cannot reach execve; one with a lone surrogate is refused by the transport.
  return argv[0] === ALLOWED.firstArg && argv.every((arg) => typeof arg === "string" && !arg.includes("\u0000") && !/\p{Cs}/u.test(arg));
}

function hasKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => own.includes(key));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether one stdout line is a JSON-RPC 2.0 response or notification, and nothing else. */
export function isJsonRpcLine(raw: Buffer): boolean {
  if (!isUtf8(raw)) return false;
  const value = parse(raw);
  if (!isRecord(value) || value.jsonrpc !== "2.0") return false;
  if (Object.keys(value).some((key) => !["jsonrpc", "id", "method", "params", "result", "error"].includes(key))) return false;
  if (typeof value.method === "string") return !("result" in value || "error" in value);
  const idOk = value.id === undefined || typeof value.id === "string" || typeof value.id === "number";
  const error = value.error;
  const errorOk = isRecord(error) && Number.isInteger(error.code) && typeof error.message === "string";
  return idOk && ("result" in value ? !("error" in value) && value.id !== undefined : errorOk);
}

/**
 * What the server does with one line from its client: deliver it as a
 * JSON-RPC message, answer it with an error, or drop it. Nothing invalid
 * reaches the MCP protocol layer, so nothing invalid can start a tool call.
 *
 * The rules (docs/mcp-api.md, "Transport"):
 * - not JSON, or not UTF-8: -32700, with the id when one can still be read
 *   and its own bytes are valid UTF-8 (JSON-RPC leaves the id null here; MCP's
 *   schema has no null id, so a reply that has no id omits it);
 * - an object with an `id` member that is not a valid message: -32600 with
 *   that id when it is a string or a finite number written as its own text,
 *   else without id;
 * - a number id written otherwise than as a plain integer whose value is one
 *   (`1.00000000000000001`, `1.0`, `1e0`, `-0`; JSON.parse makes them 1, 1,
 *   1, 0): -32600 without id, never run as, nor answered for, that integer;
 * - a number id that is no integer (1.5): -32600 with that id, never run
 *   (one rule, isIntegerId, Torii's own rather than the SDK schema's);
 * - a `notifications/cancelled` whose `requestId` is such a number: dropped
 *   (no reply), it cancels nothing (no request in flight has that id); ids
 *   match as written, in a cancel as in a request and a response;
 * - an invalid notification (string `method`, no `id`) and an invalid
 *   response (`result`/`error`, no `method`): no reply, JSON-RPC never answers
 *   those; anything else that is not a message object: -32600 without id;
 * - a batch (JSON array): MCP 2025-11-25, the version the SDK implements, has
 *   no batches; each element that carries an id gets its own -32600 (its id
 *   read from the element's text, as a top-level one), a batch with none, or
 *   with more than MAX_BATCH_REPLIES, gets one -32600 without id;
 * - strings that are not well-formed UTF-16 (lone surrogates, from `\ud800`
 *   escapes) would reach a child as U+FFFD, not as the policy saw them: -32600;
 * - a request for a method Torii serves (initialize, ping, tools/list,
 *   tools/call) whose params do not fit the method: -32602 with the paths;
 * - a key named `__proto__` anywhere: copied into an object by the SDK it sets
 *   the prototype and vanishes before the envelope check: -32600;
 * - a task-augmented `tools/call` (params with `task`, MCP 2025-11-25 tasks):
 *   Torii declares no `tasks` capability, and the revision says a receiver
 *   without it MUST process the request normally, ignoring the task metadata;
 *   the SDK instead threw -32603 before any handler. `task` is removed here and
 *   the call runs (through the policy) as a plain call.
 */
import { isUtf8 } from "node:buffer";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type * as z from "zod";
import { memberText } from "./member-text.js";
import { arrayElements, echoableId, topLevelIdOf } from "./top-level-id.js";
import { contentProblem } from "./well-formed.js";

/** An error reply the transport writes itself. */
export interface ErrorReply {
  readonly jsonrpc: "2.0";
  readonly id?: RequestId;
  readonly error: { readonly code: number; readonly message: string };
}

export type Inbound =
  | { readonly kind: "message"; readonly message: JSONRPCMessage }
  | { readonly kind: "reject"; readonly replies: readonly ErrorReply[]; readonly reason: string };

const KNOWN_FIELDS = new Set(["jsonrpc", "id", "method", "params", "result", "error"]);

/** Builds an error reply; `id` is left out when it could not be read. */
export function errorReply(code: number, message: string, id: RequestId | undefined): ErrorReply {
  return id === undefined ? { jsonrpc: "2.0", error: { code, message } } : { jsonrpc: "2.0", id, error: { code, message } };
}

/** Classifies one line (without its newline; a trailing CR is ignored). Blank lines yield undefined. */
export function readInbound(line: Buffer): Inbound | undefined {
  const bytes = line.at(-1) === 0x0d ? line.subarray(0, -1) : line;
  const text = bytes.toString("utf8");
  if (/^[ \t\r]*$/u.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reject("not valid JSON", [errorReply(ErrorCode.ParseError, "Parse error: the line is not valid JSON", undefined)]);
  }
  // A number id as read from the line's text (scanned once): isIntegerId's check, and the id a refusal may echo.
  const numberId = isRecord(value) && typeof value.id === "number" ? { value: value.id, written: topLevelIdOf(bytes) } : undefined;
  const inexactId = numberId !== undefined && !isIntegerId(numberId.value, numberId.written);
  if (!isUtf8(bytes)) {
    // The id as read from the line's bytes: one holding invalid bytes was parsed with U+FFFD in their place, an id
    // the client never sent (and maybe that of another of its requests).
    const id = expectsReply(value) && topLevelIdOf(bytes) === readableId(value) ? readableId(value) : undefined;
    return reject("not valid UTF-8", [errorReply(ErrorCode.ParseError, "Parse error: the line is not valid UTF-8", id)]);
  }
  if (Array.isArray(value)) return readBatch(value, bytes);
  // JSON.parse reads 1.00000000000000001 (and 1.0, 1e0) as 1: run or answered, that request would take the id 1 the client never
  // sent, and its reply could be taken for request 1's. An id is a string or an integer written as one (isIntegerId): such an id
  // is echoed by no reply; a fraction written as its own text (1.5) is echoed, it names no other id.
  if (inexactId && isRecord(value)) {
    const echoed = numberId.written === numberId.value ? numberId.value : undefined;
    return rejectUnlessSilent(value, "a number id must be written as an integer (no fraction, exponent or -0)", echoed);
  }
  // A cancel names its request by id as well, read by the SDK (and the hold) from the parsed value: `requestId` 1.0 would stop
  // request 1. Ids match as written, as a response's does (send() frees the id it answers): such a cancel cancels nothing.
  if (isRecord(value) && inexactCancelTarget(value, bytes))
    return rejectUnlessSilent(value, "a cancel's number requestId must be written as an integer (no fraction, exponent or -0)", undefined);
  return readMessage(value);
}

/**
 * Whether `value` (parsed from `line`) is a `notifications/cancelled` whose number `requestId` is not written as its
 * own integer (`1.0`, `1e0`, `-0`, `1E2`, an integer past 2^53): no request in flight has that id, since a request's
 * id is refused unless written so, and the parsed value would name another request.
 */
function inexactCancelTarget(value: Record<string, unknown>, line: Buffer): boolean {
  const { params } = value;
  if (value.method !== "notifications/cancelled" || "id" in value || !isRecord(params) || typeof params.requestId !== "number") return false;
  const paramsText = memberText(line, "params");
  const written = paramsText === undefined ? undefined : memberText(paramsText, "requestId");
  return written === undefined || !isIntegerId(params.requestId, written.toString("utf8"));
}

/**
 * The one rule for a number id, in a request and in a cancel's `requestId` alike: an integer JSON.parse reads without loss
 * (a safe integer), written as its own text (`written`: the id's text, or the value topLevelIdOf read back from it). JSON-RPC
 * says ids SHOULD NOT have fractions and MCP's SDK declares integer ids; a fractional id (1.5) is refused as a request id
 * (-32600), so no request in flight ever has one, and a cancel naming one cancels nothing.
 */
function isIntegerId(value: number, written: string | number | undefined): boolean {
  return Number.isSafeInteger(value) && (typeof written === "number" ? written === value : written === String(value));
}

/**
 * A batch with more elements that expect a reply gets one reply without id: one line of `[{"id":1},…]` would
 * otherwise make 9 bytes of input a reply of about 120 (held, while stdout is full, as that many held lines).
 */
export const MAX_BATCH_REPLIES = 1024;

/** Each element that expects a reply gets one, with its id read as a top-level message's is (from the element's own text). */
function readBatch(elements: readonly unknown[], bytes: Buffer): Inbound {
  const message = "Invalid Request: JSON-RPC batches are not supported (MCP 2025-11-25)";
  if (elements.filter(expectsReply).length > MAX_BATCH_REPLIES)
    return reject("a batch", [
      errorReply(ErrorCode.InvalidRequest, `${message}; a batch of more than ${MAX_BATCH_REPLIES} requests gets this one reply`, undefined),
    ]);
  const texts = arrayElements(bytes);
  const replies = elements.flatMap((element, index) => {
    if (!expectsReply(element)) return [];
    return [errorReply(ErrorCode.InvalidRequest, message, writtenId(element, texts[index]))];
  });
  return reject("a batch", replies.length > 0 ? replies : [errorReply(ErrorCode.InvalidRequest, message, undefined)]);
}

/** The id a reply may echo: as readableId, but a number only when its text (`bytes`) is the integer's own, as for a top-level id. */
function writtenId(value: Record<string, unknown>, bytes: Buffer | undefined): RequestId | undefined {
  if (typeof value.id === "number" && (bytes === undefined || topLevelIdOf(bytes) !== value.id)) return undefined;
  return readableId(value);
}

function readMessage(value: unknown): Inbound {
  if (!isRecord(value)) return reject("not an object", [invalid("not a JSON-RPC message object", undefined)]);
  const delivered = withoutTaskAugmentation(value);
  const parsed = JSONRPCMessageSchema.safeParse(delivered);
  if (parsed.success) {
    const problem = contentProblem(value);
    if (problem !== undefined) return rejectUnlessSilent(value, problem, readableId(value));
    const params = paramsProblem(delivered);
    if (params !== undefined) return reject(`invalid params for ${params.method}`, [errorReply(ErrorCode.InvalidParams, params.message, readableId(value))]);
    return { kind: "message", message: parsed.data };
  }
  return rejectUnlessSilent(value, problemOf(value), readableId(value));
}

/**
 * A `tools/call` request without its `params.task` (the same object when it has none). Torii's server
 * declares no `tasks` capability, so MCP 2025-11-25 (Tasks, "Task Support and Handling") requires the
 * request be processed normally with the task metadata ignored, whatever its shape.
 */
function withoutTaskAugmentation(value: Record<string, unknown>): Record<string, unknown> {
  const { params } = value;
  if (value.method !== "tools/call" || !("id" in value) || !isRecord(params) || !Object.hasOwn(params, "task")) return value;
  const rest = { ...params };
  delete rest.task;
  return { ...value, params: rest };
}

/**
 * The requests Torii serves, by method, with the SDK's schema for each. The SDK
 * checks a request against it only inside the protocol layer, where a failure
 * is thrown as a ZodError and answered -32603 (an internal error) with the raw
 * issue list; here it is -32602 with the paths and messages.
 */
const SERVED_REQUESTS = new Map<string, z.ZodType>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

/** The -32602 message for a served request whose params do not fit its method; undefined when they do (or for any other message). */
function paramsProblem(value: Record<string, unknown>): { method: string; message: string } | undefined {
  if (!("id" in value) || typeof value.method !== "string") return undefined;
  const schema = SERVED_REQUESTS.get(value.method);
  const issues = schema?.safeParse(value).error?.issues;
  if (issues === undefined) return undefined;
  const named = issues.map((issue) => `${issue.path.map(String).join(".") || "(request)"}: ${issue.message}`).join("; ");
  return { method: value.method, message: `Invalid params for ${value.method}: ${named}` };
}

/** An invalid message is answered only when JSON-RPC expects an answer to it. */
function rejectUnlessSilent(value: Record<string, unknown>, problem: string, id: RequestId | undefined): Inbound {
  if (!expectsReply(value)) return reject(`${problem} (no reply: ${"method" in value ? "a notification" : "a response"})`, []);
  return reject(problem, [invalid(problem, id)]);
}

/** Requests and anything that is neither a notification nor a response get a reply. */
function expectsReply(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  if ("id" in value) return !isResponseLike(value);
  return typeof value.method !== "string" && !isResponseLike(value);
}

function isResponseLike(value: Record<string, unknown>): boolean {
  return !("method" in value) && ("result" in value || "error" in value);
}

function readableId(value: Record<string, unknown>): RequestId | undefined {
  return echoableId(value.id);
}

/** The first thing wrong with a message object, named without echoing any of its content. */
function problemOf(value: Record<string, unknown>): string {
  if (value.jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if ("id" in value && !(typeof value.id === "string" || Number.isSafeInteger(value.id))) return "id must be a string or an integer";
  if ("method" in value && typeof value.method !== "string") return "method must be a string";
  if ("params" in value && !isRecord(value.params)) return "params must be an object";
  if (Object.keys(value).some((key) => !KNOWN_FIELDS.has(key))) return "unknown top-level field";
  return "not a valid JSON-RPC request, notification or response";
}

function invalid(problem: string, id: RequestId | undefined): ErrorReply {
  return errorReply(ErrorCode.InvalidRequest, `Invalid Request: ${problem}`, id);
}

function reject(reason: string, replies: readonly ErrorReply[]): Inbound {
  return { kind: "reject", replies, reason };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

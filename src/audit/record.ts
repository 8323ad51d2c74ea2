/**
 * One audit record: what a caller may put in it, how the writer sanitises and
 * seals it into a hash-chained JSON line, and how a reader checks a line.
 *
 * A record is `{v, time, call_id, scope, event, rule?, source?, policy_hash?,
 * argv_head?, detail?, exit_code?, duration_ms?, truncated?, timed_out?, prev,
 * hash}`, written as compact JSON with the fields in exactly that order.
 * `hash` is the SHA-256 (hex) of the line's JSON without `hash` (the same
 * fields, same order; `jq -c 'del(.hash)'` reproduces it), and `prev` is the
 * SHA-256 of the previous record's line (64 zeros for the first record).
 *
 * What may reach the log is decided here, by construction: the writer copies
 * only the fields named in AuditInput (an object carrying anything else loses
 * it), keeps at most the first two argv tokens and none from the first option
 * on (argv-head.ts: an option's value may be a secret), cuts every string to a short
 * limit and replaces control, line-separator and bidi characters. There is no
 * field for output, credentials or `.env` values.
 */
import { hash as oneShotHash } from "node:crypto";
import * as z from "zod";
import { auditArgvHead } from "./argv-head.js";
import { AUDIT_EVENTS, AUDIT_EVENT_SHAPE, type AuditEvent } from "./events.js";

export const AUDIT_FORMAT_VERSION = 1;

/** The `prev` of the first record of a log written before heads (head.ts) existed. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * The `prev` of the first record of a log anchored by a head from its start:
 * `verify` then knows that a head found missing later was deleted or lost, not
 * that of a log from before heads.
 */
export const ANCHORED_GENESIS_HASH = sha256Hex("torii-audit-v1: anchored by audit.head from its first record");

/** Length limits, in Unicode code points. */
export const AUDIT_LIMITS = Object.freeze({
  callId: 64,
  scope: 200,
  rule: 200,
  source: 64,
  detail: 200,
  argvTokens: 2,
  argvToken: 64,
});

/** What a caller hands to AuditLog.append. Field names are the record's. */
export interface AuditInput {
  /** Identifies the call; every record of one call shares it. */
  readonly call_id: string;
  /** `provider` or `provider/target`. */
  readonly scope: string;
  readonly event: AuditEvent;
  /** The deciding rule's text; cut to 200 characters. */
  readonly rule?: string;
  /** The decision source (`rules`, `grant`, `human-once`, …). */
  readonly source?: string;
  /** SHA-256 (64 lowercase hex digits) of the policy files in force, computed by the caller. */
  readonly policy_hash?: string;
  /**
   * The call's argv (canonical positionals where the grammar is known): the
   * writer keeps at most the first two tokens before any option-like token,
   * each cut to 64 characters.
   */
  readonly argv_head?: readonly string[];
  /** A short, non-secret note (`exit 3`, `timed out`, a file path); cut to 200 characters. */
  readonly detail?: string;
  /** The child's exit code; null when it was ended by a signal. */
  readonly exit_code?: number | null;
  /** Wall-clock duration in milliseconds; rounded. */
  readonly duration_ms?: number;
  /** True when the output was cut at the cap. */
  readonly truncated?: boolean;
  /** True when the call hit its time limit. */
  readonly timed_out?: boolean;
}

/** A record as stored. `event` is a string: a newer Torii may write events this one does not know. */
export interface AuditRecord extends Omit<AuditInput, "event"> {
  readonly v: typeof AUDIT_FORMAT_VERSION;
  /** ISO-8601 UTC with milliseconds, taken while the writer holds the lock. */
  readonly time: string;
  readonly event: string;
  /** SHA-256 (hex) of the previous record's line; 64 zeros for the first record. */
  readonly prev: string;
  /** SHA-256 (hex) of this record's canonical JSON without `hash`. */
  readonly hash: string;
}

/** The record's fields in their one written order. */
export const AUDIT_FIELD_ORDER = [
  "v",
  "time",
  "call_id",
  "scope",
  "event",
  "rule",
  "source",
  "policy_hash",
  "argv_head",
  "detail",
  "exit_code",
  "duration_ms",
  "truncated",
  "timed_out",
  "prev",
  "hash",
] as const satisfies readonly (keyof AuditRecord)[];

/** A record's content before it is timed and chained. */
export type AuditFields = Omit<AuditRecord, "v" | "time" | "prev" | "hash">;

const HEX64 = /^[0-9a-f]{64}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/**
 * C0 and C1 controls (newlines, escape sequences), DEL, line and paragraph
 * separators, every bidi formatting character (the marks U+061C, U+200E,
 * U+200F, the embeddings, overrides and isolates: they reorder text in a
 * terminal), and lone surrogates.
 */
const UNSAFE_CHARACTERS = new RegExp(
  "[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]" +
    "|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]",
  "g",
);

/** Replaces characters that could forge lines or reorder text on a terminal, and cuts to `max` code points. */
export function sanitiseAuditText(value: string, max: number): string {
  const safe = value.replace(UNSAFE_CHARACTERS, "_");
  // A string of at most `max` UTF-16 units has at most `max` code points: no need to split it.
  if (safe.length <= max) return safe;
  const points = Array.from(safe);
  return points.length <= max ? safe : points.slice(0, max).join("");
}

/**
 * JSON text with every character sanitiseAuditText would replace written as a
 * `\uXXXX` escape: the same JSON value, safe to print on a terminal.
 * JSON.stringify escapes C0 controls but leaves DEL, C1 controls (U+009B is
 * a CSI), U+2028/U+2029 and bidi overrides raw, and a forged or edited record
 * may hold them (the writer never writes them, so a genuine line is unchanged).
 */
export function escapeUnsafeJson(json: string): string {
  return json.replace(UNSAFE_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Copies, checks and sanitises a caller's input. Only the fields of
 * AuditInput are read, so nothing else an object carries can reach the log.
 *
 * @throws TypeError naming the field (never its value) when a field has the wrong
 *   type, `call_id` or `scope` is empty, `event` is unknown, `policy_hash` is not
 *   64 lowercase hex digits, or a number is not a whole/finite one.
 */
export function auditFields(input: AuditInput): AuditFields {
  const text = (field: keyof AuditInput, value: unknown, max: number): string => {
    if (typeof value !== "string") throw new TypeError(`audit record: ${field} must be a string`);
    return sanitiseAuditText(value, max);
  };
  const flag = (field: keyof AuditInput, value: unknown): boolean => {
    if (typeof value !== "boolean") throw new TypeError(`audit record: ${field} must be a boolean`);
    return value;
  };
  const callId = text("call_id", input.call_id, AUDIT_LIMITS.callId);
  const scope = text("scope", input.scope, AUDIT_LIMITS.scope);
  if (callId === "" || scope === "") throw new TypeError("audit record: call_id and scope must not be empty");
  if (!(AUDIT_EVENTS as readonly string[]).includes(input.event)) throw new TypeError("audit record: event is not a known audit event");

  const fields: { -readonly [K in keyof AuditFields]: AuditFields[K] } = { call_id: callId, scope, event: input.event };
  if (input.rule !== undefined) fields.rule = text("rule", input.rule, AUDIT_LIMITS.rule);
  if (input.source !== undefined) fields.source = text("source", input.source, AUDIT_LIMITS.source);
  if (input.policy_hash !== undefined) {
    if (typeof input.policy_hash !== "string" || !HEX64.test(input.policy_hash)) {
      throw new TypeError("audit record: policy_hash must be 64 lowercase hex digits");
    }
    fields.policy_hash = input.policy_hash;
  }
  if (input.argv_head !== undefined) {
    if (!Array.isArray(input.argv_head)) throw new TypeError("audit record: argv_head must be an array");
    const head = auditArgvHead(input.argv_head, AUDIT_LIMITS.argvTokens);
    if (head.length > 0) fields.argv_head = head.map((token) => text("argv_head", token, AUDIT_LIMITS.argvToken));
  }
  if (input.detail !== undefined) fields.detail = text("detail", input.detail, AUDIT_LIMITS.detail);
  if (input.exit_code !== undefined) {
    if (input.exit_code !== null && !Number.isSafeInteger(input.exit_code)) {
      throw new TypeError("audit record: exit_code must be a whole number or null");
    }
    fields.exit_code = input.exit_code;
  }
  if (input.duration_ms !== undefined) {
    if (typeof input.duration_ms !== "number" || !Number.isFinite(input.duration_ms) || input.duration_ms < 0) {
      throw new TypeError("audit record: duration_ms must be a finite number of at least 0");
    }
    fields.duration_ms = Math.round(input.duration_ms);
  }
  if (input.truncated !== undefined) fields.truncated = flag("truncated", input.truncated);
  if (input.timed_out !== undefined) fields.timed_out = flag("timed_out", input.timed_out);
  return fields;
}

/**
 * The sealed line alone, for the writer: `hash` is the last field, so the
 * line is the unsigned JSON with `,"hash":"…"}` in place of its closing brace
 * (byte for byte what canonicalJson of the whole record gives), built with one
 * serialisation instead of two.
 */
export function sealAuditLine(fields: AuditFields, time: Date, prev: string): { line: string; hash: string } {
  // `prev` is 64 hex digits (a digest): no escaping.
  const unsigned = `{"v":${AUDIT_FORMAT_VERSION},"time":"${time.toISOString()}"${jsonMembers(fields, CONTENT_FIELDS)},"prev":"${prev}"}`;
  const hash = sha256Hex(unsigned);
  return { line: `${unsigned.slice(0, -1)},"hash":"${hash}"}`, hash };
}

/** The fields between `time` and `prev`: what a caller's AuditFields hold. */
const CONTENT_FIELDS = AUDIT_FIELD_ORDER.slice(2, -2);

/**
 * Compact JSON with the fields in AUDIT_FIELD_ORDER; absent fields are left
 * out. The text is what `JSON.stringify` gives for an object with those keys
 * in that order, built member by member: an object assembled key by key for
 * each record shape, then serialised, cost about half of sealing a record.
 */
export function canonicalJson(record: Partial<AuditRecord>): string {
  const members = jsonMembers(record, AUDIT_FIELD_ORDER);
  return members === "" ? "{}" : `{${members.slice(1)}}`;
}

/** `,"name":value` for each of `fields` present in `record`, in that order (the names are plain ASCII: no escaping). */
function jsonMembers(record: Partial<AuditRecord>, fields: readonly (keyof AuditRecord)[]): string {
  let members = "";
  for (const field of fields) {
    const value = record[field];
    if (value !== undefined) members += `,"${field}":${JSON.stringify(value)}`;
  }
  return members;
}

/**
 * SHA-256 in hex (a string is hashed as UTF-8). Node's one-shot `hash` builds
 * no Hash object: each record costs two of these per append, on the call path.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShotHash("sha256", data, "hex");
}

const limited = (max: number) => z.string().refine((value) => Array.from(value).length <= max, { error: `longer than ${max} characters` });

const storedRecordSchema = z.strictObject({
  v: z.literal(AUDIT_FORMAT_VERSION),
  time: z.string().regex(ISO_TIME, { error: "not an ISO-8601 UTC time" }),
  call_id: limited(AUDIT_LIMITS.callId).min(1),
  scope: limited(AUDIT_LIMITS.scope).min(1),
  event: z.string().regex(AUDIT_EVENT_SHAPE, { error: "not an event name" }),
  rule: limited(AUDIT_LIMITS.rule).optional(),
  source: limited(AUDIT_LIMITS.source).optional(),
  policy_hash: z.string().regex(HEX64, { error: "not a SHA-256 hex digest" }).optional(),
  argv_head: z.array(limited(AUDIT_LIMITS.argvToken)).max(AUDIT_LIMITS.argvTokens).optional(),
  detail: limited(AUDIT_LIMITS.detail).optional(),
  exit_code: z.int().nullable().optional(),
  duration_ms: z.int().min(0).optional(),
  truncated: z.boolean().optional(),
  timed_out: z.boolean().optional(),
  prev: z.string().regex(HEX64, { error: "not a SHA-256 hex digest" }),
  hash: z.string().regex(HEX64, { error: "not a SHA-256 hex digest" }),
});

/** What a reader makes of one line of the log. */
export type AuditLineCheck =
  /** A record exactly as Torii writes it, whose hash matches its content. `digest` is the next record's `prev`. */
  | { readonly kind: "record"; readonly record: AuditRecord; readonly digest: string }
  /** A well-formed record whose hash or layout does not match: it was changed after it was written. */
  | { readonly kind: "edited"; readonly record: AuditRecord; readonly reason: string }
  /** JSON, but not an audit record. */
  | { readonly kind: "invalid"; readonly reason: string }
  /** Not UTF-8 JSON at all: an interrupted append, or garbage. */
  | { readonly kind: "unreadable"; readonly reason: string };

/**
 * `ignoreBOM` keeps a byte-order mark in the text (JSON.parse then refuses
 * it): the default drops it, and a line with one put before it read as the
 * intact record while its digest (of the bytes) no longer was the record's.
 */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Checks one line (without its newline) of the log. Reasons never quote the line. */
export function checkAuditLine(bytes: Uint8Array): AuditLineCheck {
  // Said without parsing: a log damaged into many blank lines would otherwise throw a parse error per line.
  if (bytes.length === 0) return { kind: "unreadable", reason: "empty line" };
  let parsed: unknown;
  let text: string;
  try {
    text = UTF8.decode(bytes);
    parsed = JSON.parse(text);
  } catch {
    return { kind: "unreadable", reason: "not a JSON line" };
  }
  const result = storedRecordSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `;
    return { kind: "invalid", reason: `not an audit record (${sanitiseAuditText(where + (issue?.message ?? "invalid"), 120)})` };
  }
  // JSON has no undefined values, so no optional field is present-but-undefined.
  const record = result.data as AuditRecord;
  if (canonicalJson(record) !== text) {
    return { kind: "edited", record, reason: "not laid out as Torii writes records (reformatted or re-ordered)" };
  }
  const { hash, ...unsigned } = record;
  if (sha256Hex(canonicalJson(unsigned)) !== hash) {
    return { kind: "edited", record, reason: "hash does not match the record's content (edited)" };
  }
  return { kind: "record", record, digest: sha256Hex(bytes) };
}

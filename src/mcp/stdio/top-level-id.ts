/**
 * Reads the top-level `"id"` of a JSON object that arrives in pieces and is
 * never held whole: the bounded line reader feeds it the bytes of a line too
 * long to keep, so the error for that line can carry the request's id (the SDK
 * client writes `id` last, after `params`, so a prefix would not do).
 *
 * One pass, constant memory: a depth counter, string/escape state, and at most
 * a few hundred bytes of the current key or id value. The id is reported only
 * when the object closes at depth 0 followed by nothing but whitespace, so a
 * truncated line yields no id; as in `JSON.parse`, the last `"id"` key wins.
 */
import { isUtf8 } from "node:buffer";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { BACKSLASH, COLON, COMMA, isDelimiter, isWhitespace, QUOTE } from "./json-bytes.js";

const MAX_KEY_BYTES = 16;
const MAX_ID_BYTES = 512;

type Capture = "key" | "id" | undefined;

/** Feed with `scan()` in order, then ask `id()` once the line has ended. */
export class TopLevelIdScanner {
  private depth = 0;
  private started = false;
  private broken = false;
  private closed = false;
  private inString = false;
  private escaped = false;
  private expectingKey = false;
  private afterColon = false;
  private keyIsId = false;
  private capture: Capture;
  private bytes: number[] = [];
  private overflow = false;
  private scalar = false;
  private found: RequestId | undefined;

  scan(chunk: Buffer): void {
    // Inside a string nothing matters but its end, so the bulk of a long
    // string is skipped with indexOf; the found positions are reused until
    // passed, which keeps a string full of backslashes linear too.
    let quote = -1;
    let backslash = -1;
    let index = 0;
    while (index < chunk.length && !this.broken) {
      if (this.inString && !this.escaped && this.capture === undefined) {
        if (quote !== -2 && quote < index) quote = orEnd(chunk.indexOf(QUOTE, index));
        if (backslash !== -2 && backslash < index) backslash = orEnd(chunk.indexOf(BACKSLASH, index));
        index = Math.min(quote === -2 ? chunk.length : quote, backslash === -2 ? chunk.length : backslash);
        if (index >= chunk.length) return;
      }
      this.step(chunk[index] ?? 0);
      index += 1;
    }
  }

  /** The top-level id (string or finite number), when the line was one complete object that had one. */
  id(): RequestId | undefined {
    if (this.scalar) this.endScalar();
    return this.closed && !this.broken ? this.found : undefined;
  }

  private step(byte: number): void {
    if (this.inString) {
      this.stringByte(byte);
      return;
    }
    if (this.scalar) {
      if (!isDelimiter(byte)) {
        this.keep(byte);
        return;
      }
      this.endScalar();
    }
    if (isWhitespace(byte)) return;
    if (this.closed) {
      this.broken = true; // something after the object: not one JSON value
      return;
    }
    if (!this.started) {
      this.started = true;
      if (byte !== 0x7b) this.broken = true; // not an object
    }
    this.structural(byte);
  }

  private structural(byte: number): void {
    const topLevel = this.depth === 1;
    const idValueStarts = topLevel && this.afterColon && this.keyIsId;
    switch (byte) {
      case 0x7b: // {
      case 0x5b: // [
        if (idValueStarts) this.setId(undefined);
        this.depth += 1;
        this.expectingKey = this.depth === 1;
        this.afterColon = false;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        this.depth -= 1;
        if (this.depth === 0) this.closed = true;
        if (this.depth < 0) this.broken = true;
        return;
      case QUOTE:
        this.inString = true;
        if (topLevel && this.expectingKey) this.begin("key", QUOTE);
        else if (idValueStarts) this.begin("id", QUOTE);
        return;
      case COLON:
        if (topLevel) [this.afterColon, this.expectingKey] = [true, false];
        return;
      case COMMA:
        if (topLevel) [this.afterColon, this.expectingKey, this.keyIsId] = [false, true, false];
        return;
      default:
        if (idValueStarts) {
          this.begin("id", byte);
          this.scalar = true;
        }
    }
  }

  private stringByte(byte: number): void {
    if (this.capture !== undefined) this.keep(byte);
    if (this.escaped) this.escaped = false;
    else if (byte === BACKSLASH) this.escaped = true;
    else if (byte === QUOTE) {
      this.inString = false;
      if (this.capture === "key") this.keyIsId = this.decodeCaptured() === "id";
      else if (this.capture === "id") this.setId(this.decodeCaptured());
      this.capture = undefined;
    }
  }

  private begin(capture: Capture, first: number): void {
    this.capture = capture;
    this.bytes = [first];
    this.overflow = false;
  }

  private keep(byte: number): void {
    const limit = this.capture === "key" ? MAX_KEY_BYTES : MAX_ID_BYTES;
    if (this.bytes.length > limit) this.overflow = true;
    else this.bytes.push(byte);
  }

  private endScalar(): void {
    this.scalar = false;
    this.setId(this.decodeCaptured(), this.overflow ? undefined : Buffer.from(this.bytes).toString("utf8"));
    this.capture = undefined;
  }

  /**
   * The captured JSON token (a quoted string or a scalar), decoded; undefined when too long, not JSON, or not
   * valid UTF-8: decoded, its invalid bytes would become U+FFFD, an id the client never sent.
   */
  private decodeCaptured(): unknown {
    const bytes = Buffer.from(this.bytes);
    if (this.overflow || !isUtf8(bytes)) return undefined;
    try {
      return JSON.parse(bytes.toString("utf8")) as unknown;
    } catch {
      return undefined;
    }
  }

  private setId(value: unknown, text?: string): void {
    this.found = echoableId(value, text);
    this.afterColon = false;
    this.keyIsId = false;
  }
}

/** indexOf's "not found" as -2, so it is never mistaken for a position still ahead. */
function orEnd(position: number): number {
  return position === -1 ? -2 : position;
}

/**
 * An id an error reply may carry: a string, or a number read without loss. An integer past 2^53
 * (9007199254740993) parses to a neighbour (9007199254740992): echoed, the reply would name an id
 * the client never sent, and a client keeping exact ids could take it for another request's. So
 * does a number written otherwise than its own text (`1.00000000000000001`, `1.0`, `1e0` and `-0`
 * parse to 1, 1, 1 and 0): given the `text` it was read from, a number is echoed only when that text
 * is the one JSON.stringify writes for it.
 */
export function echoableId(value: unknown, text?: string): RequestId | undefined {
  if (typeof value === "string") return value;
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) return undefined;
  return text === undefined || text === String(value) ? value : undefined;
}

/** The top-level id of one whole line, read from its text as `TopLevelIdScanner` does. */
export function topLevelIdOf(line: Buffer): RequestId | undefined {
  const scanner = new TopLevelIdScanner();
  scanner.scan(line);
  return scanner.id();
}

/**
 * The bytes of each element of a JSON array, in order (each with the whitespace around it). `line` must be one
 * JSON array that JSON.parse accepted: the walk only tracks strings and depth, and does not validate.
 */
export function arrayElements(line: Buffer): Buffer[] {
  const elements: Buffer[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = 0;
  for (let index = 0; index < line.length; index += 1) {
    const byte = line[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === BACKSLASH) escaped = true;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      depth += 1;
      if (depth === 1) start = index + 1;
    } else if (byte === 0x7d || byte === 0x5d) {
      depth -= 1;
      if (depth === 0) {
        // `[]` (blank inside) has no element.
        const last = line.subarray(start, index);
        if (elements.length > 0 || !/^[ \t\r\n]*$/u.test(last.toString("latin1"))) elements.push(last);
        return elements;
      }
    } else if (byte === COMMA && depth === 1) {
      elements.push(line.subarray(start, index));
      start = index + 1;
    }
  }
  return elements;
}

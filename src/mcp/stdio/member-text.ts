/**
 * The text of one member of a JSON object, as the client wrote it. JSON.parse
 * keeps only a number's value: `1.0`, `1e0` and `1` all read 1, `-0` reads 0,
 * and an integer past 2^53 reads as a neighbour. The transport matches request
 * ids by what was written, not by that value (./inbound.ts), so an id nested in
 * a message (a cancel's `params.requestId`) is read again from the line's bytes.
 *
 * Only for a line that JSON.parse accepted: the walk tracks strings, nesting
 * and the object's own keys, and does not validate. As in JSON.parse, the last
 * member with the key wins; keys are compared once their escapes are decoded.
 */
import { BACKSLASH, COLON, COMMA, isDelimiter, isWhitespace, QUOTE } from "./json-bytes.js";

/** The bytes of the value of `object`'s member `key` (without the whitespace around it); undefined when it has none or is no object. */
export function memberText(object: Buffer, key: string): Buffer | undefined {
  let index = skipWhitespace(object, 0);
  if (object[index] !== 0x7b) return undefined;
  let found: Buffer | undefined;
  index += 1;
  for (;;) {
    index = skipWhitespace(object, index);
    if (object[index] !== QUOTE) return found; // the `}` of an empty object
    const keyEnd = stringEnd(object, index);
    const named = keyIs(object.subarray(index, keyEnd), key);
    index = skipWhitespace(object, keyEnd);
    if (object[index] !== COLON) return undefined;
    const valueStart = skipWhitespace(object, index + 1);
    const valueEnd = valueEndOf(object, valueStart);
    if (named) found = object.subarray(valueStart, valueEnd);
    index = skipWhitespace(object, valueEnd);
    if (object[index] !== COMMA) return found;
    index += 1;
  }
}

/** Whether the quoted `token` decodes to `key`; a token too long to be `key` however escaped is not decoded. */
function keyIs(token: Buffer, key: string): boolean {
  // Each UTF-16 unit of the key takes at most 6 bytes written (`\uXXXX`), 2 more for the quotes.
  if (token.length > 6 * key.length + 2) return false;
  try {
    return JSON.parse(token.toString("utf8")) === key;
  } catch {
    return false;
  }
}

/** The index just past the string that starts (with its quote) at `start`. */
function stringEnd(json: Buffer, start: number): number {
  for (let index = start + 1; index < json.length; index += 1) {
    const byte = json[index];
    if (byte === BACKSLASH) index += 1;
    else if (byte === QUOTE) return index + 1;
  }
  return json.length;
}

/** The index just past the value that starts at `start`. */
function valueEndOf(json: Buffer, start: number): number {
  const first = json[start];
  if (first === QUOTE) return stringEnd(json, start);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let index = start; index < json.length; index += 1) {
      const byte = json[index];
      if (byte === QUOTE) index = stringEnd(json, index) - 1;
      else if (byte === 0x7b || byte === 0x5b) depth += 1;
      else if (byte === 0x7d || byte === 0x5d) {
        depth -= 1;
        if (depth === 0) return index + 1;
      }
    }
    return json.length;
  }
  let index = start;
  while (index < json.length && !isDelimiter(json[index])) index += 1;
  return index;
}

function skipWhitespace(json: Buffer, start: number): number {
  let index = start;
  while (index < json.length && isWhitespace(json[index])) index += 1;
  return index;
}

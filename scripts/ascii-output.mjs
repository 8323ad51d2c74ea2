// Keeps the built JavaScript ASCII. V8 stores a module's source as a one-byte
// string only when every character fits in Latin-1, and keeps that source for
// the module's life (lazy functions are compiled from it): one em dash in a
// comment doubles the memory of a whole chunk. esbuild already writes strings,
// templates and identifiers as ASCII escapes (its default `charset: "ascii"`),
// but it copies comments as they are, and regular expression literals too.
//
// A character in a comment is replaced by one ASCII look-alike per UTF-16 unit,
// so every column after it (and so the source map) stays where it was. Any
// other non-ASCII character is code, which this step never changes: the build
// fails and names the file, line and column. The comments are found by acorn's
// parser, not by a pattern: `//` inside a string or a regular expression is not one.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "acorn";

/** ASCII stand-ins for the characters our sources and dependencies write in comments; anything else becomes "?". */
const LOOK_ALIKES = new Map([
  ["\u2014", "-"],
  ["\u2013", "-"],
  ["\u2026", "."],
  ["\u2018", "'"],
  ["\u2019", "'"],
  ["\u201C", '"'],
  ["\u201D", '"'],
  ["\u2192", ">"],
  ["\u2190", "<"],
  ["\u00A0", " "],
  ["\u00D7", "x"],
  ["\u2264", "<"],
  ["\u2265", ">"],
]);

/** A non-ASCII character outside any comment of a built file. */
export class NonAsciiCodeError extends Error {
  constructor(file, line, column, character) {
    const codePoint = `U+${character.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    super(`${file}:${line}:${column}: ${codePoint} is outside a comment; write it as an escape in the source (the build keeps its output ASCII)`);
    this.name = "NonAsciiCodeError";
  }
}

/** 1-based line and column (in UTF-16 units, as editors and source maps count) of `offset` in `text`. */
function positionOf(text, offset) {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/**
 * `text` (the JavaScript module `file`) with every non-ASCII character in a
 * comment replaced by ASCII of the same UTF-16 length; throws NonAsciiCodeError
 * for one anywhere else.
 */
export function asciiOnly(text, file) {
  if (!/[\u0080-\uFFFF]/.test(text)) return text;
  const comments = [];
  parse(text, { ecmaVersion: "latest", sourceType: file.endsWith(".cjs") ? "script" : "module", allowHashBang: true, onComment: comments });
  const inComment = (offset) => comments.some((comment) => comment.start <= offset && offset < comment.end);
  return text.replace(/[\u0080-\uFFFF]/g, (character, offset) => {
    if (!inComment(offset)) {
      const { line, column } = positionOf(text, offset);
      throw new NonAsciiCodeError(file, line, column, character);
    }
    return LOOK_ALIKES.get(character) ?? "?";
  });
}

/** Rewrites every .js and .cjs file directly in `directories` through asciiOnly. */
export function keepOutputAscii(directories) {
  for (const directory of directories) {
    for (const name of readdirSync(directory).filter((entry) => entry.endsWith(".js") || entry.endsWith(".cjs"))) {
      const file = path.join(directory, name);
      const text = readFileSync(file, "utf8");
      const ascii = asciiOnly(text, path.relative(process.cwd(), file));
      if (ascii !== text) writeFileSync(file, ascii);
    }
  }
}

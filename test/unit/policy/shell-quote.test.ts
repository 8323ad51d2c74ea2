/**
 * The commands Torii prints for the operator to paste (the grant suggestions on
 * the approval page, in the agent's denial and in `torii policy check`) quote
 * the agent's argv. They must read as that argv in every shell an operator
 * pastes into: POSIX single quotes are not enough for fish, which reads `\\`
 * and `\'` inside them, so `'a\'\''; cmd; #'` ran `cmd` there (red team 22,
 * approval). Checked against a model of both quotings (property) and against
 * the real sh, bash and, where installed, fish.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shellQuote } from "../../../src/policy/shell-quote.js";
import { suggestGrants } from "../../../src/policy/grant-suggestion.js";

/**
 * Reads `line` as a shell would split it into words, for the two quoting dialects: POSIX (nothing is special inside
 * single quotes) and fish (`\\` and `\'` are escapes inside them). Outside quotes a backslash takes the next character
 * as it is, blanks end a word, and `;` ends the command: the reading stops there and says so.
 */
function readWords(line: string, dialect: "posix" | "fish"): { words: string[]; commandEnded: boolean } {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  while (i < line.length) {
    const ch = line[i] ?? "";
    if (ch === " ") {
      if (word !== undefined) words.push(word);
      word = undefined;
      i += 1;
    } else if (ch === ";") {
      if (word !== undefined) words.push(word);
      return { words, commandEnded: true };
    } else if (ch === "\\") {
      word = (word ?? "") + (line[i + 1] ?? "");
      i += 2;
    } else if (ch === "'") {
      word ??= "";
      i += 1;
      while (i < line.length && line[i] !== "'") {
        const next = line[i + 1];
        if (dialect === "fish" && line[i] === "\\" && (next === "\\" || next === "'")) {
          word += next;
          i += 2;
        } else {
          word += line[i] ?? "";
          i += 1;
        }
      }
      i += 1;
    } else {
      word = (word ?? "") + ch;
      i += 1;
    }
  }
  if (word !== undefined) words.push(word);
  return { words, commandEnded: false };
}

const TRICKY = [
  "a\\'; touch PWNED; #",
  "it's",
  "\\",
  "'",
  "''",
  "\\\\'",
  "end\\",
  "a b",
  "$(id)",
  "`id`",
  "x;y",
  "",
  "tab\there",
  'say "hi"',
  "line\nbreak",
  "ü",
];

describe("shellQuote", () => {
  it("reads back as the word itself in POSIX shells and in fish, and never ends the command (model, any word)", () => {
    const alphabet = fc.constantFrom("a", " ", "'", "\\", ";", "#", "$", '"', "`", "\n", "-", "é");
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), (chars) => {
        const word = chars.join("");
        const line = `cmd ${shellQuote(word)}`;
        for (const dialect of ["posix", "fish"] as const) {
          expect(readWords(line, dialect), `${dialect}: ${line}`).toEqual({ words: ["cmd", word], commandEnded: false });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps safe words as they are and the usual POSIX spelling of a quote", () => {
    expect(shellQuote("get")).toBe("get");
    expect(shellQuote("--selector=app=web")).toBe("--selector=app=web");
    expect(shellQuote("it's here")).toBe("'it'\\''s here'");
    expect(shellQuote("a\\b")).toBe("'a'\\\\'b'");
  });

  it("quotes a word whose start a shell expands when bare: =ls (zsh: the path of ls), %self (fish: its pid)", () => {
    expect(shellQuote("=ls")).toBe("'=ls'");
    expect(shellQuote("%self")).toBe("'%self'");
    expect(shellQuote("a=b")).toBe("a=b");
    expect(shellQuote("50%")).toBe("50%");
  });

  // fish is where the POSIX-only quoting broke; sh and bash keep reading the new quoting as before.
  const shells = ["/bin/sh", "/bin/bash", "/usr/bin/zsh", "/usr/bin/fish"].filter((shell) => existsSync(shell));
  it(`the real shells here (${shells.join(", ")}) read every quoted word back and run nothing else`, () => {
    const script = `printf '%s\\n' ${TRICKY.map((word) => shellQuote(`<${word}>`)).join(" ")}`;
    for (const shell of shells) {
      const out = execFileSync(shell, ["-c", script], { encoding: "utf8", cwd: "/", env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" } });
      expect(out, shell).toBe(TRICKY.map((word) => `<${word}>\n`).join(""));
    }
  });

  // Bare, not wrapped in <…>: what a word starts with or consists of matters here.
  const BARE = ["=ls", "%self", "", "-rf", "'''", "\\\\", "~", "!!", "a=b", "-"];
  it(`the real shells here (${shells.join(", ")}) read bare words back, their first character included`, () => {
    const script = `printf '<%s>\\n' ${BARE.map(shellQuote).join(" ")}`;
    for (const shell of shells) {
      const out = execFileSync(shell, ["-c", script], { encoding: "utf8", cwd: "/", env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" } });
      expect(out, shell).toBe(BARE.map((word) => `<${word}>\n`).join(""));
    }
  });
});

describe("a grant suggestion's command", () => {
  it("quotes the argv so that fish reads the same tokens (the page's and the denial's command)", () => {
    const tokens = ["get", "pods", "a\\'; touch PWNED; #"];
    const { exact } = suggestGrants("kube", "dev", { positionals: tokens, options: [], hasTail: false, tail: [] });
    const tail = exact.command.slice(exact.command.indexOf(" -- ") + 4);
    expect(readWords(tail, "fish")).toEqual({ words: tokens, commandEnded: false });
  });
});

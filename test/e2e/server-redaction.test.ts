/**
 * Redaction canaries through the built server: a provider `.env` holds a
 * secret, and a real child prints it back in pieces with pauses between them
 * (so the launcher receives it split across chunks), in each spelling a CLI
 * might use, on stdout and stderr, across the output cap; the agent also
 * passes it in its argv. The agent's result, the server's stderr and the audit
 * file must never hold it, and the markers must be there.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";

const CANARY = "cAnArY-9f8e7d6c5b4a/+=z";
const SHORT = "s7x9q2w"; // 7 characters: under the minimum, printed as is
const CAP = 4096;
const MARK = "[redacted:LEAKY_TOKEN]";
/** A value full of the characters encoders escape each their own way. */
const ODD = "p&ss<w>rd'é/x!*q";

/** Prints its argv[0] spelling of the canary in pieces, flushing and pausing between them. */
const LEAK = `const value = process.env.LEAKY_TOKEN;
const [mode, arg] = process.argv.slice(2);
const hex = (code, width) => code.toString(16).padStart(width, "0");
// Accidental forms (red team F4): UTF-16, colour codes between characters, a value split across the streams.
const accidental = {
  utf16: () => process.stdout.write(Buffer.from("token=" + value + "\\n", "utf16le")),
  ansi: () => process.stdout.write("\\u001b[33m" + [...value].join("\\u001b[1m") + "\\u001b[0m\\n"),
  split: () => process.stdout.write(value.slice(0, 8) + "\\n", () => setTimeout(() => process.stderr.write(value.slice(8) + "\\n"), 15)),
  // The agent's guess, placed so that the cap cuts the output right after it (red team atk-secrets-18).
  guess: () => process.stdout.write("f".repeat(${CAP} - arg.length) + arg + "!".repeat(64)),
}[mode];
if (accidental !== undefined) return accidental();
const encoders = {
  gojson: (v) => JSON.stringify({ token: v }).replace(/[<>&]/g, (c) => "\\\\u" + hex(c.charCodeAt(0), 4)),
  jsonUpper: (v) => JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => "\\\\u" + hex(c.charCodeAt(0), 4).toUpperCase()),
  pyquote: (v) => "https://h/?t=" + encodeURIComponent(v).replace(/%2F/g, "/").replace(/[!'()*]/g, (c) => "%" + hex(c.charCodeAt(0), 2).toUpperCase()),
  yamlsq: (v) => "token: '" + v.replace(/'/g, "''") + "'",
  shell: (v) => "export TOKEN='" + v.replace(/'/g, "'\\\\''") + "'",
  html: (v) => "<td>" + v.replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";") + "</td>",
};
const spell = {
  plain: () => value,
  json: () => JSON.stringify({ token: value }),
  base64: () => Buffer.from("x".repeat(Number(arg)) + value + "tail").toString("base64"),
  base64url: () => Buffer.from("x".repeat(Number(arg)) + value).toString("base64url"),
  url: () => "https://h/?t=" + encodeURIComponent(value),
  short: () => process.env.SHORT_ONE,
  echo: () => arg,
  cap: () => value,
  enc: () => encoders[arg](process.env.ODD_TOKEN),
}[mode]();
const stream = process.argv.includes("--stderr") ? process.stderr : process.stdout;
// The cap mode writes filler up to 10 bytes short of the cap first, so the cap falls inside the value.
const pieces = mode === "cap" ? ["f".repeat(${CAP} - 10)] : [];
for (let at = 0; at < spell.length; at += 5) pieces.push(spell.slice(at, at + 5));
const next = () => {
  const piece = pieces.shift();
  if (piece === undefined) return;
  stream.write(piece, () => setTimeout(next, 15));
};
next();`;

let root: string;
let session: McpSession;

beforeAll(async () => {
  root = makeConfigTree({
    "settings.yaml": `max_output_bytes: ${CAP}\n`,
    "providers/leaky/provider.yaml": 'version: "1"\nname: leaky\ntool: leaky\ncommand: leak\n',
    "providers/leaky/rules.yaml": 'version: "1"\naccept: [plain, json, base64, base64url, url, short, echo, cap, enc, utf16, ansi, split, guess]\n',
    "providers/leaky/.env": `LEAKY_TOKEN=${CANARY}\nSHORT_ONE=${SHORT}\nODD_TOKEN="${ODD}"\n`,
  });
  const bin = makeFakeBin({ leak: LEAK });
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
});

afterAll(async () => {
  await session.close();
});

async function leak(...args: string[]): Promise<{ stdout: string; stderr: string; truncated: boolean; text: string }> {
  const result = await session.call("leaky", { args });
  const execution = outcomeOf(result).execution;
  if (execution === undefined) throw new Error(JSON.stringify(result));
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return { stdout: execution.stdout, stderr: execution.stderr, truncated: execution.truncated, text };
}

function expectNoCanary(out: { stdout: string; stderr: string; text: string }): void {
  const everything = `${out.stdout}${out.stderr}${out.text}`;
  expect(everything).not.toContain(CANARY);
  expect(everything).not.toContain(JSON.stringify(CANARY).slice(1, -1));
  expect(everything).not.toContain(encodeURIComponent(CANARY));
}

describe("injected secrets never reach the agent, in any spelling, however they are chunked", () => {
  test("as is, split across chunks, on stdout and on stderr", async () => {
    const out = await leak("plain");
    expect(out.stdout).toBe(MARK);
    const err = await leak("plain", "--stderr");
    expect(err.stderr).toBe(MARK);
    expectNoCanary(out);
    expectNoCanary(err);
  });

  test("JSON-escaped and URL-encoded", async () => {
    const json = await leak("json");
    expect(json.stdout).toBe(`{"token":"${MARK}"}`);
    const url = await leak("url");
    expect(url.stdout).toBe(`https://h/?t=${MARK}`);
    expectNoCanary(json);
    expectNoCanary(url);
  });

  test("as other encoders print it: Go's JSON, upper-case \\u, Python's quote, YAML and shell quoting, HTML entities", async () => {
    for (const encoder of ["gojson", "jsonUpper", "pyquote", "yamlsq", "shell", "html"]) {
      const out = await leak("enc", encoder);
      expect(out.stdout, encoder).toContain("[redacted:ODD_TOKEN]");
      for (const piece of ["p&ss", "p\\u0026ss", "p%26ss", "rd''", "rd'\\''", "p&#38;ss"]) expect(out.text, encoder).not.toContain(piece);
    }
  });

  test("base64 at every alignment, both alphabets", async () => {
    for (const offset of ["0", "1", "2", "3"]) {
      for (const mode of ["base64", "base64url"]) {
        const out = await leak(mode, offset);
        expect(out.stdout, `${mode} ${offset}`).toContain(MARK);
        // The whole encoded canary is gone: what is left decodes to none of its characters but a few at the edges.
        const left = out.stdout.replace(MARK, "");
        expect(Buffer.from(left, mode === "base64" ? "base64" : "base64url").toString("latin1"), `${mode} ${offset}`).not.toContain(CANARY.slice(2, -2));
      }
    }
  });

  test("in the forms a child prints by accident: UTF-16, colour codes between characters, split across stdout and stderr", async () => {
    const utf16 = await leak("utf16");
    expect(utf16.stdout.replaceAll("\u0000", "")).toBe(`token=${MARK}\n`);
    const ansi = await leak("ansi");
    expect(ansi.stdout).toBe(`\u001b[33m${MARK}\u001b[0m\n`);
    const split = await leak("split");
    expect(split.stdout).toBe(MARK);
    expect(split.stderr).toBe(`${MARK}\n`);
    for (const out of [utf16, ansi, split]) {
      expectNoCanary(out);
      // eslint-disable-next-line no-control-regex -- what the child put between the characters
      expect(`${out.stdout}${out.stderr}`.replace(/\u0000|\u001b\[[0-9;]*m|\n/gu, "")).not.toContain(CANARY.slice(0, 8));
    }
  });

  test("a value under 8 characters is not redacted", async () => {
    expect((await leak("short")).stdout).toBe(SHORT);
  });

  test("output cut by the cap in the middle of the secret leaks no prefix and stays within the cap", async () => {
    const out = await leak("cap");
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.stdout) + Buffer.byteLength(out.stderr)).toBeLessThanOrEqual(CAP);
    // The tail is masked whatever it holds (no prefix oracle), what precedes it stays; when the marker
    // itself does not fit under the cap it is dropped whole.
    expect(out.stdout).toMatch(/^f{2000,}(?:\[redacted:cut-output-tail\])?$/u);
  });

  test("a cut right after the agent's guess tells nothing about whether the value starts with it (no prefix oracle)", async () => {
    const outputs = [];
    for (const guess of [CANARY.slice(0, 1), CANARY.slice(0, 6), "q", "qqqqqq"]) {
      const out = await leak("guess", guess);
      expect(out.truncated).toBe(true);
      expect(out.stdout).not.toContain(MARK);
      outputs.push(out.stdout);
    }
    // The same masked tail whatever the guess: the cut output ends alike for a right and a wrong one.
    expect(new Set(outputs).size).toBe(1);
    expect(outputs[0]).toMatch(/^f{2000,}\[redacted:cut-output-tail\]$/u);
  });

  test("the agent's own argv carrying the value is redacted in the output and the audit file", async () => {
    const out = await leak("echo", CANARY);
    expect(out.stdout).toBe(MARK);
    expectNoCanary(out);
    const audit = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    expect(audit).toContain(MARK);
    expect(audit).not.toContain(CANARY);
    expect(session.stderr()).not.toContain(CANARY);
  });
});

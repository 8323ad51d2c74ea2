/**
 * The forms a child prints a value in by accident that a text matcher over
 * each stream missed (red team F4): UTF-16 output read as UTF-8 (a NUL beside
 * every ASCII character), terminal colouring or other control codes and
 * zero-width marks between characters, a value wrapped over lines, a value
 * split across stdout and stderr. Only the value is masked; what surrounds it
 * stays as it was.
 */
import { describe, expect, test } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { redactOutput } from "../../../src/runtime/redact-output.js";
import { createRedactor, CUT_TAIL_MARKER } from "../../../src/runtime/redaction.js";

const VALUE = "Sup3rSecretValue-0123456789";
const MARK = "[redacted:API_TOKEN]";
const redactor = createRedactor([{ name: "API_TOKEN", value: VALUE }]);
const utf16 = (text: string, encoding: "utf-16le" | "utf-16be"): string => {
  const bytes = Buffer.from(text, "utf16le");
  if (encoding === "utf-16be") bytes.swap16();
  return new TextDecoder("utf-8").decode(bytes);
};

describe("accidental forms of a value are masked, and nothing else", () => {
  test("UTF-16, little and big endian, read as UTF-8", () => {
    expect(redactor.redact(`before ${utf16(VALUE, "utf-16le")} after`)).toBe(`before ${MARK}\u0000 after`);
    expect(redactor.redact(`before ${utf16(VALUE, "utf-16be")} after`)).toBe(`before \u0000${MARK} after`);
    // A whole UTF-16 line: the NULs around the value stay, the value does not.
    expect(redactor.redact(utf16(`token=${VALUE}\n`, "utf-16le")).replaceAll("\u0000", "")).toBe(`token=${MARK}\n`);
  });

  test("colour codes, OSC hyperlinks and zero-width marks between characters", () => {
    const coloured = `\u001b[31m${[...VALUE].join("\u001b[1m")}\u001b[0m`;
    expect(redactor.redact(coloured)).toBe(`\u001b[31m${MARK}\u001b[0m`);
    expect(redactor.redact([...VALUE].join("\u001b[38;5;196m"))).toBe(MARK);
    const linked = `\u001b]8;;https://example.test/\u0007${VALUE.slice(0, 9)}\u001b]8;;\u0007${VALUE.slice(9)}`;
    expect(redactor.redact(`x ${linked} y`)).toBe(`x \u001b]8;;https://example.test/\u0007${MARK} y`);
    expect(redactor.redact(`x ${[...VALUE].join("\u200b")} y`)).toBe(`x ${MARK} y`);
    expect(redactor.redact(`x ${[...VALUE].join("\u0008")} y`)).toBe(`x ${MARK} y`);
  });

  test("a value wrapped over lines, and base64 wrapped at 76 columns", () => {
    expect(redactor.redact(`${VALUE.slice(0, 10)}\r\n${VALUE.slice(10)}`)).toBe(MARK);
    const blob = Buffer.from(`${"x".repeat(50)}${VALUE}${"y".repeat(50)}`).toString("base64");
    const wrapped = blob.replace(/.{76}/gu, "$&\n");
    const out = redactor.redact(wrapped);
    expect(out).toContain(MARK);
    const left = out.replace(MARK, "").replaceAll("\n", "");
    expect(Buffer.from(left, "base64").toString("latin1")).not.toContain(VALUE.slice(2, -2));
  });

  test("a value wrapped onto an indented line, or with a no-break space or soft hyphen inside (red team 11b F5)", () => {
    expect(redactor.redact(`token:  ${VALUE.slice(0, 10)}\n        ${VALUE.slice(10)}\n`)).toBe(`token:  ${MARK}\n`);
    expect(redactor.redact(`  key:\n    ${VALUE.slice(0, 5)}\r\n    ${VALUE.slice(5)}\n`)).toBe(`  key:\n    ${MARK}\n`);
    expect(redactor.redact(`x ${VALUE.slice(0, 6)}\u00a0${VALUE.slice(6)} y`)).toBe(`x ${MARK} y`);
    expect(redactor.redact(`x ${VALUE.slice(0, 6)}\u00ad${VALUE.slice(6)} y`)).toBe(`x ${MARK} y`);
  });

  test("hex dumps with a separator between bytes or 2-byte groups, either case (red team 11b F5)", () => {
    const bytes = Buffer.from(VALUE, "utf8").toString("hex").match(/../gu) ?? [];
    const dumps = [
      bytes.join(" "),
      bytes.join(":"),
      bytes.join(" ").toUpperCase(),
      bytes.join(":").toUpperCase(),
      (bytes.join("").match(/.{1,4}/gu) ?? []).join(" "),
    ];
    for (const dump of dumps) expect(redactor.redact(`0000: ${dump} |`)).toBe(`0000: ${MARK} |`);
  });

  test("a value that holds a line break itself is still masked as it is and JSON-escaped", () => {
    const pem = "-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----";
    const keyed = createRedactor([{ name: "KEY", value: pem }]);
    expect(keyed.redact(`key: ${pem}.`)).toBe("key: [redacted:KEY].");
    expect(keyed.redact(`{"key":${JSON.stringify(pem)}}`)).toBe('{"key":"[redacted:KEY]"}');
  });

  test("text around the forms is left alone, byte for byte", () => {
    const text = "line one\n\u001b[32mok\u001b[0m\u0000\u200b\ttabbed\n";
    expect(redactor.redact(text)).toBe(text);
  });

  const junk = fc.constantFrom("\u0000", "\u001b[1m", "\u001b[0;31m", "\u200b", "\ufeff", "\n", "\r\n", "\u0007");
  prop([
    fc.string({ minLength: 8, maxLength: 30, unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
    fc.array(junk, { minLength: 30, maxLength: 30 }),
  ])("junk of those kinds between any characters never lets the value through", (value, between) => {
    const one = createRedactor([{ name: "V", value }]);
    const text = `<${[...value].map((char, index) => `${char}${index < value.length - 1 ? (between[index] as string) : ""}`).join("")}>`;
    const out = one.redact(text);
    expect(out).toBe("<[redacted:V]>");
  });
});

describe("a value split across stdout and stderr", () => {
  test("its first part on stdout, the rest on stderr after a line break, as they arrived", async () => {
    const stdout = `${VALUE.slice(0, 8)}\n`;
    const stderr = `${VALUE.slice(8)}\n`;
    const out = await redactOutput({ stdout, stderr, interleaving: [stdout.length, stderr.length] }, redactor, { cut: false, maxBytes: 4096 });
    expect(out.stdout).toBe(MARK);
    expect(out.stderr).toBe(`${MARK}\n`);
  });

  test("stderr first, between other output of both streams, in the order the launcher recorded", async () => {
    const stdout = `start\n${VALUE.slice(12)} done\n`;
    const stderr = `warning: ${VALUE.slice(0, 12)}`;
    // stdout "start\n", then stderr whole, then the rest of stdout.
    const interleaving = [6, stderr.length, stdout.length - 6];
    const out = await redactOutput({ stdout, stderr, interleaving }, redactor, { cut: false, maxBytes: 4096 });
    expect(out.stderr).toBe(`warning: ${MARK}`);
    expect(out.stdout).toBe(`start\n${MARK} done\n`);
  });

  test("cut short while the value was under way on the second stream: both parts are a leaked prefix (red team 11b F4)", async () => {
    const stdout = `token=${VALUE.slice(0, 8)}`;
    const stderr = VALUE.slice(8, -2);
    const out = await redactOutput({ stdout, stderr, interleaving: [stdout.length, stderr.length] }, redactor, { cut: true, maxBytes: 4096 });
    // Both streams end within the longest spelling: each is a masked tail, whatever it held.
    expect(out.stdout).toBe(CUT_TAIL_MARKER);
    expect(out.stderr).toBe(CUT_TAIL_MARKER);
  });

  test("parts that are not one value across the switch are left alone", async () => {
    const stdout = `${VALUE.slice(0, 8)}\n`;
    // No whole 12-character block of the value on either side (partial-values.ts): 8..20 holds none.
    const stderr = `not${VALUE.slice(8, 20)}\n`;
    const out = await redactOutput({ stdout, stderr, interleaving: [stdout.length, stderr.length] }, redactor, { cut: false, maxBytes: 4096 });
    expect(out).toEqual({ stdout, stderr, trimmed: false });
  });
});

describe("a value as the CLI uses it: without its surrounding blanks and line breaks (red team atk-secrets-18)", () => {
  // A double-quoted `.env` value keeps what the operator pasted around the secret (a trailing line break, spaces);
  // a CLI strips it before use and prints the stripped token. A PEM key kept over lines is printed as one line or
  // re-wrapped at another width. Each is the value as the CLI uses it, so each is masked.
  const PEM_BODY = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw",
    "7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW",
    "/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQAB",
  ];
  const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY.join("\n")}\n-----END RSA PRIVATE KEY-----\n`;
  const keyRedactor = createRedactor([
    { name: "PASTED_TOKEN", value: "  ghp_Pasted0Token0With0Blanks\n" },
    { name: "PRIVATE_KEY", value: PEM },
  ]);

  test("a value with blanks or a line break around it, printed stripped", () => {
    expect(keyRedactor.redact("Authorization: token ghp_Pasted0Token0With0Blanks (sent)")).toBe("Authorization: token [redacted:PASTED_TOKEN] (sent)");
    expect(keyRedactor.redact('{"token":"ghp_Pasted0Token0With0Blanks"}')).toBe('{"token":"[redacted:PASTED_TOKEN]"}');
  });

  test("a multi-line value printed as one line, or wrapped at another width", () => {
    const oneLine = PEM.replaceAll("\n", "");
    expect(keyRedactor.redact(`key: ${oneLine} end`)).toBe("key: [redacted:PRIVATE_KEY] end");
    const body = PEM_BODY.join("");
    const rewrapped = `-----BEGIN RSA PRIVATE KEY-----\n${(body.match(/.{1,76}/gu) ?? []).join("\n")}\n-----END RSA PRIVATE KEY-----`;
    const out = keyRedactor.redact(`key:\n${rewrapped}\nend`);
    expect(out).toBe("key:\n[redacted:PRIVATE_KEY]\nend");
    expect(out).not.toContain(body.slice(0, 12));
  });
});

describe("a blank value", () => {
  test("eight spaces in .env do not mask JSON indentation or '++++++++'", () => {
    const redactor = createRedactor([{ name: "PAD", value: "        " }]);
    const json = '{\n  "a": {\n    "b": {\n        "c": 1 }}}';
    // A space's URL form is '+'.
    expect(redactor.redact(json)).toBe(json);
    expect(redactor.redact("a++++++++b")).toBe("a++++++++b");
  });

  test("line breaks, or a short value padded to eight characters, are not redacted either", () => {
    const redactor = createRedactor([
      { name: "NL", value: "\n\n\n\n\n\n\n\n" },
      { name: "SHORT", value: "  abc   " },
    ]);
    expect(redactor.active).toBe(false);
  });
});

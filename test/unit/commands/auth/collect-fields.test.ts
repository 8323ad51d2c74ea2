/**
 * `torii auth login --stdin` reads `.env` text: a line the operator piped by
 * mistake (a bare token ending in base64 padding, `dG9rZW4…==`) parses as a
 * valid name with an empty-ish value, and a refusal that names it would print
 * the token on the terminal. Undeclared names read from standard input are
 * never repeated; the declared fields are.
 */
import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { collectFields } from "../../../../src/commands/auth/collect-fields.js";
import type { AuthField } from "../../../../src/commands/auth/collect-fields.js";

const FIELDS = [{ name: "VAULT_TOKEN", label: "Token", secret: true, required: true, multiline: false }] as unknown as readonly AuthField[];
const TOKEN = "hvsCAESIJqk2n7Zr1x0Ploq8w3mTbPRg5Yc";

function piped(text: string): { input: PassThrough; output: PassThrough } {
  const input = new PassThrough();
  input.end(text);
  return { input, output: new PassThrough() };
}

describe("collectFields from standard input", () => {
  test("a piped token that parses as a name is refused without being repeated", async () => {
    const refusal = collectFields(FIELDS, { fromEnv: [], stdin: true }, {}, piped(`${TOKEN}==\n`));
    await expect(refusal).rejects.toThrow(/not one of the declared fields \(VAULT_TOKEN\)/u);
    await expect(refusal).rejects.not.toThrow(TOKEN);
  });

  test("declared fields are read", async () => {
    expect(await collectFields(FIELDS, { fromEnv: [], stdin: true }, {}, piped(`VAULT_TOKEN=${TOKEN}\n`))).toEqual({ VAULT_TOKEN: TOKEN });
  });
});

describe("collectFields from standard input: a piped token is never repeated", () => {
  test("the same bare token piped twice (cat token token): the duplicate error does not name it", async () => {
    const refusal = collectFields(FIELDS, { fromEnv: [], stdin: true }, {}, piped(`${TOKEN}==\n${TOKEN}==\n`));
    // It was: <stdin>:2:1: duplicate variable hvsCAESIJqk2n7Zr1x0Ploq8w3mTbPRg5Yc (first set on line 1)
    await expect(refusal).rejects.toThrow();
    await expect(refusal).rejects.toThrow(/duplicate variable \(first set on line 1\)/u);
    await expect(refusal).rejects.not.toThrow(TOKEN);
  });
});

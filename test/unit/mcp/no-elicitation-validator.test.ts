import { describe, expect, test } from "vitest";
import { noElicitationValidator } from "../../../src/mcp/no-elicitation-validator.js";

describe("the server's JSON Schema validator", () => {
  test("refuses every elicitation answer, even one that matches its schema (Torii requests none)", () => {
    const validate = noElicitationValidator.getValidator({ type: "object", properties: { ok: { type: "boolean" } } });
    expect(validate({ ok: true })).toMatchObject({ valid: false, errorMessage: expect.stringMatching(/no elicitation/) as unknown });
  });
});

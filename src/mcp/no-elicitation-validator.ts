/**
 * The JSON Schema validator handed to the SDK's Server. The SDK uses one only
 * to check a client's answer to a form elicitation (`elicitInput`), which
 * Torii never requests; its default, Ajv, costs start-up time and memory for
 * nothing. Should anything ever ask, every answer is refused (fail closed).
 * The bundle (scripts/bundle.mjs) leaves Ajv out entirely.
 */
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

export const noElicitationValidator: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: "Torii requests no elicitation, so it accepts no elicitation answer",
  }),
};

/**
 * JSON Schemas of the tools' structured results, declared as `outputSchema`.
 */
import type { JsonSchemaObject } from "./tool-definition.js";

const grantSuggestion = {
  type: "object",
  properties: {
    mode: { type: "string", enum: ["exact", "prefix"] },
    token_count: { type: "integer" },
    tokens: { type: "array", items: { type: "string" } },
    covers: { type: "string" },
    command: { type: "string" },
  },
  required: ["mode", "token_count", "tokens", "covers", "command"],
} as const;

const grants = {
  type: "object",
  properties: { exact: grantSuggestion, prefix: grantSuggestion },
  required: ["exact", "prefix"],
} as const;

export const providerCallOutputSchema: JsonSchemaObject = {
  type: "object",
  properties: {
    provider: { type: "string" },
    target: { type: "string" },
    decision: {
      type: "object",
      properties: {
        result: { type: "string", enum: ["allow", "deny"] },
        source: { type: "string" },
        rule: { type: "string" },
        reason: { type: "string" },
        grants,
      },
      required: ["result", "source", "reason"],
    },
    execution: {
      type: "object",
      properties: {
        exit_code: { type: ["integer", "null"] },
        signal: { type: ["string", "null"] },
        stdout: { type: "string" },
        stderr: { type: "string" },
        truncated: { type: "boolean" },
        timed_out: { type: "boolean" },
        canceled: { type: "boolean" },
        duration_ms: { type: "number" },
      },
      required: ["exit_code", "signal", "stdout", "stderr", "truncated", "timed_out", "canceled", "duration_ms"],
    },
    error: { type: "string" },
  },
  required: ["provider", "decision"],
};

const ruleRef = {
  type: "object",
  properties: { text: { type: "string" }, list: { type: "string" }, layer: { type: "string" }, origin: { type: "string" } },
  required: ["text", "list", "layer", "origin"],
} as const;

export const policyOutputSchema: JsonSchemaObject = {
  type: "object",
  properties: {
    provider: { type: "string" },
    target: { type: "string" },
    minimum_accept_tokens: { type: "integer" },
    deny: { type: "array", items: { type: "string" } },
    accept: { type: "array", items: { type: "string" } },
    ignored_accept: { type: "array", items: { type: "string" } },
    unmatched: { type: "string" },
    errors: { type: "array", items: { type: "object" } },
    explain: {
      type: "object",
      properties: {
        decision: { type: "string", enum: ["deny", "accept", "unresolved"] },
        source: { type: "string" },
        reason: { type: "string" },
        rule: ruleRef,
        canonical_argv: { type: "array", items: { type: "string" } },
        grants,
      },
      required: ["decision", "source", "reason"],
    },
  },
  required: ["provider", "minimum_accept_tokens", "deny", "accept", "ignored_accept", "unmatched"],
};

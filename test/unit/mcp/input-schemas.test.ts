/**
 * The JSON Schema each tool advertises in tools/list is derived from the zod
 * schema that validates its input. Each probe is judged by a real JSON Schema
 * validator (ajv, draft 2020-12) against the advertised schema and by the zod
 * schema the tool validates with: they must agree on every limit. The one
 * limit JSON Schema cannot express (the total length of args) must be stated
 * in the advertised description instead.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { loadRegistry } from "../../../src/config/registry.js";
import { policyTool } from "../../../src/mcp/policy-tool.js";
import { ENVELOPE_LIMITS, providerTool, type ProviderToolDeps } from "../../../src/mcp/provider-tool.js";
import type { ToolDefinition } from "../../../src/mcp/tool-definition.js";
import { PolicyCache } from "../../../src/pipeline/policy-cache.js";
import { makeConfigTree } from "../../support/config-tree.js";

const RULES = 'version: "1"\n';
const root = makeConfigTree({
  "providers/plain/provider.yaml": 'version: "1"\nname: plain\ntool: plain\ncommand: echo\n',
  "providers/plain/rules.yaml": RULES,
  "providers/kube/provider.yaml": 'version: "1"\nname: kube\ntool: kube\ncommand: kubectl\ntargeting: {mode: kubectl_context}\n',
  "providers/kube/rules.yaml": RULES,
  "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n',
  "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: idp}\n',
  "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: echo\n',
  "providers/idp/rules.yaml": RULES,
  "providers/empty/provider.yaml": 'version: "1"\nname: empty\ntool: empty\ncommand: kubectl\ntargeting: {mode: kubectl_context}\n',
  "providers/empty/rules.yaml": RULES,
});
const registry = loadRegistry(root);
const unused: ProviderToolDeps = {
  run: () => Promise.reject(new Error("not called")),
  auditFor: () => {
    throw new Error("not called");
  },
  newCallId: () => "x",
};
const tools: ToolDefinition[] = [
  ...[...registry.providers.values()].map((provider) => providerTool(provider, unused)),
  policyTool(registry, new PolicyCache()),
];
const ajv = new Ajv2020({ strict: true });
const { maxArgs, maxArgLength, maxDescription, maxTotalLength } = ENVELOPE_LIMITS;
const many = (count: number, arg = "a"): string[] => Array.from({ length: count }, () => arg);

/** Envelopes around every limit, for a tool that takes `base` as a valid input. */
function probes(base: Record<string, unknown>): Record<string, unknown>[] {
  return [
    base,
    {},
    { ...base, extra: 1 },
    { ...base, args: [] },
    { ...base, args: many(maxArgs) },
    { ...base, args: many(maxArgs + 1) },
    { ...base, args: ["x".repeat(maxArgLength)] },
    { ...base, args: ["x".repeat(maxArgLength + 1)] },
    { ...base, args: [1] },
    { ...base, args: "get pods" },
    { ...base, description: "d".repeat(maxDescription) },
    { ...base, description: "d".repeat(maxDescription + 1) },
    { ...base, target: "dev" },
    { ...base, target: "prod" },
    { ...base, target: "staging" },
    { ...base, target: 7 },
    { ...base, provider: "kube" },
    { ...base, provider: "nope" },
  ];
}

describe.each(tools.map((tool) => [tool.name, tool] as const))("%s", (_name, tool) => {
  const validate = ajv.compile(tool.inputSchema);
  const base = tool.name === "torii_policy" ? { provider: "plain", args: ["get"] } : { args: ["get"], ...(tool.name === "kube" ? { target: "dev" } : {}) };

  it("advertises an object that refuses unknown properties and no $schema", () => {
    expect(tool.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
    expect("$schema" in tool.inputSchema).toBe(false);
  });

  it.each(probes(base).map((probe, index) => [index, probe] as const))("probe %i: the advertised schema and zod agree", (_index, probe) => {
    expect(validate(probe), JSON.stringify(probe).slice(0, 200)).toBe(tool.input.safeParse(probe).success);
  });
});

describe("what JSON Schema cannot express is stated", () => {
  it.each(tools.map((tool) => [tool.name, tool] as const))("%s: the total length of args", (_name, tool) => {
    const tooLong = {
      ...(tool.name === "torii_policy" ? { provider: "plain" } : {}),
      args: many(Math.ceil(maxTotalLength / maxArgLength) + 1, "x".repeat(maxArgLength)),
      ...(tool.name === "kube" ? { target: "dev" } : {}),
    };
    expect(tool.input.safeParse(tooLong).success).toBe(false);
    // Counted in characters (code points), as maxLength counts them: astral characters are two UTF-16 units each.
    const astral = "\u{1F600}".repeat(maxTotalLength / 4 - 1);
    const argsIssues = (args: string[]): number =>
      tool.input.safeParse({ ...tooLong, args }).error?.issues.filter((issue) => issue.path[0] === "args").length ?? 0;
    expect(argsIssues(many(4, astral))).toBe(0);
    expect(argsIssues([...many(4, astral), "x".repeat(5)])).toBe(1);
    const args = (tool.inputSchema.properties as Record<string, { description: string }>).args;
    expect(args?.description).toContain(`${maxTotalLength} characters in total`);
  });
});

describe("the target forms the server relies on", () => {
  const schemaOf = (name: string) => tools.find((tool) => tool.name === name)?.inputSchema.properties as Record<string, unknown>;
  it("an enum of every alias, and a string no value satisfies when there is none", () => {
    expect(schemaOf("kube").target).toMatchObject({ type: "string", enum: ["dev", "prod"] });
    expect(schemaOf("empty").target).toMatchObject({ type: "string", not: {} });
    expect(schemaOf("plain").target).toBeUndefined();
  });
});

/**
 * Decision fixtures as data (OPA's `test/cases` idea): YAML files under
 * `test/fixtures/decisions/`, each a provider, a rule set and cases. The schema
 * is strict so a typo in a fixture fails loudly instead of testing nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import { z } from "zod";
import type { GrammarSpec } from "../../src/policy/grammar/types.js";
import type { LayeredRuleSpecs, ProviderPolicyContext, RuleListSpec, RuleSpec } from "../../src/policy/types.js";
import { AWS_LOCKED, awsSpec, azSpec, context, KUBECTL_LOCKED, kubectlSpec, plainSpec } from "./grammars.js";

export const FIXTURE_DIR = new URL("../fixtures/decisions/", import.meta.url);

const grammarName = z.enum(["kubectl", "aws", "az", "plain"]);
type GrammarName = z.infer<typeof grammarName>;

const GRAMMARS: Record<GrammarName, { spec: GrammarSpec; locked: readonly string[] }> = {
  kubectl: { spec: kubectlSpec, locked: KUBECTL_LOCKED },
  aws: { spec: awsSpec, locked: AWS_LOCKED },
  az: { spec: azSpec, locked: ["--subscription"] },
  plain: { spec: plainSpec, locked: [] },
};

/** A rule: its text, or its text with an explicit origin (for tie-break cases). */
const ruleSchema = z.union([z.string(), z.strictObject({ text: z.string(), origin: z.string() })]);
const ruleListSchema = z.strictObject({
  deny: z.array(ruleSchema).default([]),
  accept: z.array(ruleSchema).default([]),
});
const rulesSchema = z.strictObject({ shared: ruleListSchema, target: ruleListSchema.optional() });

const settingsSchema = z.strictObject({
  minimum_accept_tokens: z.number().int().nonnegative().optional(),
  forbidden_args: z.array(z.string()).optional(),
  ignore_args: z.strictObject({ leading: z.array(z.string()).default([]), flags: z.array(z.string()).default([]) }).optional(),
});

const providerSchema = z.strictObject({
  grammar: grammarName,
  /** `default`: the test grammar's locked list (kubectl, aws, az; none for plain). */
  locked: z.union([z.literal("default"), z.array(z.string())]).default("default"),
  /** Replaces the grammar's `forbiddenValuePrefixes` (e.g. to give `plain` some). */
  forbidden_value_prefixes: z.array(z.string()).optional(),
  settings: settingsSchema.default({}),
});

const sourceSchema = z.enum(["locked-option", "forbidden-value", "argv-rejected", "policy-error", "forbidden-arg", "explicit-deny", "rules", "no-rule"]);

const expectSchema = z.strictObject({
  decision: z.enum(["deny", "accept", "unresolved"]),
  source: sourceSchema,
  /** The deciding rule's text; null when no rule decided. */
  rule: z.string().nullable().default(null),
  /** The flattened canonical argv; null when the argv was rejected before rules. */
  canonical: z.array(z.string()).nullable().default(null),
  /** For `locked-option`: the canonical option the CLI would have read. */
  option: z.string().optional(),
  /** For `forbidden-arg`: the forbidden entry that matched (canonical spelling). */
  forbidden: z.string().optional(),
  /** Text the decision's reason must contain (e.g. the option it names). */
  reason_contains: z.array(z.string()).default([]),
  /** Text the reason must not contain (e.g. a URL path that may hold a token). */
  reason_excludes: z.array(z.string()).default([]),
});

const caseSchema = z.strictObject({
  name: z.string().min(1),
  argv: z.array(z.string()),
  target: z.string().optional(),
  rules: rulesSchema.optional(),
  settings: settingsSchema.optional(),
  expect: expectSchema,
});

const fileSchema = z.strictObject({
  description: z.string().optional(),
  provider: providerSchema,
  rules: rulesSchema,
  cases: z.array(caseSchema).min(1),
});

export type DecisionExpectation = z.infer<typeof expectSchema>;

export interface DecisionCase {
  readonly file: string;
  readonly name: string;
  readonly argv: readonly string[];
  readonly target: string | undefined;
  readonly context: ProviderPolicyContext;
  readonly rules: LayeredRuleSpecs;
  readonly expect: DecisionExpectation;
}

function toRuleList(file: string, layer: string, list: z.infer<typeof ruleListSchema>): RuleListSpec {
  const specs = (name: "deny" | "accept"): RuleSpec[] =>
    list[name].map((rule, index) => (typeof rule === "string" ? { text: rule, origin: `${file}:${layer}.${name}[${index}]` } : rule));
  return { deny: specs("deny"), accept: specs("accept") };
}

function toLayered(file: string, rules: z.infer<typeof rulesSchema>): LayeredRuleSpecs {
  const shared = toRuleList(file, "shared", rules.shared);
  return rules.target === undefined ? { shared } : { shared, target: toRuleList(file, "target", rules.target) };
}

function toContext(provider: z.infer<typeof providerSchema>, settings: z.infer<typeof settingsSchema>): ProviderPolicyContext {
  const base = GRAMMARS[provider.grammar];
  const spec: GrammarSpec =
    provider.forbidden_value_prefixes === undefined ? base.spec : { ...base.spec, forbiddenValuePrefixes: provider.forbidden_value_prefixes };
  const locked = provider.locked === "default" ? base.locked : provider.locked;
  return context(provider.grammar, spec, locked, {
    ...(settings.minimum_accept_tokens === undefined ? {} : { minimumAcceptTokens: settings.minimum_accept_tokens }),
    ...(settings.forbidden_args === undefined ? {} : { forbiddenArgs: settings.forbidden_args }),
    ...(settings.ignore_args === undefined ? {} : { ignoreArgs: settings.ignore_args }),
  });
}

/** Reads and validates every `*.yaml` fixture file; throws on the first invalid one, naming it. */
export function loadDecisionFixtures(): { files: string[]; cases: DecisionCase[] } {
  const files = readdirSync(FIXTURE_DIR)
    .filter((name) => name.endsWith(".yaml"))
    .sort();
  const cases: DecisionCase[] = [];
  for (const file of files) {
    let raw: unknown;
    try {
      raw = parse(readFileSync(new URL(file, FIXTURE_DIR), "utf8"));
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}`);
    }
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
    const doc = parsed.data;
    for (const item of doc.cases) {
      // A case's `settings` replace the file's settings key by key.
      const settings = { ...doc.provider.settings, ...item.settings };
      cases.push({
        file,
        name: item.name,
        argv: item.argv,
        target: item.target,
        context: toContext(doc.provider, settings),
        rules: toLayered(file, item.rules ?? doc.rules),
        expect: item.expect,
      });
    }
  }
  return { files, cases };
}

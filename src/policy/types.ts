/**
 * The policy domain's input and output types. Everything under `src/policy/`
 * is pure: no file system, clock or process, so decisions are reproducible and
 * property-testable. The config layer turns files into these values.
 */
import type { FileWriteHold } from "./file-write-hold.js";
import type { CanonicalArgv, GrammarSpec, LockedCommand } from "./grammar/types.js";

/** One rule as written by the operator, with where it was written. */
export interface RuleSpec {
  /** The rule text: whitespace-separated literal tokens, or `/pattern/flags`. */
  readonly text: string;
  /** Where the rule came from, for messages: `…/rules.yaml:4:5`. */
  readonly origin: string;
}

/** The two lists of one `rules.yaml`. */
export interface RuleListSpec {
  readonly deny: readonly RuleSpec[];
  readonly accept: readonly RuleSpec[];
}

/**
 * The rule files in force for a call: the provider's shared file and, when the
 * call names a target that has its own `rules.yaml`, that file too.
 */
export interface LayeredRuleSpecs {
  readonly shared: RuleListSpec;
  /** Present only when the target has its own `rules.yaml`. */
  readonly target?: RuleListSpec;
}

/** `provider.yaml` `policy:` after validation. */
export interface ProviderPolicySettings {
  readonly minimumAcceptTokens: number;
  /** Tokens refused anywhere in the argv, bare or as `--opt=value`. */
  readonly forbiddenArgs: readonly string[];
  readonly ignoreArgs: {
    /** Tokens dropped from the start of the argv, repeatedly, before rules are evaluated. */
    readonly leading: readonly string[];
    /** Options dropped anywhere (with their `=value`) before rules are evaluated. */
    readonly flags: readonly string[];
  };
  /** Options whose value sets other parameters of the operation (`--cli-input-json`); see parameter-carriers.ts. */
  readonly parameterCarriers?: readonly string[];
  /** The CLI's resource types, read in one spelling by rules and calls; see resource-types.ts. */
  readonly resourceTypes?: ResourceTypeSpec;
  /** Options that choose where a call acts (`--namespace`), read by deny rules as docs/policy.md says; see evaluate.ts. */
  readonly scopeOptions?: readonly ScopeOptionSpec[];
  /** argparse: other spellings of a command's own option (az `-g` for `--resource-group`), read by rules as docs/policy.md says; see evaluate.ts. */
  readonly optionAliases?: readonly OptionAliasSpec[];
  /**
   * First command words that pick a release track of the same command (gcloud `alpha`, `beta`):
   * deny rules also match the call without one, so a deny of `compute instances delete` holds
   * for `beta compute instances delete`; see evaluate.ts.
   */
  readonly releaseTracks?: readonly string[];
}

/**
 * `provider.yaml` `policy.scope_options`: an option that chooses where a call
 * acts (kubectl's `--namespace`), whose absence leaves that to a default the
 * broker cannot see before the allow (the kubeconfig's), and the options that
 * make the call act everywhere (`--all-namespaces`).
 */
export interface ScopeOptionSpec {
  readonly option: string;
  readonly every: readonly string[];
}

/**
 * `provider.yaml` `policy.option_aliases`: a command's own option of an argparse
 * CLI and its other option strings, which set the same destination (az's
 * `--resource-group`/`-g`, `--name`/`-n`): argparse keeps the last of them.
 */
export interface OptionAliasSpec {
  readonly option: string;
  readonly aliases: readonly string[];
  /**
   * Command paths the row applies to (a call whose command words start with one); absent: every
   * command. For each option string the row with the longest matching path wins (azure-cli's
   * `group` commands: `--name -n --resource-group -g` are one argument).
   */
  readonly commands?: readonly (readonly string[])[];
}

/** `provider.yaml` `policy.resource_types`: built-in resource types and the commands that take them. */
export interface ResourceTypeSpec {
  /** Command paths whose first operand is a resource type list (`[get]`, `[rollout, status]`). */
  readonly verbs: readonly (readonly string[])[];
  /** Plural name → its other spellings (singular, kind, short names). */
  readonly types: Readonly<Record<string, readonly string[]>>;
  /** Of `verbs`, the commands whose last operand is not a resource (`[set, serviceaccount]`: the account). */
  readonly trailing?: readonly (readonly string[])[] | undefined;
  /** Command paths whose first operand is `NAME` (of the `default` type) or `TYPE/NAME` (`[logs]`, `[exec]`). */
  readonly named?: { readonly default: string; readonly verbs: readonly (readonly string[])[] } | undefined;
  /** Options that choose the objects of the named types other than by name (`--selector`, `--all`): any name of each type. */
  readonly selectors?: readonly string[] | undefined;
  /** Options that name objects of any type (`--filename`, `--kustomize`, `--raw`): any type, any name. */
  readonly manifests?: readonly string[] | undefined;
  /**
   * Sub-command aliases, per parent command path (words joined by a space):
   * the name the CLI lists first → its other names (`create: {deployment: [deploy]}`).
   */
  readonly command_aliases?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> | undefined;
}

/** Everything the pure policy engine needs to know about one provider. */
export interface ProviderPolicyContext {
  /** The provider's MCP tool name, for messages. */
  readonly tool: string;
  readonly grammar: GrammarSpec;
  /** Broker-owned options (the target mode's floor plus `targeting.locked_options`). */
  readonly lockedOptions: readonly string[];
  /** Commands no rule may allow (the target mode's floor in config/locked-floor.ts; absent: none). */
  readonly lockedCommands?: readonly LockedCommand[];
  readonly settings: ProviderPolicySettings;
}

/** Which list a rule belongs to and which file layer it came from. */
export type RuleList = "deny" | "accept";
export type RuleLayer = "shared" | "target";

/** A rule as reported in decisions and in `torii_policy`. */
export interface RuleRef {
  readonly text: string;
  readonly list: RuleList;
  readonly layer: RuleLayer;
  readonly origin: string;
}

/**
 * What policy alone says about an argv. `unresolved` is not an allow: a grant or
 * a human must still decide, and with neither the call is denied.
 */
export type PolicyDecision =
  | { readonly result: "deny"; readonly source: "locked-option"; readonly reason: string; readonly option: string }
  | { readonly result: "deny"; readonly source: "locked-command"; readonly reason: string; readonly command: string }
  | { readonly result: "deny"; readonly source: "forbidden-value"; readonly reason: string }
  | { readonly result: "deny"; readonly source: "argv-rejected"; readonly reason: string }
  | { readonly result: "deny"; readonly source: "forbidden-arg"; readonly reason: string; readonly forbidden: string }
  | { readonly result: "deny"; readonly source: "policy-error"; readonly reason: string }
  | { readonly result: "deny"; readonly source: "explicit-deny"; readonly reason: string; readonly rule: RuleRef }
  | { readonly result: "accept"; readonly source: "rules"; readonly reason: string; readonly rule: RuleRef }
  | {
      readonly result: "unresolved";
      readonly source: "no-rule";
      readonly reason: string;
      /** The call writes a local file: every allow source holds it (file-write-hold.ts). */
      readonly fileWrite?: FileWriteHold;
    };

export type DecisionSource = PolicyDecision["source"];

/** A decision that ends the call. */
export type DenyDecision = Extract<PolicyDecision, { result: "deny" }>;

/** A decision together with the argv it was made on. */
export interface PolicyEvaluation {
  readonly decision: PolicyDecision;
  /** The canonical argv (what would be spawned); absent when the argv was rejected. */
  readonly canonical?: CanonicalArgv;
  /** The flattened canonical argv, the token list grants are matched against. */
  readonly canonicalTokens?: readonly string[];
}

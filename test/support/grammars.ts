/**
 * Small grammars shaped like the real CLIs, for unit tests that must not change
 * when the bundled provider tables are regenerated.
 */
import { LOCKED_OPTION_FLOOR } from "../../src/config/locked-floor.js";
import { compileGrammar, type CompiledGrammar } from "../../src/policy/grammar/option-table.js";
import type { GrammarSpec, LiteralUrlParameter, OptionSpec } from "../../src/policy/grammar/types.js";
import type { ProviderPolicyContext, ProviderPolicySettings } from "../../src/policy/types.js";

const opt = (name: string, value: OptionSpec["value"], short?: string, repeatable = false): OptionSpec =>
  short === undefined ? { name, value, repeatable } : { name, value, short, repeatable };

/** The floor of locked kubectl options (src/config/locked-floor.ts), as the bundled provider gets it. */
export const KUBECTL_LOCKED = [...LOCKED_OPTION_FLOOR.kubectl_context];

export const kubectlSpec: GrammarSpec = {
  parser: "pflag",
  forbiddenValuePrefixes: [],
  fetchedValues: { urlOptions: ["--filename"], gitOptions: ["--kustomize"], gitOperandsOf: [["kustomize"]], literal: [] },
  options: [
    opt("--namespace", "required", "-n"),
    opt("--server", "required", "-s"),
    opt("--context", "required"),
    opt("--kubeconfig", "required"),
    opt("--as", "required"),
    opt("--as-group", "required", undefined, true),
    opt("--insecure-skip-tls-verify", "none"),
    opt("--token", "required"),
    opt("--v", "required", "-v"),
    opt("--request-timeout", "required"),
  ],
  commands: [
    {
      path: ["get"],
      options: [
        opt("--all-namespaces", "none", "-A"),
        opt("--output", "required", "-o"),
        opt("--selector", "required", "-l"),
        opt("--watch", "none", "-w"),
        opt("--raw", "required"),
        opt("--show-labels", "none"),
      ],
    },
    {
      path: ["logs"],
      options: [opt("--follow", "none", "-f"), opt("--previous", "none", "-p"), opt("--container", "required", "-c"), opt("--tail", "required")],
    },
    {
      path: ["apply"],
      options: [
        opt("--filename", "required", "-f", true),
        opt("--kustomize", "required", "-k"),
        opt("--recursive", "none", "-R"),
        opt("--dry-run", "optional"),
      ],
    },
    { path: ["exec"], options: [opt("--stdin", "none", "-i"), opt("--tty", "none", "-t"), opt("--container", "required", "-c")] },
    { path: ["rollout", "status"], options: [opt("--watch", "none", "-w"), opt("--timeout", "required")] },
    { path: ["config", "view"], options: [opt("--raw", "none"), opt("--minify", "none")] },
  ],
};

export const AWS_LOCKED = [...LOCKED_OPTION_FLOOR.aws_profile];

/** A few of the parameters the AWS CLI passes on literally (the bundled table has them all). */
const awsLiteral = (command: string, option: string, list = false): LiteralUrlParameter => ({ command: command.split(" "), option, list });

export const awsSpec: GrammarSpec = {
  parser: "argparse",
  forbiddenValuePrefixes: ["file://", "fileb://"],
  doubleDash: "ignored",
  fetchedValues: {
    urlOptions: ["*"],
    gitOptions: [],
    gitOperandsOf: [],
    literal: [
      awsLiteral("cloudformation validate-template", "--template-url"),
      awsLiteral("cloudformation deploy", "--template-file"),
      awsLiteral("sqs receive-message", "--queue-url"),
      awsLiteral("rds copy-db-snapshot", "--pre-signed-url"),
      awsLiteral("comprehend batch-detect-entities", "--text-list", true),
    ],
  },
  options: [
    opt("--debug", "none"),
    opt("--endpoint-url", "required"),
    opt("--no-verify-ssl", "none"),
    opt("--no-paginate", "none"),
    opt("--output", "required"),
    opt("--query", "required"),
    opt("--profile", "required"),
    opt("--region", "required"),
    opt("--version", "none"),
    opt("--color", "required"),
    opt("--no-sign-request", "none"),
    opt("--ca-bundle", "required"),
    opt("--cli-read-timeout", "required"),
    opt("--cli-connect-timeout", "required"),
    opt("--cli-binary-format", "required"),
    opt("--no-cli-pager", "none"),
    opt("--cli-auto-prompt", "none"),
    opt("--no-cli-auto-prompt", "none"),
  ],
  commands: [],
};

export const azSpec: GrammarSpec = {
  parser: "argparse",
  forbiddenValuePrefixes: ["@"],
  fetchedValues: { urlOptions: ["--template-uri", "-u", "--parameters", "-p"], gitOptions: [], gitOperandsOf: [], literal: [] },
  options: [
    opt("--subscription", "required"),
    opt("--output", "required", "-o"),
    opt("--query", "required"),
    opt("--debug", "none"),
    opt("--verbose", "none"),
    opt("--only-show-errors", "none"),
    opt("--help", "none", "-h"),
  ],
  commands: [],
};

export const plainSpec: GrammarSpec = { parser: "plain", forbiddenValuePrefixes: [], options: [], commands: [] };

export const kubectl = (): CompiledGrammar => compileGrammar(kubectlSpec, KUBECTL_LOCKED);
export const aws = (): CompiledGrammar => compileGrammar(awsSpec, AWS_LOCKED);
export const az = (): CompiledGrammar => compileGrammar(azSpec, ["--subscription"]);

export const defaultSettings: ProviderPolicySettings = {
  minimumAcceptTokens: 1,
  forbiddenArgs: [],
  ignoreArgs: { leading: [], flags: [] },
};

export function context(
  tool: string,
  grammar: GrammarSpec,
  lockedOptions: readonly string[] = [],
  settings: Partial<ProviderPolicySettings> = {},
): ProviderPolicyContext {
  return { tool, grammar, lockedOptions, settings: { ...defaultSettings, ...settings } };
}

/**
 * `torii setup`: an interactive wizard from nothing to a working Torii. Each
 * step shows what already exists (rerunning changes nothing unasked) and each
 * is also a non-interactive command (NON_INTERACTIVE below), which is what a
 * non-TTY stdin is told to use instead.
 *
 * 1. the configuration root and settings.yaml (torii init);
 * 2. bundled providers whose CLI is on PATH, each with a preset (torii provider install);
 * 3. targets from `kubectl config get-contexts` and the AWS profiles (torii target add; an
 *    AWS profile's account is asked of STS and pinned once the operator confirms it),
 *    and a lease for one of them (torii target activate);
 * 4. rules: shown, then accept/deny rules added or removed with a simulation (torii policy edit);
 * 5. the MCP clients, registering Torii with the chosen ones (torii agent install <client>);
 * 6. the registration lines for any other client (torii setup --registration), and a torii doctor summary.
 */
import { checkbox, confirm, select } from "@inquirer/prompts";
import { loadRegistry } from "../../config/registry.js";
import { doctorChecks } from "../doctor/doctor.js";
import { installProvider } from "../provider/provider.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";
import { runTargetAdd } from "../target/target-add.js";
import { runTargetActivate } from "../target/target-leases.js";
import { addAwsTarget } from "./aws-account.js";
import { ensureRoot, runInit } from "./init.js";
import { ensureKubeIdentity, KUBE_IDENTITY } from "./kube-identity.js";
import { registrationEntry, registrationLines } from "./registration-lines.js";
import { agentStep } from "./setup-agents.js";
import { emit } from "../shared/operator-output.js";
import { aliasFor, detectProviders, kubeContexts } from "./setup-detect.js";
import { editRulesInteractively } from "./setup-rules.js";
import { awsProfileNames } from "../doctor/target-checks.js";
import { operatorChildFiles } from "../shared/child-view.js";
import { unseenEscapes } from "../../runtime/display-text.js";
import { ConfigError } from "../../config/errors.js";

/** The non-interactive commands that do setup's steps. */
export const NON_INTERACTIVE = [
  "torii init",
  "torii provider list",
  "torii provider install <name> --preset readonly",
  `torii setup --kube-identity                      (creates ${KUBE_IDENTITY}, the kubectl targets' identity provider)`,
  `torii target add kubectl <alias> --context <context> --provider ${KUBE_IDENTITY}`,
  "torii target add aws <alias> --profile <profile> --account-id <12 digits> --check-account",
  "torii target activate <tool> <alias>",
  "torii policy edit <tool>",
  "torii agent install <client>",
  "torii setup --registration",
  "torii doctor",
];

export interface SetupOptions {
  readonly registration?: boolean;
  readonly kubeIdentity?: boolean;
  readonly json?: boolean;
}

/**
 * A kube context or AWS profile name as the terminal shows it: read from a kubeconfig or an AWS config
 * that may come from elsewhere, so what a terminal would act on (escapes, controls, bidi marks) is written out.
 */
const shown = (name: string): string => unseenEscapes(name);

const say = (...lines: string[]): void => {
  process.stdout.write(`${lines.join("\n")}\n`);
};

/** `torii setup [--registration | --kube-identity] [--json]`. */
export async function runSetup(options: SetupOptions): Promise<number> {
  const root = configRoot();
  if (options.registration === true) {
    const server = registrationEntry(root);
    emit(
      options,
      {
        config_root: root,
        server,
        claude_code: [
          "claude",
          "mcp",
          "add",
          "torii",
          ...(server.env === undefined ? [] : ["-e", `TORII_CONFIG_DIR=${root}`]),
          "--",
          server.command,
          ...server.args,
        ],
      },
      registrationLines(root),
    );
    return 0;
  }
  if (options.kubeIdentity === true) {
    if (options.json === true) ensureRoot();
    else runInit();
    const created = await ensureKubeIdentity(root);
    emit(options, { provider: KUBE_IDENTITY, created }, [created ? `created the ${KUBE_IDENTITY} provider` : `${KUBE_IDENTITY} already exists`]);
    return 0;
  }
  if (options.json === true) throw new OperatorError("--json goes with --registration or --kube-identity; the wizard itself converses");
  if (!process.stdin.isTTY) {
    throw new OperatorError(
      `setup is interactive and stdin is not a terminal; the same steps without prompts:\n${NON_INTERACTIVE.map((line) => `  ${line}`).join("\n")}`,
    );
  }
  try {
    await wizard(root);
    return 0;
  } catch (error) {
    if (error instanceof Error && error.name === "ExitPromptError") {
      say("", "setup cancelled; what was done is kept (rerun torii setup to continue)");
      return 130;
    }
    throw error;
  }
}

async function wizard(root: string): Promise<void> {
  runInit();
  await providerStep(root);
  await targetStep(root);
  await rulesStep(root);
  await agentStep(root, say);
  say("", ...registrationLines(root));
  const failed = (await doctorChecks(root)).filter((finding) => finding.status === "fail");
  say(
    "",
    failed.length === 0
      ? "torii doctor: no problem that would stop a call"
      : `torii doctor: ${failed.length} problem(s) would stop calls (run torii doctor for the fixes)`,
  );
}

async function providerStep(root: string): Promise<void> {
  const detected = detectProviders(root);
  say(
    "",
    "Providers (bundled CLIs):",
    ...detected.map((p) => `  ${p.name.padEnd(8)} ${p.installed ? "installed" : p.cli === undefined ? "CLI not on PATH" : `CLI at ${p.cli}`}`),
  );
  const candidates = detected.filter((p) => !p.installed && p.cli !== undefined);
  if (candidates.length === 0) return;
  const chosen = await checkbox({ message: "Install which providers?", choices: candidates.map((p) => ({ name: p.name, value: p })) });
  for (const provider of chosen) {
    const preset = await select({
      message: `Rules to start ${provider.name} with:`,
      choices: [
        ...provider.presets.map((name) => ({ name: `${name} preset`, value: name })),
        { name: "empty (nothing allowed until you add rules)", value: "" },
      ],
    });
    const result = await installProvider(root, provider.name, preset === "" ? undefined : preset);
    say(`installed ${result.name}${result.preset === null ? " with empty rules" : ` with the ${result.preset} preset`}`);
  }
}

async function targetStep(root: string): Promise<void> {
  let registry = loadRegistry(root);
  const kubectl = registry.providers.get("kubectl");
  if (kubectl !== undefined) {
    const { kubeconfig, contexts } = kubeContexts(kubectl, registry);
    const taken = new Set([...kubectl.targets.values()].map((target) => target.config.context));
    say("", `kubectl contexts in ${kubeconfig}:`, ...contexts.map((context) => `  ${shown(context)}${taken.has(context) ? " (a target already)" : ""}`));
    const free = contexts.filter((context) => !taken.has(context));
    const chosen =
      free.length === 0
        ? []
        : await checkbox({ message: "Make targets of which contexts?", choices: free.map((context) => ({ name: shown(context), value: context })) });
    if (chosen.length > 0 && (await ensureKubeIdentity(root)))
      say(`created the ${KUBE_IDENTITY} provider (the kubectl targets' identity provider; it runs nothing)`);
    for (const context of chosen) await runTargetAdd("kubectl", aliasFor(context), { context, provider: KUBE_IDENTITY });
  }
  const aws = registry.providers.get("aws");
  if (aws !== undefined) {
    const taken = new Set([...aws.targets.values()].map((target) => target.config.identity.profile));
    let names: Set<string>;
    try {
      names = awsProfileNames(operatorChildFiles(aws, undefined, registry).aws);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      say("", `AWS profiles: not read: ${shown(error.message)}`);
      names = new Set();
    }
    const profiles = [...names].filter((profile) => !taken.has(profile));
    say("", `AWS profiles without a target: ${profiles.map(shown).join(", ") || "none"}`);
    const chosen =
      profiles.length === 0
        ? []
        : await checkbox({ message: "Make targets of which profiles?", choices: profiles.map((profile) => ({ name: shown(profile), value: profile })) });
    for (const profile of chosen) await addAwsTarget(aws, profile, { say, confirm });
  }
  registry = loadRegistry(root);
  const targets = [...registry.providers.values()].flatMap((provider) =>
    [...provider.targets.values()].map((target) => ({ tool: provider.tool, alias: target.name })),
  );
  if (targets.length === 0) return;
  const lease = await select({
    message: "Activate a target now (a lease for the default minutes)?",
    choices: [{ name: "no", value: undefined }, ...targets.map((target) => ({ name: `${target.tool} ${target.alias}`, value: target }))],
  });
  if (lease !== undefined) await runTargetActivate(lease.tool, lease.alias, {});
}

async function rulesStep(root: string): Promise<void> {
  for (;;) {
    const providers = [...loadRegistry(root).providers.values()].filter((provider) => provider.name !== KUBE_IDENTITY);
    if (providers.length === 0) return;
    const provider = await select({
      message: "Review or change rules of:",
      choices: [{ name: "no more rule changes", value: undefined }, ...providers.map((p) => ({ name: p.tool, value: p }))],
    });
    if (provider === undefined) return;
    await editRulesInteractively(root, provider);
    if (!(await confirm({ message: "Another provider's rules?", default: false }))) return;
  }
}

/**
 * Doctor's checks of one provider's targets: the kube context exists in the
 * kubeconfig the target's kubectl will read (and a configured one is trusted),
 * the AWS profile exists in the AWS config or credentials file its calls read
 * (both from pipeline/child-files.ts, never the shell's KUBECONFIG or
 * AWS_CONFIG_FILE; a file a `.env` names must also be trusted), and the lease file is valid (and which targets are active).
 * Only names are read from those files; nothing else in them is printed.
 */
import path from "node:path";
import { ConfigError } from "../../config/errors.js";
import { unseenEscapes } from "../../runtime/display-text.js";
import { readConfigTextIfExists } from "../../config/read-file.js";
import type { ProviderEntry, Registry, TargetEntry } from "../../config/registry.js";
import type { ChildKubeconfig } from "../../pipeline/child-kubeconfig.js";
import type { ChildFiles } from "../../pipeline/child-files.js";
import { operatorChildFiles } from "../shared/child-view.js";
import { leaseBindingOf, leaseStatusOf } from "../../state/lease-status.js";
import { LeaseStore } from "../../state/lease-store.js";
import { checkedKubeconfigContexts } from "../target/kubeconfig.js";
import { envAwsFilesCheck } from "./provider-checks.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/**
 * The profile names of the AWS shared config and credentials files (`[profile x]`, `[x]`, `[default]`) a child reads.
 *
 * @throws ConfigError naming a file that exists but is not a regular file (a named pipe) or cannot be read.
 */
export function awsProfileNames(files: { readonly configFile: string; readonly credentialsFile: string }): Set<string> {
  const names = new Set<string>();
  for (const file of [files.configFile, files.credentialsFile]) {
    // Read without blocking: a named pipe put at ~/.aws/config is refused (ConfigError) instead of hanging doctor and setup.
    const text = readConfigTextIfExists(file);
    if (text === undefined) continue;
    for (const match of text.matchAll(/^\s*\[\s*(?:profile\s+)?([^\]\s]+)\s*\]/gmu)) if (match[1] !== undefined) names.add(match[1]);
  }
  return names;
}

/** Findings for the targets and leases of `provider`, each read through the files its calls' child will read. */
export function targetChecks(provider: ProviderEntry, registry: Registry, now: Date = new Date()): DoctorCheck[] {
  const mode = provider.config.targeting?.mode;
  if (mode === undefined) return [];
  const tool = provider.tool;
  if (provider.targets.size === 0) {
    const example =
      mode === "kubectl_context"
        ? `torii target add ${tool} <alias> --context <context> --provider <identity provider>`
        : mode === "aws_profile"
          ? `torii target add ${tool} <alias> --profile <profile> --account-id <12 digits>`
          : `torii target add ${tool} <alias>`;
    return [check(`provider ${tool}`, "fail", "has no targets: every call must name one, so none can run", `${example} (or torii setup)`)];
  }
  const findings: DoctorCheck[] = [];
  for (const target of provider.targets.values()) {
    const subject = `target ${tool}/${target.name}`;
    let files: ChildFiles;
    try {
      files = operatorChildFiles(provider, target, registry);
    } catch (error) {
      findings.push(check(subject, "fail", `${(error as Error).message}; its calls fail`, "fix the file named above, then run torii doctor again"));
      continue;
    }
    if (mode === "kubectl_context" && target.config.context !== undefined) findings.push(kubeContextCheck(provider, target, files.kubeconfig, subject));
    const profile = target.config.identity.profile;
    const untrustedAws = mode === "aws_profile" ? envAwsFilesCheck(subject, provider, files) : [];
    findings.push(...untrustedAws);
    if (mode === "aws_profile" && profile !== undefined && untrustedAws.length === 0) {
      let names: Set<string>;
      try {
        names = awsProfileNames(files.aws);
      } catch (error) {
        findings.push(check(subject, "fail", `${(error as Error).message}; its calls' aws reads it`, "make it a regular file, then run torii doctor again"));
        continue;
      }
      findings.push(
        names.has(profile)
          ? check(subject, "ok", `AWS profile ${unseenEscapes(profile)} exists in ${files.aws.configFile} or ${files.aws.credentialsFile}`)
          : check(
              subject,
              "fail",
              `AWS profile ${unseenEscapes(JSON.stringify(profile))} is in neither ${files.aws.configFile} nor ${files.aws.credentialsFile} (the files its calls read)`,
              `aws configure --profile ${unseenEscapes(profile)} (or aws configure sso)`,
            ),
      );
    }
  }
  findings.push(...leaseChecks(provider, now));
  return findings;
}

function leaseChecks(provider: ProviderEntry, now: Date): DoctorCheck[] {
  const read = new LeaseStore(provider.dir).read();
  if (!read.ok) {
    return [
      check(
        `leases ${provider.tool}`,
        "fail",
        `${read.error.file}: ${read.error.detail}; no target of ${provider.tool} is active while it is invalid`,
        `torii target clear ${provider.tool}`,
      ),
    ];
  }
  const active = [...provider.targets.values()].filter(
    (target) => leaseStatusOf(read.state, target.name, leaseBindingOf(provider.name, target), now).kind === "active",
  );
  return [
    active.length === 0
      ? check(`leases ${provider.tool}`, "warn", "no target is active: calls are refused until one is", `torii target activate ${provider.tool} <alias>`)
      : check(`leases ${provider.tool}`, "ok", `active: ${active.map((target) => target.name).join(", ")}`),
  ];
}

/** The target's context against the kubeconfig its calls read (pinned, from a `.env`, or the default), which must also be trusted. */
function kubeContextCheck(provider: ProviderEntry, target: TargetEntry, kubeconfig: ChildKubeconfig, subject: string): DoctorCheck {
  const files = kubeconfig.files.join(path.delimiter);
  const context = target.config.context ?? "";
  const readdFix = `torii target remove ${provider.tool} ${target.name}, then torii target add it again with --kubeconfig naming a file that has it`;
  let contexts: string[];
  try {
    contexts = checkedKubeconfigContexts(kubeconfig, provider.trust.policy, target.config.kubeconfig);
  } catch (error) {
    const fix = error instanceof ConfigError && error.detail.includes("fix: ") ? "run the fix named above" : readdFix;
    return check(subject, "fail", `${(error as Error).message}; its calls fail`, fix);
  }
  if (!contexts.includes(context)) {
    return check(
      subject,
      "fail",
      `context ${unseenEscapes(JSON.stringify(context))} is not in ${files}`,
      `kubectl config get-contexts --kubeconfig ${files} lists the ones there are; ${readdFix}`,
    );
  }
  return check(subject, "ok", `context ${unseenEscapes(context)} exists in ${files}`);
}

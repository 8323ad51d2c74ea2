/**
 * Doctor's checks of one provider's targets: the kube context exists in the
 * kubeconfig kubectl will read, the AWS profile exists in the AWS config or
 * credentials file, and the lease file is valid (and which targets are active).
 * Only names are read from those files; nothing else in them is printed.
 */
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ProviderEntry } from "../../config/registry.js";
import { leaseBindingOf, leaseStatusOf } from "../../state/lease-status.js";
import { LeaseStore } from "../../state/lease-store.js";
import { kubeconfigContexts, kubeconfigPath } from "../target/kubeconfig.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** The profile names of the AWS shared config and credentials files (`[profile x]`, `[x]`, `[default]`). */
export function awsProfileNames(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): Set<string> {
  const names = new Set<string>();
  const files = [env.AWS_CONFIG_FILE ?? path.join(home, ".aws", "config"), env.AWS_SHARED_CREDENTIALS_FILE ?? path.join(home, ".aws", "credentials")];
  for (const file of files) {
    if (!existsSync(file)) continue;
    for (const match of readFileSync(file, "utf8").matchAll(/^\s*\[\s*(?:profile\s+)?([^\]\s]+)\s*\]/gmu)) if (match[1] !== undefined) names.add(match[1]);
  }
  return names;
}

/** Findings for the targets and leases of `provider`. */
export function targetChecks(provider: ProviderEntry, now: Date = new Date()): DoctorCheck[] {
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
  let contexts: string[] | undefined;
  let contextsProblem: string | undefined;
  const kubeconfig = kubeconfigPath(process.env, os.homedir());
  const profiles = mode === "aws_profile" ? awsProfileNames() : undefined;
  for (const target of provider.targets.values()) {
    const subject = `target ${tool}/${target.name}`;
    if (mode === "kubectl_context" && target.config.context !== undefined) {
      if (contexts === undefined && contextsProblem === undefined) {
        try {
          contexts = kubeconfigContexts(kubeconfig);
        } catch (error) {
          contextsProblem = (error as Error).message;
        }
      }
      if (contextsProblem !== undefined) findings.push(check(subject, "fail", contextsProblem, "set KUBECONFIG to the kubeconfig the client should use"));
      else if (!(contexts ?? []).includes(target.config.context)) {
        findings.push(
          check(
            subject,
            "fail",
            `context ${JSON.stringify(target.config.context)} is not in ${kubeconfig}`,
            `kubectl config get-contexts lists the ones there are; torii target remove ${tool} ${target.name} and add it again`,
          ),
        );
      } else findings.push(check(subject, "ok", `context ${target.config.context} exists in ${kubeconfig}`));
    }
    const profile = target.config.identity.profile;
    if (profiles !== undefined && profile !== undefined) {
      findings.push(
        profiles.has(profile)
          ? check(subject, "ok", `AWS profile ${profile} exists`)
          : check(
              subject,
              "fail",
              `AWS profile ${JSON.stringify(profile)} is in neither the AWS config nor the credentials file`,
              `aws configure --profile ${profile} (or aws configure sso)`,
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

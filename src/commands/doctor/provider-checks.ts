/**
 * Doctor's checks of one provider: its rules load and compile (through the
 * server's own loader), it has accept rules, its CLI is on PATH as the server
 * resolves it (through the child's PATH, .env included), the CLI's version against the version its option table was
 * generated from, its grants files are valid, and its installed definition is not
 * older than the one bundled with this Torii (config/provider-freshness.ts). An identity-only provider
 * (`expose: false`) is no tool: the agent never calls it, so it needs neither
 * accept rules nor its `command` on PATH.
 */
import type { ProviderEntry, Registry } from "../../config/registry.js";
import { readConfigText } from "../../config/read-file.js";
import { PolicyCache } from "../../pipeline/policy-cache.js";
import { grantsFileOf, GrantStore } from "../../state/grant-store.js";
import { cliVersionText, versionProbeBlocker } from "../shared/cli-on-path.js";
import { operatorChildFiles } from "../shared/child-view.js";
import type { ChildFiles } from "../../pipeline/child-files.js";
import { checkConfiguredKubeconfigs } from "../../pipeline/child-kubeconfig.js";
import { checkConfiguredAwsFiles } from "../../pipeline/child-aws-files.js";
import { bundledCatalogueDir, isOlderThanBundled, upgradeCommand } from "../../config/provider-freshness.js";
import { firstVersion, generatedFromVersion } from "../provider/catalogue.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** Findings for `provider` (its targets are target-checks.ts's). */
export function providerChecks(provider: ProviderEntry, registry: Registry): DoctorCheck[] {
  return [...freshnessChecks(provider), ...ruleChecks(provider), ...cliChecks(provider, registry), ...grantChecks(provider)];
}

/** An installed copy older than the bundled definition misses the security data added since. */
function freshnessChecks(provider: ProviderEntry): DoctorCheck[] {
  if (!isOlderThanBundled(provider.name, provider.dir, bundledCatalogueDir())) return [];
  return [
    check(
      `definition ${provider.name}`,
      "warn",
      `${provider.file} is older than the definition bundled with this Torii: security data added since (file writes, locked options and commands, selectors) does not apply to its calls`,
      `${upgradeCommand(provider.name)} (with --dry-run first to see the changes), then restart the client`,
    ),
  ];
}

function ruleChecks(provider: ProviderEntry): DoctorCheck[] {
  const subject = `rules ${provider.tool}`;
  const scopes = [undefined, ...[...provider.targets.values()].filter((target) => target.hasOwnRules).map((target) => target.name)];
  const findings: DoctorCheck[] = [];
  for (const alias of scopes) {
    const where = alias === undefined ? provider.tool : `${provider.tool} ${alias}`;
    try {
      const { policy } = new PolicyCache().load(provider, alias);
      const first = policy.errors[0];
      if (first !== undefined) {
        findings.push(
          check(
            subject,
            "fail",
            `${first.ref.origin}: ${first.ref.list} rule ${JSON.stringify(first.ref.text)} ${first.message}; every call is denied`,
            `torii policy edit ${where}`,
          ),
        );
      } else if (policy.accept.all.length === 0 && provider.config.expose) {
        findings.push(check(subject, "warn", `${where}: no accept rule, so every call needs a grant or the operator's approval`, `torii policy edit ${where}`));
      } else findings.push(check(subject, "ok", `${where}: ${policy.deny.all.length} deny, ${policy.accept.all.length} accept rule(s)`));
    } catch (error) {
      findings.push(check(subject, "fail", `${(error as Error).message}; every call is denied`, `torii policy edit ${where}`));
    }
  }
  return findings;
}

/**
 * The program each call runs, found as the server finds it: through the child's
 * PATH, which a provider's or target's `.env` may set. When the targets' calls
 * do not all find the same program, each target is named with its own.
 */
function cliChecks(provider: ProviderEntry, registry: Registry): DoctorCheck[] {
  const subject = `cli ${provider.tool}`;
  const command = provider.config.command;
  if (!provider.config.expose) return [check(subject, "ok", `identity-only (expose: false): no MCP tool, so ${command} is never run for the agent`)];
  const scopes = provider.targetAware && provider.targets.size > 0 ? [...provider.targets.values()] : [undefined];
  const found = scopes.map((target) => {
    try {
      return { target, files: operatorChildFiles(provider, target, registry) };
    } catch (error) {
      return { target, problem: (error as Error).message };
    }
  });
  const outcome = (entry: (typeof found)[number]): string =>
    "files" in entry ? (entry.files.executable.ok ? entry.files.executable.path : entry.files.executable.reason) : entry.problem;
  const alike = new Set(found.map(outcome)).size === 1;
  const findings: DoctorCheck[] = [];
  for (const entry of alike ? found.slice(0, 1) : found) {
    const where = alike || entry.target === undefined ? subject : `${subject} (target ${entry.target.name})`;
    if (!("files" in entry)) {
      findings.push(check(where, "fail", `${entry.problem}; no call can run`, "fix the file named above, then run torii doctor again"));
    } else if (!entry.files.executable.ok && entry.files.executable.refused) {
      findings.push(check(where, "fail", `${entry.files.executable.reason}; no call can run`, "do what the message above says, then run torii doctor again"));
    } else if (!entry.files.executable.ok) {
      findings.push(
        check(
          where,
          "fail",
          `${command} is not on PATH (the PATH its calls get: ${entry.files.executable.reason}), so no call can run`,
          `install ${command}, or start the client with a PATH that holds it (GUI clients often see a shorter PATH than your shell), or set PATH in the provider's .env`,
        ),
      );
    } else findings.push(versionCheck(provider, where, entry.files.executable, entry.files));
  }
  // A kubectl_context target's kubeconfig is target-checks.ts's; here, a KUBECONFIG another provider's .env sets.
  if (provider.config.targeting?.mode !== "kubectl_context")
    findings.push(...found.flatMap((entry) => ("files" in entry ? envKubeconfigCheck(provider, entry.files) : [])));
  // Likewise an aws_profile target's AWS files; here, the ones another provider's .env names (an EKS exec plugin reads them).
  if (provider.config.targeting?.mode !== "aws_profile")
    findings.push(...found.flatMap((entry) => ("files" in entry ? envAwsFilesCheck(`aws files ${provider.tool}`, provider, entry.files) : [])));
  return findings;
}

/** The AWS files a `.env` gives the calls must pass the trust rule, as every call checks (pipeline/call-config-files.ts). */
export function envAwsFilesCheck(subject: string, provider: ProviderEntry, files: ChildFiles): DoctorCheck[] {
  try {
    checkConfiguredAwsFiles(files.probeEnv, provider.trust.policy);
    return [];
  } catch (error) {
    return [check(subject, "fail", `${(error as Error).message}; every call is refused`, "run the fix named above")];
  }
}

/** A KUBECONFIG a `.env` gives the calls must pass the trust rule, as every call checks (pipeline/call-config-files.ts). */
function envKubeconfigCheck(provider: ProviderEntry, files: ChildFiles): DoctorCheck[] {
  try {
    checkConfiguredKubeconfigs(files.kubeconfig, provider.trust.policy);
    return [];
  } catch (error) {
    return [check(`kubeconfig ${provider.tool}`, "fail", `${(error as Error).message}; every call is refused`, "run the fix named above")];
  }
}

/** The version of `program`, the one the calls run (located through `files`), against the one its option table was generated from. */
function versionCheck(
  provider: ProviderEntry,
  subject: string,
  program: { readonly path: string; readonly pins: Readonly<Record<string, string>> },
  files: ChildFiles,
): DoctorCheck {
  const command = provider.config.command;
  // A version manager's shim: which version runs is the pin's (docs/environment.md, "Version managers' shims").
  const pins = Object.entries(program.pins).map(([name, value]) => `${name}=${value}`);
  const executable = pins.length === 0 ? program.path : `${program.path} [pinned ${pins.join(", ")}]`;
  // Refused before the program starts, rather than waited on until the probe's timeout.
  const blocker = versionProbeBlocker(command, files.kubeconfig.files);
  if (blocker !== undefined) {
    return check(subject, "warn", `${executable}: its version was not asked: ${blocker}`, "make it a regular file, then run torii doctor again");
  }
  const expected = generatedFromVersion(readConfigText(provider.file));
  const actualText = cliVersionText(command, program.path, files.probeEnv);
  const actual = actualText === undefined ? undefined : firstVersion(actualText);
  if (expected === undefined || actual === undefined) return check(subject, "ok", `${executable}${actual === undefined ? "" : ` (${actual})`}`);
  const majorMinor = (version: string): string => version.split(".").slice(0, 2).join(".");
  if (majorMinor(expected) !== majorMinor(actual)) {
    return check(
      subject,
      "warn",
      `${executable} is version ${actual}; the option table was generated from ${expected}: options added since are refused as unknown, options removed since are still accepted by the table`,
      `torii provider upgrade ${provider.name} (when the bundled table is newer), or regenerate the table (providers/README.md)`,
    );
  }
  return check(subject, "ok", `${executable} (${actual}, table from ${expected})`);
}

function grantChecks(provider: ProviderEntry): DoctorCheck[] {
  const scopes = [undefined, ...provider.targets.values()];
  return scopes.flatMap((target) => {
    const read = new GrantStore(grantsFileOf(provider, target)).list();
    const where = target === undefined ? provider.tool : `${provider.tool} ${target.name}`;
    return read.ok
      ? []
      : [check(`grants ${where}`, "warn", `${read.error.file}: ${read.error.detail}; its grants allow nothing`, `torii grant clear ${where}`)];
  });
}

/**
 * `torii target add <tool> <name> …`: writes a new
 * `providers/<provider>/targets/<name>/target.yaml` from flags that depend on
 * the provider's `targeting.mode`:
 *
 * - `kubectl_context`: `--context` (must exist in the kubeconfig the server's
 *   kubectl will read: `--kubeconfig` when given, an absolute path the target
 *   then pins and that must pass the trust rule, else KUBECONFIG from a `.env`,
 *   else `~/.kube/config`; never the shell's KUBECONFIG) and `--provider` (the identity provider), optional
 *   `--scope`, `--expect`;
 * - `aws_profile`: `--profile`, `--account-id` (12 digits), optional `--region`,
 *   `--scope` (default: the profile), and `--check-account`: STS must name that
 *   account for the profile before anything is written (aws-account-check.ts);
 *   the identity provider is the provider itself;
 * - `credentials`: optional `--provider` (default: the provider itself), `--scope`, `--expect`.
 *
 * The document is checked with the target schema before anything is written and
 * with the whole registry (the cross-provider rules) after; if the registry
 * refuses it, what was written is removed again. The directory is 0700, the
 * file 0600 and written atomically. A new target starts inactive, and the MCP
 * server sees it only after a restart.
 */
import { lstatSync, mkdirSync, rmdirSync, rmSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { safeNameSchema } from "../../config/common-fields.js";
import { ConfigError } from "../../config/errors.js";
import { loadRegistry, type ProviderEntry, type Registry } from "../../config/registry.js";
import { targetConfigPath, targetDir, targetsDir } from "../../config/paths.js";
import { targetFileSchema, type TargetConfig } from "../../config/target-schema.js";
import { parseYamlDocument } from "../../config/yaml-document.js";
import { writeFileAtomic } from "../../state/atomic-write.js";
import { stsAccountOfProfile } from "./aws-account-check.js";
import { checkKubeContext } from "./kube-context-check.js";
import { describeConfig } from "./target-lines.js";
import { auditScope, operatorAudit } from "../shared/operator-audit.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";
import { emit, type JsonOption } from "../shared/operator-output.js";
import { findTargetAwareProvider } from "../shared/selection.js";

export interface TargetAddOptions extends JsonOption {
  readonly context?: string;
  readonly kubeconfig?: string;
  readonly provider?: string;
  readonly scope?: string;
  readonly expect?: string;
  readonly profile?: string;
  readonly accountId?: string;
  readonly region?: string;
  readonly checkAccount?: boolean;
}

/** What `target.yaml` will hold, before validation. */
interface TargetDocument {
  version: "1";
  name: string;
  context?: string;
  kubeconfig?: string;
  region?: string;
  identity: { provider: string; scope?: string; profile?: string; expect?: string };
}

const AWS_ACCOUNT_ID = /^[0-9]{12}$/;
const targetName = safeNameSchema(64);
const scopeName = safeNameSchema(128);

/** The flags each mode accepts; any other mode-specific flag is refused rather than ignored. */
const FLAGS_BY_MODE = {
  kubectl_context: ["context", "kubeconfig", "provider", "scope", "expect"],
  aws_profile: ["profile", "accountId", "region", "scope", "checkAccount"],
  credentials: ["provider", "scope", "expect"],
} as const;

const FLAG_SPELLING: Record<keyof Omit<TargetAddOptions, "json">, string> = {
  context: "--context",
  kubeconfig: "--kubeconfig",
  provider: "--provider",
  scope: "--scope",
  expect: "--expect",
  profile: "--profile",
  accountId: "--account-id",
  region: "--region",
  checkAccount: "--check-account",
};

export async function runTargetAdd(tool: string, name: string, options: TargetAddOptions): Promise<number> {
  const root = configRoot();
  const registry = loadRegistry(root);
  const provider = findTargetAwareProvider(registry, tool);
  const mode = provider.config.targeting?.mode;
  if (mode === undefined) throw new OperatorError(`${tool} takes no target`);
  if (!targetName.safeParse(name).success) {
    throw new OperatorError(`target name ${JSON.stringify(name)} must be 1 to 64 ASCII letters, digits, "_", "." or "-" (and not "." or "..")`);
  }
  refuseForeignFlags(mode, options);
  if (options.scope !== undefined && !scopeName.safeParse(options.scope).success) {
    throw new OperatorError(`--scope ${JSON.stringify(options.scope)} must be 1 to 128 ASCII letters, digits, "_", "." or "-"`);
  }
  const existing = provider.targets.get(name);
  if (existing !== undefined) throw new OperatorError(`${tool} already has a target ${JSON.stringify(name)} (${existing.file})`);

  const document = buildDocument(registry, provider, name, mode, options);
  const dir = targetDir(provider.dir, name);
  const file = targetConfigPath(dir);
  const text = `# torii target ${name} of ${provider.name} (created by torii target add)\n${stringify(document)}`;
  const config = validateDocument(file, text, provider);
  const note = mode === "kubectl_context" ? checkKubeContext(registry, provider, config) : undefined;
  if (options.checkAccount === true) await checkAccount(provider, name, config);
  await writeTarget(root, provider, name, dir, file, text);
  await operatorAudit(root).record({ event: "target-added", scope: auditScope(tool, name), detail: mode });

  const lines = [
    `added target ${name} to ${tool} (${mode}): ${file}`,
    ...describeConfig(config).map((line) => `  ${line}`),
    ...(note === undefined ? [] : [note]),
    `the target starts inactive: torii target activate ${tool} ${name}`,
    "restart the MCP server (the torii process your agent runs) so that it offers the new target",
  ];
  emit(options, { action: "target-added", tool, provider: provider.name, target: name, mode, file, config, restart_required: true }, lines);
  return 0;
}

function refuseForeignFlags(mode: keyof typeof FLAGS_BY_MODE, options: TargetAddOptions): void {
  const allowed: readonly string[] = FLAGS_BY_MODE[mode];
  for (const [key, flag] of Object.entries(FLAG_SPELLING)) {
    if (options[key as keyof typeof FLAG_SPELLING] !== undefined && !allowed.includes(key)) {
      throw new OperatorError(
        `${flag} does not apply to ${mode} targets (they take ${allowed.map((allowedKey) => FLAG_SPELLING[allowedKey as keyof typeof FLAG_SPELLING]).join(", ")})`,
      );
    }
  }
}

function required(value: string | undefined, flag: string, mode: string): string {
  if (value === undefined || value === "") throw new OperatorError(`${flag} is required for ${mode} targets`);
  return value;
}

function buildDocument(registry: Registry, provider: ProviderEntry, name: string, mode: keyof typeof FLAGS_BY_MODE, options: TargetAddOptions): TargetDocument {
  const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
    value === undefined ? {} : ({ [key]: value } as Record<K, V>);
  switch (mode) {
    case "kubectl_context": {
      const context = required(options.context, "--context", mode);
      const identityProvider = required(options.provider, "--provider", mode);
      checkIdentityProvider(registry, identityProvider, true);
      if (options.kubeconfig !== undefined && !path.isAbsolute(options.kubeconfig)) {
        throw new OperatorError(`--kubeconfig must be an absolute path, got ${JSON.stringify(options.kubeconfig)}`);
      }
      return {
        version: "1",
        name,
        context,
        ...optional("kubeconfig", options.kubeconfig),
        identity: { provider: identityProvider, ...optional("scope", options.scope), ...optional("expect", options.expect) },
      };
    }
    case "aws_profile": {
      const profile = required(options.profile, "--profile", mode);
      const accountId = required(options.accountId, "--account-id", mode);
      if (!AWS_ACCOUNT_ID.test(accountId)) throw new OperatorError(`--account-id must be exactly 12 digits, got ${JSON.stringify(accountId)}`);
      // Targets on one profile share its session, as in Torii; a profile name that is not a valid scope keeps the default.
      const scope = options.scope ?? (scopeName.safeParse(profile).success ? profile : undefined);
      return {
        version: "1",
        name,
        ...optional("region", options.region),
        identity: { provider: provider.name, ...optional("scope", scope), profile, expect: accountId },
      };
    }
    case "credentials": {
      const identityProvider = options.provider ?? provider.name;
      if (identityProvider !== provider.name) checkIdentityProvider(registry, identityProvider, false);
      return {
        version: "1",
        name,
        identity: { provider: identityProvider, ...optional("scope", options.scope), ...optional("expect", options.expect) },
      };
    }
  }
}

/** `--check-account`: STS must name the pinned account for the profile, or nothing is written. */
async function checkAccount(provider: ProviderEntry, name: string, config: TargetConfig): Promise<void> {
  const { profile, expect: pinned } = config.identity;
  if (profile === undefined || pinned === undefined) return;
  const answer = await stsAccountOfProfile(provider, { alias: name, profile, ...(config.region === undefined ? {} : { region: config.region }) });
  if (!answer.ok) throw new OperatorError(`--check-account: ${answer.reason}; nothing was written`);
  if (answer.account !== pinned) {
    throw new OperatorError(`--check-account: profile ${profile} is AWS account ${answer.account}, not --account-id ${pinned}; nothing was written`);
  }
}

/** The identity provider must be installed; for a kube context it must not itself take a target. */
function checkIdentityProvider(registry: Registry, name: string, refuseTargetAware: boolean): void {
  const entry = registry.providersByName.get(name);
  if (entry === undefined) {
    const known = [...registry.providersByName.keys()].sort().join(", ") || "none installed";
    throw new OperatorError(`--provider: no installed provider is named ${JSON.stringify(name)} (installed: ${known})`);
  }
  if (refuseTargetAware && entry.targetAware) {
    throw new OperatorError(`--provider: ${name} is target-aware (targeting.mode ${String(entry.config.targeting?.mode)}) and cannot be an identity provider`);
  }
}

/** The exact text about to be written, checked with the real schema for this provider. */
function validateDocument(file: string, text: string, provider: ProviderEntry): TargetConfig {
  try {
    return parseYamlDocument(file, text, targetFileSchema({ name: provider.name, mode: provider.config.targeting?.mode })).value;
  } catch (error) {
    if (error instanceof ConfigError) throw new OperatorError(`the target would be invalid, nothing was written:\n${error.message}`);
    throw error;
  }
}

/** Creates the directory and file, then reloads the registry; a refusal removes what was written. */
async function writeTarget(root: string, provider: ProviderEntry, name: string, dir: string, file: string, text: string): Promise<void> {
  if (exists(dir)) throw new OperatorError(`${dir} already exists; remove it or choose another name`);
  let createdParent: string | undefined;
  try {
    createdParent = mkdirSync(targetsDir(provider.dir), { recursive: true, mode: 0o700 });
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST")
      throw new OperatorError(`${dir} already exists; remove it or choose another name`);
    throw new OperatorError(`cannot create ${dir}: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
  let written = false;
  try {
    await writeFileAtomic(file, Buffer.from(text, "utf8"));
    written = true;
    const reloaded = loadRegistry(root);
    if (reloaded.providers.get(provider.tool)?.targets.has(name) !== true) {
      throw new OperatorError(`the new target was written to ${file} but the registry does not list it; it was removed again`);
    }
  } catch (error) {
    const leftOver = undo(written ? file : undefined, createdParent === undefined ? [dir] : [dir, targetsDir(provider.dir)]);
    const note = leftOver === undefined ? "" : `\n(could not remove everything it wrote: ${leftOver})`;
    if (error instanceof ConfigError) {
      throw new OperatorError(`the configuration refuses the new target, so it was not added:\n${error.message}${note}`);
    }
    if (error instanceof OperatorError) throw new OperatorError(`${error.message}${note}`, error.exitCode);
    throw new OperatorError(`cannot write ${file}: ${error instanceof Error ? error.message : String(error)}${note}`, 1);
  }
}

/** Removes the file (when given), then each (empty) directory; returns why it could not, if it could not. */
function undo(file: string | undefined, dirs: readonly string[]): string | undefined {
  try {
    if (file !== undefined) rmSync(file, { force: true });
    for (const dir of dirs) rmdirSync(dir);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

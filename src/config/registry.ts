/**
 * The installed providers and their targets, read once at start-up and
 * validated as a whole: tool names are unique, names match directories, and
 * every target names an installed identity provider it may use.
 *
 * Security invariant: nothing here reads a `.env` file. Environments are read
 * only after a policy allow, by the call pipeline. Rules are not read here
 * either: `readPolicyTexts` reads them afresh on every call (through the
 * pipeline's PolicyCache, the one loader of rules). Every path of the tree is
 * held to the trust rule (trusted-path.ts) before anything is read, `.env` and
 * rules files included (inspected, not read), so a configuration others could
 * have written starts nothing.
 */
import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { ProviderPolicyContext } from "../policy/types.js";
import { combineConfigErrors, ConfigError } from "./errors.js";
import { providerPolicyContext } from "./policy-context.js";
import { PROVIDER_JSON } from "./provider-json.js";
import { loadProviderDocument } from "./provider-schema.js";
import type { ProviderConfig } from "./provider-schema.js";
import {
  envFilePath,
  providerConfigPath,
  providerDir,
  providerEnvFilePath,
  providersDir,
  rulesPath,
  targetConfigPath,
  targetDir,
  targetsDir,
} from "./paths.js";
import { hasErrorCode, readTrustedConfigText } from "./read-file.js";
import { loadTargetDocument } from "./target-schema.js";
import type { TargetConfig } from "./target-schema.js";
import { checkTrustedPath, configTrust, trustPass, type ConfigTrust } from "./trusted-path.js";
import type { YamlDocument } from "./yaml-document.js";

/** One target alias of a provider. */
export interface TargetEntry {
  /** The alias (= directory name = `name` in `target.yaml`). */
  readonly name: string;
  readonly dir: string;
  /** The `target.yaml` path. */
  readonly file: string;
  readonly config: TargetConfig;
  /** Where the target's own rules live, whether or not the file exists. */
  readonly rulesPath: string;
  /**
   * Whether the target had its own `rules.yaml` when the registry was loaded.
   * Informational only: `readPolicyTexts` looks again on every call, so a
   * target policy created later takes effect without a restart.
   */
  readonly hasOwnRules: boolean;
  /**
   * Which file the configuration was read from. With the content it makes a
   * target's lease binding, so recreating a target (a new file) invalidates its
   * lease even when the content is the same.
   */
  readonly fileIdentity: FileIdentity;
}

/** The identity of a file on disk: its inode and birth time. */
export interface FileIdentity {
  readonly ino: number;
  readonly birthtimeMs: number;
}

/** Reads the identity of the file at `file` (following no symbolic link at the last step). */
export function fileIdentityOf(file: string): FileIdentity {
  const stat = lstatSync(file);
  return { ino: stat.ino, birthtimeMs: stat.birthtimeMs };
}

/** One installed provider. */
export interface ProviderEntry {
  /** `name` in `provider.yaml` (= directory name). Targets name identity providers by it. */
  readonly name: string;
  /** The MCP tool name. */
  readonly tool: string;
  readonly dir: string;
  /** The `provider.yaml` path. */
  readonly file: string;
  readonly config: ProviderConfig;
  /** Targets by alias. Empty for a provider that is not target-aware. */
  readonly targets: ReadonlyMap<string, TargetEntry>;
  /** The shared `rules.yaml` (required, read on every call). */
  readonly rulesPath: string;
  /** True when the provider has a `targeting.mode`: every call must then name a target. */
  readonly targetAware: boolean;
  /** What the policy engine needs from `provider.yaml`, derived once at load. */
  readonly policyContext: ProviderPolicyContext;
  /** The configuration root and its trust rule: every file read later for this provider is checked with it. */
  readonly trust: ConfigTrust;
}

/** Every installed provider. */
export interface Registry {
  readonly root: string;
  /** Providers by MCP tool name. */
  readonly providers: ReadonlyMap<string, ProviderEntry>;
  /** Providers by `name` (directory name), as targets' `identity.provider` refers to them. */
  readonly providersByName: ReadonlyMap<string, ProviderEntry>;
}

interface LoadedTarget {
  readonly entry: TargetEntry;
  readonly doc: YamlDocument<TargetConfig>;
}

interface LoadedProvider {
  readonly entry: ProviderEntry;
  readonly doc: YamlDocument<ProviderConfig>;
  readonly targets: readonly LoadedTarget[];
}

/**
 * Loads every `providers/<name>/provider.yaml` under `root` and every
 * `targets/<alias>/target.yaml` below it, and validates them together.
 * Dot-directories and plain files are ignored; a missing `providers/`
 * directory is an empty registry.
 *
 * A configuration that fails to load starts nothing, so this throws rather
 * than returning the providers that did load.
 *
 * @throws ConfigError for the first problem found, whose message (and
 *   `related`) lists every problem found, each with its file, line and column.
 *   An untrusted root or `providers/` directory is reported alone.
 */
export function loadRegistry(root: string, trust: ConfigTrust = configTrust(root)): Registry {
  const { errors, collect } = errorCollector();
  // The walk to providers/ checks the root and every directory above it first.
  checkTrustedPath(trust, providersDir(root), "directory");
  const loaded: LoadedProvider[] = [];
  for (const dirName of collect(() => listSubdirectories(providersDir(root))) ?? []) {
    const provider = collect(() => loadProvider(trust, root, dirName, collect));
    if (provider !== undefined) loaded.push(provider);
  }
  errors.push(...crossProviderErrors(loaded, loaded));
  return registryOf(root, loaded, errors);
}

/**
 * The part of the registry an operator command about one provider needs: the
 * provider in `providers/<tool>/`, and the identity providers its targets name,
 * loaded and checked exactly as `loadRegistry` loads and checks them (the same
 * trust walk, schemas, target loading and identity-provider checks), so its
 * targets and their lease bindings are the ones the server loads. The other
 * providers are not read: a problem in one of them, or another provider that
 * declares the same tool, is reported by the commands that load the whole
 * registry (and by the server), not here.
 *
 * @returns undefined when `providers/<tool>/` does not exist or its provider's
 *   `tool` is another: load the whole registry to find the provider then.
 * @throws ConfigError as `loadRegistry` does, for the files it read.
 */
export function loadProviderSubset(root: string, tool: string, trust: ConfigTrust = configTrust(root)): Registry | undefined {
  const { errors, collect } = errorCollector();
  checkTrustedPath(trust, providersDir(root), "directory");
  // Only a name the listing holds: the operator's word never becomes a path of its own.
  const installed = listSubdirectories(providersDir(root));
  if (!installed.includes(tool)) return undefined;
  const owner = loadProvider(trust, root, tool, collect);
  if (owner.entry.tool !== tool) return undefined;
  const identityNames = new Set(owner.targets.map((target) => target.entry.config.identity.provider));
  const loaded = [owner];
  for (const name of [...identityNames].filter((name) => name !== owner.entry.name && installed.includes(name)).sort()) {
    const provider = collect(() => loadProvider(trust, root, name, collect));
    if (provider !== undefined) loaded.push(provider);
  }
  errors.push(...crossProviderErrors(loaded, [owner]));
  return registryOf(root, loaded, errors);
}

/** Collects the ConfigErrors of several loads, so one report names every problem. */
function errorCollector(): { errors: ConfigError[]; collect: <T>(load: () => T) => T | undefined } {
  const errors: ConfigError[] = [];
  const collect = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      errors.push(error);
      return undefined;
    }
  };
  return { errors, collect };
}

/** The registry of `loaded`, or the combined error when anything failed to load. */
function registryOf(root: string, loaded: readonly LoadedProvider[], errors: readonly ConfigError[]): Registry {
  const combined = combineConfigErrors(errors);
  if (combined !== undefined) throw combined;
  return {
    root,
    providers: new Map(loaded.map(({ entry }) => [entry.tool, entry])),
    providersByName: new Map(loaded.map(({ entry }) => [entry.name, entry])),
  };
}

/** The text of one rules file, as read for one call. */
export interface PolicyText {
  readonly file: string;
  readonly text: string;
}

/**
 * Reads the rule files in force for a provider (and target) without parsing
 * them, so the server can hash what it read (for the audit log) and reuse a
 * compiled policy while the files are unchanged. `read` is the trusted read
 * (the server's skips reading a file unchanged since its last read: unchanged-files.ts);
 * `trust` the pass both files are checked in (a call's, shared with its `.env` layers).
 *
 * @throws ConfigError when the shared file is missing or unreadable, or the alias is unknown.
 */
export function readPolicyTexts(
  entry: ProviderEntry,
  targetAlias?: string,
  read: (trust: ConfigTrust, file: string) => string | undefined = readTrustedConfigText,
  trust: ConfigTrust = trustPass(entry.trust),
): { shared: PolicyText; target?: PolicyText } {
  // Both files are checked in one pass: the directories they share are inspected once.
  const sharedText = read(trust, entry.rulesPath);
  if (sharedText === undefined) throw new ConfigError(entry.rulesPath, "file not found");
  const shared = { file: entry.rulesPath, text: sharedText };
  if (targetAlias === undefined) return { shared };
  const target = entry.targets.get(targetAlias);
  if (target === undefined) {
    throw new ConfigError(targetsDir(entry.dir), `provider ${entry.tool} has no target ${JSON.stringify(targetAlias)}`);
  }
  const text = read(trust, target.rulesPath);
  if (text === undefined && target.hasOwnRules) {
    // Falling back to the shared accepts would silently widen this target's policy.
    throw new ConfigError(target.rulesPath, "was removed after the configuration was loaded; restore it, or restart the server to use the shared rules");
  }
  return text === undefined ? { shared } : { shared, target: { file: target.rulesPath, text } };
}

function loadProvider(trust: ConfigTrust, root: string, dirName: string, collect: <T>(load: () => T) => T | undefined): LoadedProvider {
  const dir = providerDir(root, dirName);
  const file = providerConfigPath(dir);
  checkTrustedPath(trust, dir, "directory");
  if (!checkTrustedPath(trust, file, "file")) {
    throw new ConfigError(file, "missing: every directory under providers/ needs a provider.yaml");
  }
  // The generated JSON stands in for provider.yaml when its digest matches, and a digest is no secret: same trust rule.
  checkTrustedPath(trust, path.join(dir, PROVIDER_JSON), "file");
  const doc = loadProviderDocument(file);
  const config = doc.value;
  if (config.name !== dirName) {
    throw doc.errorAt(["name"], `name: must equal the directory name ${JSON.stringify(dirName)}, found ${JSON.stringify(config.name)}`);
  }
  checkLayerFiles(trust, dir, providerEnvFilePath(dir, config.environment?.file));
  checkTrustedPath(trust, targetsDir(dir), "directory");
  const owner = { name: config.name, mode: config.targeting?.mode };
  const targets: LoadedTarget[] = [];
  for (const alias of collect(() => listSubdirectories(targetsDir(dir))) ?? []) {
    const target = collect(() => loadTarget(trust, dir, alias, owner));
    if (target !== undefined) targets.push(target);
  }
  const entry: ProviderEntry = {
    name: config.name,
    tool: config.tool,
    dir,
    file,
    config,
    targets: new Map(targets.map(({ entry: target }) => [target.name, target])),
    rulesPath: rulesPath(dir),
    targetAware: owner.mode !== undefined,
    policyContext: providerPolicyContext(config),
    trust,
  };
  return { entry, doc, targets };
}

function loadTarget(trust: ConfigTrust, providerDirectory: string, alias: string, owner: Parameters<typeof loadTargetDocument>[1]): LoadedTarget {
  const dir = targetDir(providerDirectory, alias);
  const file = targetConfigPath(dir);
  checkTrustedPath(trust, dir, "directory");
  if (!checkTrustedPath(trust, file, "file")) throw new ConfigError(file, "missing: every directory under targets/ needs a target.yaml");
  checkLayerFiles(trust, dir, envFilePath(dir));
  const before = fileIdentityOf(file);
  const doc = loadTargetDocument(file, owner);
  const fileIdentity = fileIdentityOf(file);
  if (before.ino !== fileIdentity.ino || before.birthtimeMs !== fileIdentity.birthtimeMs) {
    throw new ConfigError(file, "was replaced while it was being read; load again");
  }
  if (doc.value.name !== alias) {
    throw doc.errorAt(["name"], `name: must equal the directory name ${JSON.stringify(alias)}, found ${JSON.stringify(doc.value.name)}`);
  }
  const ownRules = rulesPath(dir);
  return {
    entry: { name: alias, dir, file, config: doc.value, rulesPath: ownRules, hasOwnRules: existsSync(ownRules), fileIdentity },
    doc,
  };
}

/**
 * A provider's or target's rules and `.env`, when present. The `.env` is
 * inspected (owner, mode, links), never read: that waits for an allow, and its
 * kind is checked then (a sentinel `.env` may be anything that fails to read).
 */
function checkLayerFiles(trust: ConfigTrust, dir: string, envFile: string): void {
  checkTrustedPath(trust, rulesPath(dir), "file");
  checkTrustedPath(trust, envFile, "any");
}

/** The checks that need more than one file: tool names unique among `loaded`, and the identity providers of the targets of `owners`. */
function crossProviderErrors(loaded: readonly LoadedProvider[], owners: readonly LoadedProvider[]): ConfigError[] {
  const errors: ConfigError[] = [];
  const byTool = new Map<string, LoadedProvider>();
  for (const provider of loaded) {
    const first = byTool.get(provider.entry.tool);
    if (first === undefined) {
      byTool.set(provider.entry.tool, provider);
    } else {
      const where = first.doc.positionOf(["tool"]);
      const firstAt = where === undefined ? first.entry.file : `${first.entry.file}:${where.line}:${where.column}`;
      errors.push(provider.doc.errorAt(["tool"], `tool: ${JSON.stringify(provider.entry.tool)} is already the tool of ${firstAt}`));
    }
  }
  const byName = new Map(loaded.map((provider) => [provider.entry.name, provider.entry]));
  for (const provider of owners) {
    for (const target of provider.targets) {
      errors.push(...identityProviderErrors(provider.entry, target, byName));
    }
  }
  return errors;
}

/**
 * A target's identity provider runs the lifecycle (login, validation, the
 * identity probe) for it. It must not itself demand a target, or the chain
 * would have no end; aws_profile uses its own provider (the schema checks that)
 * and credentials mode may use itself.
 */
function identityProviderErrors(owner: ProviderEntry, target: LoadedTarget, byName: ReadonlyMap<string, ProviderEntry>): ConfigError[] {
  const { identity } = target.entry.config;
  const identityProvider = byName.get(identity.provider);
  if (identityProvider === undefined) {
    return [target.doc.errorAt(["identity", "provider"], `identity.provider: no installed provider is named ${JSON.stringify(identity.provider)}`)];
  }
  const errors: ConfigError[] = [];
  const mode = owner.config.targeting?.mode;
  const selfAllowed = mode === "aws_profile" || mode === "credentials";
  const isSelf = identityProvider.name === owner.name;
  if (identityProvider.targetAware && !(selfAllowed && isSelf)) {
    errors.push(
      target.doc.errorAt(
        ["identity", "provider"],
        `identity.provider: ${identityProvider.name} is target-aware (targeting.mode ${String(identityProvider.config.targeting?.mode)}) and cannot be the identity provider of a ${String(mode)} target`,
      ),
    );
  }
  if (identity.expect !== undefined && identityProvider.config.auth?.identity === undefined) {
    errors.push(
      target.doc.errorAt(
        ["identity", "expect"],
        `identity.expect: needs the identity provider ${identityProvider.name} to declare auth.identity (the command that reports who is logged in)`,
      ),
    );
  }
  return errors;
}

/**
 * The names of the directories in `dir`, sorted, skipping dot-entries and
 * plain files. Links to directories count as directories. A missing `dir` has none.
 */
function listSubdirectories(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return [];
    throw new ConfigError(dir, `cannot be listed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return names.filter((name) => !name.startsWith(".") && isDirectory(path.join(dir, name))).sort();
}

function isDirectory(entry: string): boolean {
  try {
    return statSync(entry).isDirectory();
  } catch (error) {
    throw new ConfigError(entry, `cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

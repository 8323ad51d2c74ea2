/**
 * `torii provider list | install <name> [--preset P] | upgrade <name> | remove <name>`,
 * from the bundled catalogue (catalogue.ts).
 *
 * - install creates `providers/<name>/` (0700) with the package files, a
 *   `targets/` folder and `rules.yaml`: empty (nothing is allowed) or the preset's
 *   rules; the whole configuration is loaded afterwards and the new directory
 *   removed again when it does not load. An installed provider is kept as it is.
 * - upgrade replaces provider.yaml and provider.generated.json only, after
 *   showing what changed (`--dry-run` shows and stops); rules, `.env`,
 *   targets, grants and leases stay. If the configuration does not load with
 *   the new definition, the old files are put back.
 * - remove refuses while the provider directory holds operator state
 *   (targets, non-empty rules, `.env`, grants, leases) unless `--force`, and
 *   then names every item it deletes.
 *
 * The MCP server reads the set of providers at start-up: restart it (the
 * client) after install, upgrade or remove.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { PROVIDER_JSON } from "../../config/provider-json.js";
import { providerConfigPath, providerDir, providersDir, rulesPath, targetsDir } from "../../config/paths.js";
import { readConfigText, readConfigTextIfExists } from "../../config/read-file.js";
import { loadRegistry } from "../../config/registry.js";
import { writeFileAtomic } from "../../state/atomic-write.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";
import { emit, type JsonOption } from "../shared/operator-output.js";
import { cliFinder } from "./provider-cli-found.js";
import { catalogueDir, catalogueEntry, generatedFromVersion, listCatalogue, presetText, type CatalogueEntry } from "./catalogue.js";
import { describeChange, diffProviderDefinitions, summariseChange } from "./provider-diff.js";
import { operatorStateIn, PACKAGE_FILES } from "./provider-files.js";

const RESTART_NOTE = "restart the MCP server (your client) to load the change";

// Without blocking, regular files only: a named pipe at an installed provider.yaml is refused naming it, not waited on forever.
const readText = (file: string): string => readConfigText(file);
const writeText = (file: string, text: string): Promise<void> => writeFileAtomic(file, Buffer.from(text, "utf8"));

/** `torii provider list`. */
export function runProviderList(options: JsonOption): number {
  const root = configRoot();
  const cliFound = cliFinder(root);
  const providers = listCatalogue().map((entry) => {
    const installedYaml = path.join(providersDir(root), entry.name, "provider.yaml");
    const installedText = readConfigTextIfExists(installedYaml);
    const installed = installedText !== undefined;
    const bundledText = readText(providerConfigPath(entry.dir));
    const command = /^command:\s*(\S+)/mu.exec(bundledText)?.[1] ?? entry.name;
    return {
      name: entry.name,
      installed,
      current: installed ? installedText === bundledText : undefined,
      presets: entry.presets,
      generated_from: generatedFromVersion(bundledText) ?? null,
      cli_on_path: cliFound(entry.name, command, installed),
    };
  });
  const lines = providers.map(
    (p) =>
      `${p.name.padEnd(8)} ${p.installed ? (p.current === true ? "installed" : "installed, upgrade available") : "not installed"}; presets: ${p.presets.join(", ") || "none"}; table from ${p.generated_from ?? "unknown"}; CLI ${p.cli_on_path === null ? "unknown (the configuration does not load: torii doctor)" : p.cli_on_path ? "on PATH" : "not on PATH"}`,
  );
  emit(options, { catalogue: catalogueDir(), providers }, lines);
  return 0;
}

/** What install did. */
export interface InstallResult {
  readonly name: string;
  readonly dir: string;
  readonly installed: boolean;
  readonly preset: string | null;
}

/**
 * Installs bundled provider `name` under `root` (the directory tree, package
 * files and rules); returns `installed: false` when it was already there.
 *
 * @throws OperatorError for an unknown provider or preset; ConfigError when the configuration does not load with it.
 */
export async function installProvider(root: string, name: string, preset?: string): Promise<InstallResult> {
  const entry = catalogueEntry(name);
  const rules = preset === undefined ? readText(rulesPath(entry.dir)) : presetText(entry, preset);
  const dir = providerDir(root, name);
  if (existsSync(dir)) return { name, dir, installed: false, preset: null };
  mkdirSync(providersDir(root), { recursive: true, mode: 0o700 });
  mkdirSync(targetsDir(dir), { recursive: true, mode: 0o700 });
  try {
    for (const file of PACKAGE_FILES) await writeText(path.join(dir, file), readText(path.join(entry.dir, file)));
    await writeText(rulesPath(dir), rules);
    loadRegistry(root);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { name, dir, installed: true, preset: preset ?? null };
}

/** `torii provider install <name> [--preset P]`. */
export async function runProviderInstall(name: string, options: JsonOption & { preset?: string }): Promise<number> {
  const result = await installProvider(configRoot(), name, options.preset);
  const lines = result.installed
    ? [
        `installed ${name} in ${result.dir}`,
        result.preset === null
          ? "rules.yaml is empty: nothing is allowed until you add rules (torii policy edit)"
          : `rules.yaml holds the ${result.preset} preset`,
        RESTART_NOTE,
      ]
    : [
        `${name} is already installed in ${result.dir}; kept as it is (torii provider upgrade ${name} replaces its definition, torii policy edit ${name} its rules)`,
      ];
  emit(options, result, lines);
  return 0;
}

/** `torii provider upgrade <name> [--dry-run]`. */
export async function runProviderUpgrade(name: string, options: JsonOption & { dryRun?: boolean }): Promise<number> {
  const root = configRoot();
  const entry: CatalogueEntry = catalogueEntry(name);
  const dir = providerDir(root, name);
  if (!existsSync(providerConfigPath(dir))) throw new OperatorError(`${name} is not installed (torii provider install ${name})`);
  const before = Object.fromEntries(PACKAGE_FILES.map((file) => [file, readConfigTextIfExists(path.join(dir, file))]));
  const after = Object.fromEntries(PACKAGE_FILES.map((file) => [file, readText(path.join(entry.dir, file))]));
  const changes = diffProviderDefinitions(before["provider.yaml"] ?? "", after["provider.yaml"] ?? "");
  const current = PACKAGE_FILES.every((file) => before[file] === after[file]);
  const apply = !current && options.dryRun !== true;
  if (apply) {
    try {
      // The JSON first: until provider.yaml follows, its digest does not match and the YAML is read.
      for (const file of [PROVIDER_JSON, "provider.yaml"]) await writeText(path.join(dir, file), after[file] ?? "");
      loadRegistry(root);
    } catch (error) {
      for (const file of PACKAGE_FILES) {
        const text = before[file];
        if (text !== undefined) await writeText(path.join(dir, file), text);
      }
      throw error;
    }
  }
  const status = current ? "current" : apply ? "upgraded" : "would-upgrade";
  const lines = current
    ? [`${name} already matches the bundled definition`]
    : [
        `${apply ? "upgraded" : "would upgrade"} ${name} (provider.yaml, ${PROVIDER_JSON}); rules, .env, targets, grants and leases are kept`,
        ...(changes.length === 0 ? ["  comments and layout only"] : changes.map(describeChange)),
        ...(apply ? [RESTART_NOTE] : []),
      ];
  emit(options, { name, status, changes: changes.map(summariseChange) }, lines);
  return 0;
}

/** `torii provider remove <name> [--force]`. */
export function runProviderRemove(name: string, options: JsonOption & { force?: boolean }): number {
  const dir = providerDir(configRoot(), name);
  if (!existsSync(dir)) throw new OperatorError(`${name} is not installed`);
  const state = operatorStateIn(dir);
  if (state.length > 0 && options.force !== true) {
    throw new OperatorError(
      `${name} holds operator state that remove would delete:\n${state.map((item) => `  ${item}`).join("\n")}\nrerun with --force to delete it with the provider (torii target remove deletes one target)`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  emit(options, { name, removed: dir, state }, [`removed ${dir}`, ...state.map((item) => `  deleted ${item}`), RESTART_NOTE]);
  return 0;
}

/**
 * Whether an installed provider definition is older than the one bundled with
 * this Torii. `torii provider install` copies the bundled provider.yaml and
 * provider.generated.json; security data added to the bundled definition later
 * (file writes, locked options and commands, selectors) reaches the operator
 * only through `torii provider upgrade`.
 *
 * "Older" is "made from another bundled definition": the installed
 * provider.generated.json records the SHA-256 of the provider.yaml it was made
 * from (`source_sha256`, its first member), which is the bundled text of the
 * Torii that installed or upgraded it, and stays so when the operator edits the
 * installed provider.yaml. It is compared with the bundled JSON's own digest:
 * two reads of 128 bytes per provider, no YAML, no JSON parse, so the server
 * can check at start-up. A copy installed before the JSON existed is compared
 * by the digest of its provider.yaml text. Providers the catalogue does not
 * hold are not compared.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { toriiPackageRoot } from "../runtime/own-code.js";
import { PROVIDER_JSON, providerTextDigest } from "./provider-json.js";
import { readConfigHeadIfExists, readConfigTextIfExists } from "./read-file.js";

/** The environment variable naming another catalogue folder. */
export const CATALOGUE_ENV = "TORII_PROVIDER_CATALOG";

/** The bundled catalogue: `$TORII_PROVIDER_CATALOG`, or `providers/` of the package this file belongs to; undefined when there is none. */
export function bundledCatalogueDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = env[CATALOGUE_ENV];
  if (override !== undefined && override !== "") return path.resolve(override);
  // The package root the server has already found (own-code.ts caches it): no walk of its own.
  try {
    const dir = path.join(toriiPackageRoot(), "providers");
    return existsSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

const DIGEST = /^\{\s*"source_sha256":\s*"([0-9a-f]{64})"/u;

/** The `source_sha256` a provider.generated.json starts with, read from its first bytes; undefined when absent or unreadable. */
function recordedDigest(file: string): string | undefined {
  try {
    const head = readConfigHeadIfExists(file, 128);
    return head === undefined ? undefined : DIGEST.exec(head)?.[1];
  } catch {
    return undefined; // a named pipe or an unreadable file: no digest (read without blocking on it)
  }
}

/** The digest of the bundled definition an installed provider directory was made from. */
function installedOrigin(dir: string): string | undefined {
  const recorded = recordedDigest(path.join(dir, PROVIDER_JSON));
  if (recorded !== undefined) return recorded;
  try {
    const text = readConfigTextIfExists(path.join(dir, "provider.yaml"));
    return text === undefined ? undefined : providerTextDigest(text);
  } catch {
    return undefined;
  }
}

/**
 * Whether the provider installed in `dir` is older than (differs from) the
 * bundled definition of `name`; false when the catalogue has no such provider
 * or a digest cannot be read (the check is advice, never a gate).
 */
export function isOlderThanBundled(name: string, dir: string, catalogue: string | undefined): boolean {
  if (catalogue === undefined) return false;
  const bundled = recordedDigest(path.join(catalogue, name, PROVIDER_JSON));
  if (bundled === undefined) return false;
  const installed = installedOrigin(dir);
  return installed !== undefined && installed !== bundled;
}

/** The installed providers (`name`, `dir`) older than the bundled definitions, by name. */
export function staleProviders(providers: Iterable<{ readonly name: string; readonly dir: string }>, catalogue = bundledCatalogueDir()): string[] {
  return [...providers].filter((provider) => isOlderThanBundled(provider.name, provider.dir, catalogue)).map((provider) => provider.name);
}

/** The command that brings an installed provider up to the bundled definition. */
export function upgradeCommand(name: string): string {
  return `torii provider upgrade ${name}`;
}

/** The server's one start-up line for the stale providers (their names, in order). */
export function staleProvidersLine(names: readonly string[]): string {
  const which = names.length === 1 ? `provider ${names[0] ?? ""} is` : `providers ${names.join(", ")} are`;
  return (
    `installed ${which} older than the definition bundled with this Torii (security data added since, such as file writes or locked options, is missing): ` +
    `run ${names.map(upgradeCommand).join("; ")}, then restart the client`
  );
}

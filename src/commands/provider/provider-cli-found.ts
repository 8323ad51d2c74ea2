/**
 * Whether `torii provider list` finds a provider's CLI. An installed provider's
 * calls find their program through the child's PATH (a `.env` may set it), so
 * it is asked of the server's own computation (shared/child-view.ts), as doctor
 * does; a provider not installed yet has no `.env`, so the shell's PATH is all
 * there is to go by.
 */
import { loadRegistry, type Registry } from "../../config/registry.js";
import { findOnPath } from "../shared/cli-on-path.js";
import { operatorChildFiles } from "../shared/child-view.js";

/** True or false; null when the configuration does not load, so the call's PATH is unknown. */
export type CliFound = boolean | null;

/**
 * A lookup of `command` for the catalogue provider `name` under `root`; the
 * configuration is loaded once, on the first installed provider asked about.
 */
export function cliFinder(root: string): (name: string, command: string, installed: boolean) => CliFound {
  let registry: Registry | null | undefined;
  return (name, command, installed) => {
    if (!installed) return findOnPath(command) !== undefined;
    if (registry === undefined) {
      try {
        registry = loadRegistry(root);
      } catch {
        registry = null;
      }
    }
    const provider = registry === null ? undefined : [...registry.providers.values()].find((entry) => entry.name === name);
    if (registry === null || provider === undefined) return null;
    try {
      return operatorChildFiles(provider, undefined, registry).executable.ok;
    } catch {
      return null;
    }
  };
}

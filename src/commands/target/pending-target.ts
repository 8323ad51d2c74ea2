/**
 * A target about to be created, described as the registry will load it, so the
 * server's own computations (the child environment, the STS inputs) can be run
 * for it before `target.yaml` is written. It has no `.env` or rules of its own yet.
 */
import path from "node:path";
import type { ProviderEntry, TargetEntry } from "../../config/registry.js";
import { targetConfigPath, targetDir } from "../../config/paths.js";
import type { TargetConfig } from "../../config/target-schema.js";

/** The entry `config` will have once written under `provider`. */
export function pendingTarget(provider: ProviderEntry, config: TargetConfig): TargetEntry {
  const dir = targetDir(provider.dir, config.name);
  return {
    name: config.name,
    dir,
    file: targetConfigPath(dir),
    config,
    rulesPath: path.join(dir, "rules.yaml"),
    hasOwnRules: false,
    // Not written yet; nothing that plans a child reads it.
    fileIdentity: { ino: 0, birthtimeMs: 0 },
  };
}

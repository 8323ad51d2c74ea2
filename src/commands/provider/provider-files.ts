/**
 * What a provider directory holds, split into the package's files (replaced by
 * `torii provider upgrade`) and the operator's state (rules, `.env`, targets,
 * grants, leases, identities), which only the operator removes.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { PROVIDER_JSON } from "../../config/provider-json.js";
import { readConfigText } from "../../config/read-file.js";
import { parseRulesFile } from "../../config/rules-file.js";

/** The files a bundled provider package consists of. */
export const PACKAGE_FILES = ["provider.yaml", PROVIDER_JSON] as const;

/** The operator's state in a provider directory: every entry except the package files and an empty rules.yaml. */
export function operatorStateIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const state: string[] = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if ((PACKAGE_FILES as readonly string[]).includes(name)) continue;
    if (name === "rules.yaml" && !hasRules(file)) continue;
    if (name === "targets") {
      state.push(...readdirSync(file).map((alias) => path.join(file, alias)));
      continue;
    }
    state.push(file);
  }
  return state.sort();
}

function hasRules(file: string): boolean {
  try {
    // Without blocking: a named pipe in place of rules.yaml is refused (and so kept as the operator's), not waited on.
    const rules = parseRulesFile(file, readConfigText(file));
    return rules.deny.length + rules.accept.length > 0;
  } catch {
    // A rules file that does not parse is still the operator's work.
    return true;
  }
}

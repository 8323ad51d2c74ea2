/**
 * The one loader of rules: the server's calls, `torii_policy` and the operator's
 * `torii policy show|check` all go through it, so they read the same files the
 * same way. Loads the rules in force for a call. Rules are checked on every call (an edit
 * takes effect without a restart): walked for trust, then read again only when
 * the file is not the one last read, unchanged (config/unchanged-files.ts);
 * hashed for the audit log when their text changed, and compiled only then:
 * compiling 10,000 rules costs tens of milliseconds, reading and hashing them a
 * fraction of that.
 */
import { createHash } from "node:crypto";
import { readPolicyTexts, type PolicyText, type ProviderEntry } from "../config/registry.js";
import { parseRulesFile } from "../config/rules-file.js";
import { trustPass, type ConfigTrust } from "../config/trusted-path.js";
import { UnchangedFiles } from "../config/unchanged-files.js";
import { compilePolicy, type CompiledPolicy } from "../policy/compile.js";
import type { LayeredRuleSpecs } from "../policy/types.js";

export interface LoadedPolicy {
  readonly policy: CompiledPolicy;
  /** The parsed rule files it was compiled from (shared, and the target's own when it has one). */
  readonly rules: LayeredRuleSpecs;
  /** SHA-256 over the rule files in force (path and content), for the audit log. */
  readonly policyHash: string;
}

function hashTexts(texts: readonly PolicyText[]): string {
  const hash = createHash("sha256").update("torii-policy-v1\0");
  for (const { file, text } of texts) hash.update(`${file}\0${String(Buffer.byteLength(text))}\0`).update(text);
  return hash.digest("hex");
}

/** A loaded policy and the files it was compiled from. */
type KeptPolicy = LoadedPolicy & { readonly texts: readonly PolicyText[] };

/** Whether `texts` are the files `loaded` was compiled from, to the byte. */
function sameTexts(loaded: KeptPolicy, texts: readonly PolicyText[]): boolean {
  return loaded.texts.length === texts.length && loaded.texts.every((kept, index) => kept.file === texts[index]?.file && kept.text === texts[index].text);
}

export class PolicyCache {
  private readonly compiled = new Map<string, KeptPolicy>();
  /** Rules files unchanged since their last read are not read again (config/unchanged-files.ts). */
  private readonly files = new UnchangedFiles();

  /**
   * Reads, hashes and (when changed) parses and compiles the policy for a
   * provider and optional target.
   *
   * `pass` is the call's trust pass (pipeline/invoke.ts); a new one by default.
   *
   * @throws ConfigError when a rules file is missing or malformed: the caller denies.
   */
  load(entry: ProviderEntry, targetAlias?: string, pass: ConfigTrust = trustPass(entry.trust)): LoadedPolicy {
    const texts = readPolicyTexts(entry, targetAlias, (trust, file) => this.files.read(trust, file), pass);
    const files = texts.target === undefined ? [texts.shared] : [texts.shared, texts.target];
    const key = `${entry.tool}\0${targetAlias ?? ""}`;
    const cached = this.compiled.get(key);
    // The same bytes hash the same: an unchanged file is the very string kept, compared without reading it.
    if (cached !== undefined && sameTexts(cached, files)) return cached;
    const policyHash = hashTexts(files);
    if (cached?.policyHash === policyHash) {
      this.compiled.set(key, { ...cached, texts: files });
      return cached;
    }
    const shared = parseRulesFile(texts.shared.file, texts.shared.text);
    const rules = texts.target === undefined ? { shared } : { shared, target: parseRulesFile(texts.target.file, texts.target.text) };
    const loaded = { policy: compilePolicy(entry.policyContext, rules), rules, policyHash, texts: files };
    this.compiled.set(key, loaded);
    return loaded;
  }
}

#!/usr/bin/env node
// Writes providers/<name>/provider.generated.json: the data of provider.yaml as
// JSON, with the SHA-256 of the provider.yaml text it was made from. The server
// reads it instead of parsing the YAML while the hash matches
// (src/config/provider-json.ts); test/unit/config/provider-json.test.ts fails when it is stale.
//
//   node scripts/providers/provider-json.mjs --write     # every bundled provider
//   node scripts/providers/provider-json.mjs --check     # exit 1 when one is missing or stale
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parseDocument } from "yaml";

export const PROVIDER_JSON = "provider.generated.json";

/** The JSON text for a provider.yaml text; throws when the YAML does not parse or holds what JSON cannot say. */
export function providerJson(text) {
  const doc = parseDocument(text, { uniqueKeys: true, strict: true });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem !== undefined) throw new Error(`YAML: ${problem.message}`);
  const document = doc.toJS();
  // .inf, .nan and the like would not survive JSON: the YAML must then stay the only form.
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(document)), document)) throw new Error("the data does not survive a JSON round trip");
  const source_sha256 = createHash("sha256").update(text, "utf8").digest("hex");
  return `${JSON.stringify({ source_sha256, document }, null, 1)}\n`;
}

/** Problems with the JSON beside each bundled provider.yaml under `root` (with `write`, rewrites them first). */
export function checkProviderJson(root, write = false) {
  const problems = [];
  for (const name of readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()) {
    const yamlPath = join(root, name, "provider.yaml");
    const jsonPath = join(root, name, PROVIDER_JSON);
    let expected;
    try {
      expected = providerJson(readFileSync(yamlPath, "utf8"));
    } catch (error) {
      problems.push(`${yamlPath}: ${error.message}`);
      continue;
    }
    if (write) writeFileSync(jsonPath, expected);
    let actual;
    try {
      actual = readFileSync(jsonPath, "utf8");
    } catch {
      actual = undefined;
    }
    if (actual !== expected) problems.push(`${jsonPath}: missing or stale; run node scripts/providers/provider-json.mjs --write`);
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const mode = process.argv[2];
  if (mode !== "--write" && mode !== "--check") {
    console.error("usage: provider-json.mjs --write | --check");
    process.exit(2);
  }
  const problems = checkProviderJson("providers", mode === "--write");
  for (const problem of problems) console.error(problem);
  process.exit(problems.length === 0 ? 0 : 1);
}

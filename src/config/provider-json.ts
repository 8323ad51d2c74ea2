/**
 * The JSON beside a `provider.yaml`: `provider.generated.json` holds the same
 * document as data, with the SHA-256 of the `provider.yaml` bytes it was made
 * from. Parsing the bundled kubectl option table (67 KB) as YAML costs
 * hundreds of milliseconds at start-up; `JSON.parse` of the same data well
 * under one. `provider.yaml` stays the source of truth: the JSON is used only
 * while its hash matches the YAML text read at start-up, and its content is
 * validated by the same schema; a missing, stale or malformed JSON is ignored
 * and the YAML is parsed instead. scripts/providers/provider-json.mjs writes
 * it; `provider-json.mjs --check` and test/unit/config/provider-json.test.ts check it is current.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { readConfigTextIfExists } from "./read-file.js";

/** The file name of the JSON beside `provider.yaml`. */
export const PROVIDER_JSON = "provider.generated.json";

/** The SHA-256 (hex) of a `provider.yaml` text, as its JSON records it. */
export function providerTextDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The document in the JSON beside `file` when it was made from exactly `text`;
 * undefined when there is none, it is stale or it cannot be read as such.
 */
export function providerJsonFor(file: string, text: string): unknown {
  let json: string | undefined;
  try {
    json = readConfigTextIfExists(path.join(path.dirname(file), PROVIDER_JSON));
  } catch {
    return undefined;
  }
  if (json === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    const { source_sha256: digest, document } = parsed as { source_sha256?: unknown; document?: unknown };
    return digest === providerTextDigest(text) ? document : undefined;
  } catch {
    return undefined;
  }
}

/**
 * provider.generated.json, the JSON beside a provider.yaml: used instead of
 * parsing the YAML only while it was made from exactly the YAML text on disk,
 * validated like the YAML, and never the source of an error's position. The
 * bundled providers' JSON yields the same configuration as their YAML.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PROVIDER_JSON, providerTextDigest } from "../../../src/config/provider-json.js";
import { loadProviderDocument, providerFileSchema } from "../../../src/config/provider-schema.js";
import { loadRegistry } from "../../../src/config/registry.js";
import { parseYamlDocument } from "../../../src/config/yaml-document.js";
import { expectConfigErrorAt, tempDir, writeTree, yaml } from "./temp-tree.js";

const repo = fileURLToPath(new URL("../../..", import.meta.url));
const PROVIDER = yaml('version: "1"', "name: kube", "tool: kube", 'description: "from yaml"', "command: kubectl");
const RULES = yaml('version: "1"');

function jsonFor(text: string, document: unknown, digest = providerTextDigest(text)): string {
  return JSON.stringify({ source_sha256: digest, document });
}

function providerTree(files: Readonly<Record<string, string>>): string {
  const root = tempDir();
  writeTree(root, { "providers/kube/provider.yaml": PROVIDER, "providers/kube/rules.yaml": RULES, ...files });
  return root;
}

const fromJson = { version: "1", name: "kube", tool: "kube", description: "from json", command: "kubectl" };

describe("provider.generated.json", () => {
  it("is what the registry loads when it was made from exactly the provider.yaml text", () => {
    const root = providerTree({ [`providers/kube/${PROVIDER_JSON}`]: jsonFor(PROVIDER, fromJson) });
    expect(loadRegistry(root).providers.get("kube")?.config.description).toBe("from json");
  });

  it("is ignored once provider.yaml changed (another hash), malformed, or not an object", () => {
    for (const json of [jsonFor(PROVIDER, fromJson, providerTextDigest(`${PROVIDER}# edited\n`)), "{", "[]", "null"]) {
      const root = providerTree({ [`providers/kube/${PROVIDER_JSON}`]: json });
      expect(loadRegistry(root).providers.get("kube")?.config.description).toBe("from yaml");
    }
  });

  it("is validated like the YAML: data the schema refuses falls back to the YAML and its located errors", () => {
    const unknownField = { ...fromJson, shell: true };
    const valid = providerTree({ [`providers/kube/${PROVIDER_JSON}`]: jsonFor(PROVIDER, unknownField) });
    expect(loadRegistry(valid).providers.get("kube")?.config.description).toBe("from yaml");

    const invalidYaml = yaml('version: "1"', "name: kube", "tool: kube", "command: kubectl", "shell: true");
    const root = providerTree({ "providers/kube/provider.yaml": invalidYaml, [`providers/kube/${PROVIDER_JSON}`]: jsonFor(invalidYaml, unknownField) });
    expectConfigErrorAt(() => loadRegistry(root), path.join(root, "providers/kube/provider.yaml"), 5, 1, /unknown field "shell"/);
  });

  it("never places an error: a check across files points at the provider.yaml line", () => {
    const other = yaml('version: "1"', "name: other", "tool: kube", "command: kubectl");
    const otherDocument = { version: "1", name: "other", tool: "kube", command: "kubectl" };
    const root = providerTree({
      [`providers/kube/${PROVIDER_JSON}`]: jsonFor(PROVIDER, fromJson),
      "providers/other/provider.yaml": other,
      "providers/other/rules.yaml": RULES,
      [`providers/other/${PROVIDER_JSON}`]: jsonFor(other, otherDocument),
    });
    expectConfigErrorAt(() => loadRegistry(root), path.join(root, "providers/other/provider.yaml"), 3, 7, /already the tool of .*kube.provider\.yaml:3:7/);
  });

  for (const name of ["kubectl", "aws", "az", "gcloud"]) {
    it(`bundled ${name}: the JSON is current and yields the configuration the YAML does`, () => {
      const dir = path.join(tempDir(), name);
      cpSync(path.join(repo, "providers", name), dir, { recursive: true });
      const file = path.join(dir, "provider.yaml");
      const text = readFileSync(file, "utf8");
      const json = JSON.parse(readFileSync(path.join(dir, PROVIDER_JSON), "utf8")) as { source_sha256: string };
      expect(json.source_sha256).toBe(providerTextDigest(text));
      const viaYaml = parseYamlDocument(file, text, providerFileSchema).value;
      expect(loadProviderDocument(file).value).toEqual(viaYaml);
      // The JSON really is the source: a JSON that says something else (same hash) is what loads.
      writeFileSync(
        path.join(dir, PROVIDER_JSON),
        jsonFor(text, {
          ...(JSON.parse(readFileSync(path.join(repo, "providers", name, PROVIDER_JSON), "utf8")) as { document: object }).document,
          description: "marker",
        }),
      );
      expect(loadProviderDocument(file).value.description).toBe("marker");
    });
  }
});

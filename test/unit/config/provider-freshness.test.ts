/**
 * config/provider-freshness.ts: an installed provider is older than the bundled
 * one when the digest its provider.generated.json records (or, without one, its
 * provider.yaml text's) is not the bundled JSON's; the server's one start-up line.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { bundledCatalogueDir, isOlderThanBundled, staleProviders, staleProvidersLine } from "../../../src/config/provider-freshness.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const BUNDLED = fileURLToPath(new URL("../../../providers", import.meta.url));

/** An installed copy of bundled `name` (provider.yaml and its JSON). */
function installed(name: string): string {
  const dir = tempDirectory(`torii-installed-${name}-`);
  for (const file of ["provider.yaml", "provider.generated.json"]) cpSync(path.join(BUNDLED, name, file), path.join(dir, file));
  return dir;
}

describe("provider freshness", () => {
  it("finds the package's providers/ folder, or the catalogue the environment names", () => {
    expect(bundledCatalogueDir({})).toBe(BUNDLED);
    expect(bundledCatalogueDir({ TORII_PROVIDER_CATALOG: "/x/y" })).toBe("/x/y");
  });

  it("a copy is current; a JSON recording another digest is older; an edited provider.yaml keeps its origin", () => {
    const dir = installed("aws");
    expect(isOlderThanBundled("aws", dir, BUNDLED)).toBe(false);
    writeFileSync(path.join(dir, "provider.yaml"), `${readFileSync(path.join(dir, "provider.yaml"), "utf8")}# edited\n`);
    expect(isOlderThanBundled("aws", dir, BUNDLED)).toBe(false);
    const json = path.join(dir, "provider.generated.json");
    writeFileSync(json, readFileSync(json, "utf8").replace(/"source_sha256": "[0-9a-f]{64}"/u, `"source_sha256": "${"0".repeat(64)}"`));
    expect(isOlderThanBundled("aws", dir, BUNDLED)).toBe(true);
  });

  it("without a JSON the provider.yaml text decides; a provider the catalogue lacks, or no catalogue, is never older", () => {
    const dir = installed("gcloud");
    rmSync(path.join(dir, "provider.generated.json"));
    expect(isOlderThanBundled("gcloud", dir, BUNDLED)).toBe(false);
    writeFileSync(path.join(dir, "provider.yaml"), "version: '1'\n");
    expect(isOlderThanBundled("gcloud", dir, BUNDLED)).toBe(true);
    expect(isOlderThanBundled("helm", dir, BUNDLED)).toBe(false);
    expect(isOlderThanBundled("gcloud", dir, undefined)).toBe(false);
  });

  it("names each stale provider's upgrade command in one line", () => {
    const stale = installed("kubectl");
    rmSync(path.join(stale, "provider.generated.json"));
    writeFileSync(path.join(stale, "provider.yaml"), "version: '1'\n");
    const names = staleProviders(
      [
        { name: "kubectl", dir: stale },
        { name: "aws", dir: installed("aws") },
      ],
      BUNDLED,
    );
    expect(names).toEqual(["kubectl"]);
    const line = staleProvidersLine(names);
    expect(line).not.toContain("\n");
    expect(line).toContain("installed provider kubectl is older than the definition bundled with this Torii");
    expect(line).toContain("run torii provider upgrade kubectl, then restart the client");
    expect(staleProvidersLine(["aws", "az"])).toContain("run torii provider upgrade aws; torii provider upgrade az");
  });
});

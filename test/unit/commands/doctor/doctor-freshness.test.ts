/**
 * `torii doctor` warns when an installed provider definition is older than the
 * one bundled with this Torii (config/provider-freshness.ts), naming the command
 * that brings it up to date; an operator's own edit of a current copy is not
 * reported, and after the upgrade the warning is gone.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { providerTextDigest } from "../../../../src/config/provider-json.js";
import { runCli } from "../../../support/run-cli.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const BUNDLED = fileURLToPath(new URL("../../../../providers", import.meta.url));

interface Report {
  readonly checks: readonly { subject: string; status: string; message: string; fix?: string }[];
}

/** A catalogue like the bundled one whose kubectl definition has one more locked option (a newer Torii). */
function newerCatalogue(): string {
  const catalogue = tempDirectory("torii-catalogue-");
  cpSync(BUNDLED, catalogue, { recursive: true });
  const yamlFile = path.join(catalogue, "kubectl", "provider.yaml");
  const text = readFileSync(yamlFile, "utf8").replace("    - --profile-output", "    - --profile-output\n    - --torii-test-lock");
  writeFileSync(yamlFile, text);
  // As scripts/providers/provider-json.mjs writes it.
  const json = `${JSON.stringify({ source_sha256: providerTextDigest(text), document: parse(text) as unknown }, null, 1)}\n`;
  writeFileSync(path.join(catalogue, "kubectl", "provider.generated.json"), json);
  return catalogue;
}

async function freshness(env: Record<string, string>): Promise<Report["checks"]> {
  const result = await runCli(["doctor", "--json"], env);
  return (JSON.parse(result.stdout) as Report).checks.filter((check) => check.subject === "definition kubectl");
}

async function installedKubectl(): Promise<{ env: Record<string, string>; dir: string }> {
  const root = tempDirectory("torii-doctor-fresh-");
  rmSync(root, { recursive: true });
  const env = { TORII_CONFIG_DIR: root, HOME: tempDirectory("torii-doctor-home-") };
  expect((await runCli(["provider", "install", "kubectl"], env)).status).toBe(0);
  return { env, dir: path.join(root, "providers", "kubectl") };
}

describe("torii doctor: installed provider definitions", () => {
  it("says nothing about a copy of the bundled definition, nor about the operator's own edit of it", async () => {
    const { env, dir } = await installedKubectl();
    expect(await freshness(env)).toEqual([]);
    const file = path.join(dir, "provider.yaml");
    writeFileSync(file, `${readFileSync(file, "utf8")}# the operator's note\n`);
    expect(await freshness(env)).toEqual([]);
  });

  it("warns when the bundled definition is newer, naming torii provider upgrade; the upgrade clears it", async () => {
    const { env, dir } = await installedKubectl();
    const newer = { ...env, TORII_PROVIDER_CATALOG: newerCatalogue() };
    const [finding, ...rest] = await freshness(newer);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ status: "warn", fix: expect.stringContaining("torii provider upgrade kubectl") as string });
    expect(finding?.message).toContain(`${path.join(dir, "provider.yaml")} is older than the definition bundled with this Torii`);
    expect((await runCli(["provider", "upgrade", "kubectl"], newer)).status).toBe(0);
    expect(await freshness(newer)).toEqual([]);
  });

  it("compares a copy installed before provider.generated.json existed by its provider.yaml text", async () => {
    const { env, dir } = await installedKubectl();
    rmSync(path.join(dir, "provider.generated.json"));
    expect(await freshness(env)).toEqual([]);
    const file = path.join(dir, "provider.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace(/\n {2}# Arguments with which kubectl writes[\s\S]*?\n {2}plugins: true/u, ""));
    expect(await freshness(env)).toMatchObject([{ status: "warn" }]);
  });
});

/**
 * `torii provider list|install|upgrade|remove` against a fresh configuration
 * root and the real bundled catalogue (or a copy of it, for upgrades).
 */
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { makeFakeBin } from "../../../support/fake-clis.js";
import { runCli } from "../../../support/run-cli.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const BUNDLED = fileURLToPath(new URL("../../../../providers", import.meta.url));
const freshRoot = () => path.join(tempDirectory("torii-provider-"), "config");

describe("torii provider", () => {
  it("lists the bundled catalogue with presets and the version each table was generated from", async () => {
    const result = await runCli(["provider", "list", "--json"], { TORII_CONFIG_DIR: freshRoot() });
    expect(result.status).toBe(0);
    const listed = JSON.parse(result.stdout) as {
      catalogue: string;
      providers: { name: string; installed: boolean; presets: string[]; generated_from: string }[];
    };
    expect(listed.catalogue).toBe(BUNDLED);
    expect(listed.providers.map((p) => p.name)).toEqual(["aws", "az", "gcloud", "kubectl"]);
    expect(listed.providers.find((p) => p.name === "kubectl")).toMatchObject({ installed: false, presets: ["readonly"], generated_from: "1.32.4" });
  });

  it("an installed provider's CLI is looked up through its calls' PATH (its .env), not the shell's", async () => {
    const root = freshRoot();
    const shellPath = tempDirectory("torii-empty-bin-");
    const env = { TORII_CONFIG_DIR: root, PATH: shellPath };
    expect((await runCli(["provider", "install", "kubectl"], env)).status).toBe(0);
    const listed = async (): Promise<{ name: string; cli_on_path: boolean | null }[]> =>
      (JSON.parse((await runCli(["provider", "list", "--json"], env)).stdout) as { providers: { name: string; cli_on_path: boolean | null }[] }).providers;
    expect((await listed()).find((p) => p.name === "kubectl")?.cli_on_path).toBe(false);
    writeFileSync(path.join(root, "providers", "kubectl", ".env"), `PATH=${makeFakeBin({ kubectl: "" }).dir}\n`, { mode: 0o600 });
    const after = await listed();
    expect(after.find((p) => p.name === "kubectl")?.cli_on_path).toBe(true);
    expect(after.find((p) => p.name === "aws")?.cli_on_path).toBe(false);
  });

  it("install creates the directory tree from nothing, with the preset's rules, and the configuration loads", async () => {
    const root = freshRoot();
    const env = { TORII_CONFIG_DIR: root };
    const result = await runCli(["provider", "install", "kubectl", "--preset", "readonly"], env);
    expect(result.status).toBe(0);
    const dir = path.join(root, "providers", "kubectl");
    expect(statSync(path.join(dir, "targets")).isDirectory()).toBe(true);
    expect(readFileSync(path.join(dir, "rules.yaml"), "utf8")).toBe(readFileSync(path.join(BUNDLED, "kubectl/presets/readonly.yaml"), "utf8"));
    expect(statSync(dir).mode & 0o077).toBe(0);
    const check = await runCli(["policy", "check", "kubectl", "--", "get", "pods"], env);
    expect(JSON.parse(check.stdout)).toMatchObject({ decision: "accept" });
  });

  it("install without a preset writes empty rules, and a second install keeps the first", async () => {
    const root = freshRoot();
    const env = { TORII_CONFIG_DIR: root };
    expect((await runCli(["provider", "install", "aws"], env)).status).toBe(0);
    const rules = path.join(root, "providers", "aws", "rules.yaml");
    writeFileSync(rules, 'version: "1"\naccept: [s3 ls]\n');
    const again = await runCli(["provider", "install", "aws", "--preset", "readonly", "--json"], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ installed: false });
    expect(readFileSync(rules, "utf8")).toContain("s3 ls");
  });

  it("install refuses an unknown provider or preset with the names there are", async () => {
    const env = { TORII_CONFIG_DIR: freshRoot() };
    expect(await runCli(["provider", "install", "helm"], env)).toMatchObject({
      status: 3,
      stderr: expect.stringContaining("bundled: aws, az, gcloud, kubectl") as string,
    });
    expect(await runCli(["provider", "install", "aws", "--preset", "admin"], env)).toMatchObject({
      status: 3,
      stderr: expect.stringContaining("presets: readonly") as string,
    });
  });

  it("upgrade replaces the definition, keeps rules, .env and targets, and shows what changed", async () => {
    const root = freshRoot();
    const env = { TORII_CONFIG_DIR: root };
    await runCli(["provider", "install", "kubectl", "--preset", "readonly"], env);
    const dir = path.join(root, "providers", "kubectl");
    writeFileSync(path.join(dir, ".env"), "X=1\n", { mode: 0o600 });
    const rulesBefore = readFileSync(path.join(dir, "rules.yaml"), "utf8");
    // A newer catalogue: one more locked option.
    const catalogue = tempDirectory("torii-catalogue-");
    cpSync(BUNDLED, catalogue, { recursive: true });
    const yamlFile = path.join(catalogue, "kubectl", "provider.yaml");
    writeFileSync(yamlFile, readFileSync(yamlFile, "utf8").replace("    - --profile-output", "    - --profile-output\n    - --torii-test-lock"));
    const dry = await runCli(["provider", "upgrade", "kubectl", "--dry-run", "--json"], { ...env, TORII_PROVIDER_CATALOG: catalogue });
    expect(JSON.parse(dry.stdout)).toMatchObject({
      status: "would-upgrade",
      changes: [{ what: "targeting.locked_options", added: ["--torii-test-lock"], added_count: 1, removed_count: 0 }],
    });
    expect(readFileSync(path.join(dir, "provider.yaml"), "utf8")).not.toContain("--torii-test-lock");
    const result = await runCli(["provider", "upgrade", "kubectl"], { ...env, TORII_PROVIDER_CATALOG: catalogue });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("targeting.locked_options: +1 (--torii-test-lock)");
    expect(readFileSync(path.join(dir, "provider.yaml"), "utf8")).toContain("--torii-test-lock");
    expect(readFileSync(path.join(dir, "rules.yaml"), "utf8")).toBe(rulesBefore);
    expect(readFileSync(path.join(dir, ".env"), "utf8")).toBe("X=1\n");
  });

  it("upgrade replaces an installed provider.yaml that does not parse (a duplicate key, an alias bomb), saying so, instead of failing with an unexpected error", async () => {
    const root = freshRoot();
    const env = { TORII_CONFIG_DIR: root };
    await runCli(["provider", "install", "kubectl", "--preset", "readonly"], env);
    const installed = path.join(root, "providers", "kubectl", "provider.yaml");
    const bundled = readFileSync(path.join(BUNDLED, "kubectl", "provider.yaml"), "utf8");
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...["b", "c", "d", "e", "f"].map((key, i) => `${key}: &${key} [${Array(10).fill(`*${"abcde"[i]}`).join(", ")}]`),
    ];
    for (const broken of [bundled.replace(/^name: kubectl$/mu, "name: kubectl\nname: kubectl2"), `${bomb.join("\n")}\n`]) {
      writeFileSync(installed, broken);
      const dry = await runCli(["provider", "upgrade", "kubectl", "--dry-run"], env);
      expect(dry.stderr).toBe("");
      expect(dry.status).toBe(0);
      expect(dry.stdout).toMatch(/^would upgrade kubectl /u);
      expect(dry.stdout).toMatch(/\n {2}provider\.yaml: the installed file does not parse \(.+\) -> the bundled definition, whole\n/u);
      expect(readFileSync(installed, "utf8")).toBe(broken);
      const result = await runCli(["provider", "upgrade", "kubectl"], env);
      expect(result.status, result.stderr).toBe(0);
      expect(readFileSync(installed, "utf8")).toBe(bundled);
    }
  });

  it("remove refuses while operator state exists, and with --force names what it deletes", async () => {
    const root = freshRoot();
    const env = { TORII_CONFIG_DIR: root };
    await runCli(["provider", "install", "kubectl"], env);
    const dir = path.join(root, "providers", "kubectl");
    writeFileSync(path.join(dir, ".env"), "X=1\n", { mode: 0o600 });
    const refused = await runCli(["provider", "remove", "kubectl"], env);
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain(path.join(dir, ".env"));
    expect(existsSync(dir)).toBe(true);
    const forced = await runCli(["provider", "remove", "kubectl", "--force"], env);
    expect(forced.status).toBe(0);
    expect(forced.stdout).toContain(`deleted ${path.join(dir, ".env")}`);
    expect(existsSync(dir)).toBe(false);
  });

  it("remove of a provider with nothing but its package needs no --force", async () => {
    const root = freshRoot();
    const env = { TORII_CONFIG_DIR: root };
    await runCli(["provider", "install", "gcloud"], env);
    expect((await runCli(["provider", "remove", "gcloud"], env)).status).toBe(0);
    expect(existsSync(path.join(root, "providers", "gcloud"))).toBe(false);
  });
});

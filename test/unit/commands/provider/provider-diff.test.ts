/**
 * `torii provider upgrade` shows the command-scoped locked options a newer
 * definition adds, so an operator sees why an older tree refused less.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { describeChange, diffProviderDefinitions } from "../../../../src/commands/provider/provider-diff.js";

const AWS = readFileSync(fileURLToPath(new URL("../../../../providers/aws/provider.yaml", import.meta.url)), "utf8");

describe("diffProviderDefinitions: argv.locked_command_options", () => {
  it("lists the rows a newer provider.yaml adds", () => {
    const older = AWS.replace(/ {2}# Command options that send signed requests[\s\S]*?(?= {2}# Top-level options)/u, "");
    expect(older).not.toContain("locked_command_options");
    const change = diffProviderDefinitions(older, AWS).find((row) => row.what === "argv.locked_command_options");
    expect(change?.added).toContain("emr create-default-roles --iam-endpoint");
    expect(change?.added).toContain("s3 cp --source-region");
    expect(change?.removed).toEqual([]);
    expect(describeChange(change ?? { what: "" })).toContain("argv.locked_command_options: +7");
  });
});

describe("diffProviderDefinitions: targeting.locked_values", () => {
  it("lists the values a newer provider.yaml refuses (red team 9 F3), each with the option it stands in for", () => {
    const GCLOUD = readFileSync(fileURLToPath(new URL("../../../../providers/gcloud/provider.yaml", import.meta.url)), "utf8");
    const older = GCLOUD.replace(/ {2}locked_values:\n(?: {4}- .*\n)+/u, "");
    expect(older).not.toContain("locked_values:");
    const change = diffProviderDefinitions(older, GCLOUD).find((row) => row.what === "targeting.locked_values");
    expect(change).toMatchObject({ added: ["projects/ (--project)"], removed: [] });
  });
});

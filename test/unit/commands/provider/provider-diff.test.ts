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

/**
 * Release tracks in generated tables (src/config/release-tracks.ts): a row with
 * `tracks` stands for one row per track, the loader expands it before the policy
 * engine sees it, and a bad `tracks` value is refused at its place in provider.yaml.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lockedCommandsOf } from "../../../src/config/locked-floor.js";
import { providerPolicyContext } from "../../../src/config/policy-context.js";
import { loadProviderDocument, toGrammarSpec } from "../../../src/config/provider-schema.js";
import { rowsPerTrack } from "../../../src/config/release-tracks.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { ruleList } from "../../support/policy-helpers.js";
import { expectConfigErrorAt, tempDir, writeTree, yaml } from "./temp-tree.js";

const BASE = ['version: "1"', "name: g", "tool: g", "command: g", "targeting:", "  mode: credentials"];

function providerFile(...extra: string[]): string {
  const root = tempDir();
  writeTree(root, { "provider.yaml": yaml(...BASE, ...extra) });
  return path.join(root, "provider.yaml");
}

/** The 1-based column of a row's `tracks` value. */
const trackColumn = (row: string): number => row.indexOf("tracks: ") + "tracks: ".length + 1;

describe("rowsPerTrack", () => {
  it("gives one row per listed track, in the row's order; ga is the path as written", () => {
    const rows = [
      { command: ["compute", "scp"], operand: "destination", tracks: ["ga", "alpha", "beta"] },
      { command: ["alpha", "x"], option: "--out" },
      { command: ["y"], option: "--out", tracks: ["beta"] },
    ];
    expect(rowsPerTrack(rows)).toEqual([
      { command: ["compute", "scp"], operand: "destination" },
      { command: ["alpha", "compute", "scp"], operand: "destination" },
      { command: ["beta", "compute", "scp"], operand: "destination" },
      { command: ["alpha", "x"], option: "--out" },
      { command: ["beta", "y"], option: "--out" },
    ]);
  });
});

describe("provider.yaml rows with tracks", () => {
  const folded = [
    "  locked_commands:",
    '    - {command: [auth], except: [list], why: "it changes the accounts", tracks: [ga, alpha, preview]}',
    "argv:",
    "  parser: argparse",
    "  file_reads:",
    "    - {command: [secrets, versions, add], option: --data-file, tracks: [alpha, beta]}",
    "  file_writes:",
    "    - {command: [storage, cp], operand: destination, tracks: [ga, beta]}",
  ];

  it("reach the policy engine one per track", () => {
    const config = loadProviderDocument(providerFile(...folded)).value;
    const grammar = toGrammarSpec(config);
    expect(grammar.fileReads?.map((row) => row.command.join(" "))).toEqual(["alpha secrets versions add", "beta secrets versions add"]);
    expect(grammar.fileWrites?.map((row) => row.command.join(" "))).toEqual(["storage cp", "beta storage cp"]);
    expect(lockedCommandsOf(config).map((row) => row.command.join(" "))).toEqual(["auth", "alpha auth", "preview auth"]);
  });

  it("decide each track's call, and no call of a track the row does not list", () => {
    const context = providerPolicyContext(loadProviderDocument(providerFile(...folded)).value);
    const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(context, { shared: ruleList([], ["/.*/"]) }), argv).decision;
    expect(decide(["alpha", "auth", "login"])).toMatchObject({ result: "deny", source: "locked-command" });
    expect(decide(["preview", "auth", "login"]).reason).toContain("it changes the accounts");
    expect(decide(["beta", "auth", "login"]).result).toBe("accept");
    expect(decide(["beta", "secrets", "versions", "add", "s", "--data-file=/tmp/k"]).reason).toContain("beta secrets versions add reads a local file");
    expect(decide(["secrets", "versions", "add", "s", "--data-file=/tmp/k"]).result).toBe("accept");
    expect(decide(["beta", "storage", "cp", "gs://b/k", "/tmp/k"]).reason).toContain("beta storage cp can write a local file");
    expect(decide(["alpha", "storage", "cp", "gs://b/k", "/tmp/k"]).result).toBe("accept");
  });

  it.each([
    ["file_reads", "    - {command: [a], option: --f, tracks: []}", /tracks must list at least one release track/],
    ["file_writes", "    - {command: [a], option: --f, tracks: [ga, alpha, ga]}", /release track ga is listed twice/],
    ["file_writes", "    - {command: [a], option: --f, tracks: [-x]}", /a release track must be ga or a command word/],
  ])("refuses a bad tracks value in %s at its value", (table, row, detail) => {
    const file = providerFile("argv:", `  ${table}:`, row);
    expectConfigErrorAt(() => loadProviderDocument(file), file, 9, trackColumn(row), detail);
  });

  it("refuses a bad tracks value in locked_commands at its value", () => {
    const row = '    - {command: [auth], why: "w", tracks: [beta, beta]}';
    const file = providerFile("  locked_commands:", row);
    expectConfigErrorAt(() => loadProviderDocument(file), file, 8, trackColumn(row), /release track beta is listed twice/);
  });
});

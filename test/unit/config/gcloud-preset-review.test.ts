/**
 * The gcloud read-only preset against gcloud's whole command tree, hidden commands
 * included (scripts/providers/gcloud-commands.txt, generated from `gcloud meta
 * list-commands --hidden --flags`). Every command the preset accepts whose path
 * names a credential must have a reviewed entry (scripts/providers/gcloud-reviewed.json)
 * that calls it safe; a command reviewed as printing one, a credential-printing
 * command and a list/describe flag that names a local file are denied; no hidden
 * command is accepted; an operand cannot pose as the verb.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { beforeAll, describe, expect, test } from "vitest";
import { providerFileSchema, toGrammarSpec } from "../../../src/config/provider-schema.js";
import { compilePolicy, type CompiledPolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";

const at = (file: string): string => fileURLToPath(new URL(`../../../${file}`, import.meta.url));
const read = (file: string): string => readFileSync(at(file), "utf8");

interface Listed {
  readonly path: string;
  readonly fileFlags: readonly string[];
  readonly hidden: boolean;
}

const listed: Listed[] = read("scripts/providers/gcloud-commands.txt")
  .split("\n")
  .filter((line) => line !== "" && !line.startsWith("#"))
  .map((line) => {
    const [words = "", mark] = line.split("  # ");
    const tokens = words.split(" ");
    const flagAt = tokens.findIndex((token) => token.startsWith("-"));
    return {
      path: tokens.slice(0, flagAt === -1 ? undefined : flagAt).join(" "),
      fileFlags: flagAt === -1 ? [] : tokens.slice(flagAt),
      hidden: mark === "hidden",
    };
  });
const reviewed = JSON.parse(read("scripts/providers/gcloud-reviewed.json")) as {
  credential_words: string;
  entries: Record<string, { verdict: "safe" | "deny"; why: string }>;
};
const credentialWords = new RegExp(reviewed.credential_words);
const entries = Object.entries(reviewed.entries).map(([pattern, entry]) => ({ pattern: new RegExp(pattern), ...entry }));
const bare = (path: string): string => path.replace(/^(alpha|beta|preview) /, "");
const verdictOf = (path: string) => entries.find((entry) => entry.pattern.test(bare(path)))?.verdict;

let policy: CompiledPolicy;
const decide = (argv: readonly string[]) => evaluatePolicy(policy, argv).decision;

beforeAll(() => {
  const provider = providerFileSchema.parse(parse(read("providers/gcloud/provider.yaml")));
  const rules = parse(read("providers/gcloud/presets/readonly.yaml")) as { deny: string[]; accept: string[] };
  const specs = (list: readonly string[]) => list.map((text, i) => ({ text, origin: `readonly.yaml#${String(i)}` }));
  policy = compilePolicy(
    {
      tool: "gcloud",
      grammar: toGrammarSpec(provider),
      lockedOptions: provider.targeting?.locked_options ?? [],
      settings: {
        minimumAcceptTokens: 1,
        forbiddenArgs: provider.policy?.forbidden_args ?? [],
        ignoreArgs: provider.policy?.ignore_args ?? { leading: [], flags: [] },
      },
    },
    { shared: { deny: specs(rules.deny), accept: specs(rules.accept) } },
  );
  expect(policy.errors).toEqual([]);
});

describe("the gcloud read-only preset against gcloud's command tree", () => {
  test("the committed list covers the tree: list/describe commands of every track, hidden ones marked", () => {
    expect(listed.length).toBeGreaterThan(4000);
    const paths = new Set(listed.map((row) => row.path));
    for (const path of ["compute instances list", "beta compute instances describe", "auth describe", "auth list", "secrets versions access"]) {
      expect(paths, path).toContain(path);
    }
    expect(listed.find((row) => row.path === "auth describe")?.hidden).toBe(true);
  });

  test("every accepted command whose path names a credential has a review entry that calls it safe", () => {
    const unreviewed = listed
      .filter((row) => decide(row.path.split(" ")).result === "accept")
      .filter((row) => credentialWords.test(bare(row.path)) && verdictOf(row.path) !== "safe")
      .map((row) => row.path);
    expect(unreviewed).toEqual([]);
  });

  test("commands reviewed as printing a credential, and credential-printing commands, are denied", () => {
    const leaks = listed.filter((row) => verdictOf(row.path) === "deny" || !/(^| )(list|describe)$/.test(row.path));
    expect(leaks.length).toBeGreaterThan(50);
    const open = leaks.filter((row) => decide([...row.path.split(" "), "x"]).result !== "deny").map((row) => row.path);
    expect(open).toEqual([]);
  });

  test("no hidden command is accepted", () => {
    const accepted = listed.filter((row) => row.hidden && decide(row.path.split(" ")).result === "accept").map((row) => row.path);
    expect(accepted).toEqual([]);
  });

  test("a flag of an accepted command that names a local file is denied in both spellings", () => {
    const withFlags = listed.filter((row) => row.fileFlags.length > 0);
    expect(withFlags.map((row) => row.path)).toContain("kms keys versions describe");
    for (const row of withFlags) {
      for (const flag of row.fileFlags) {
        for (const spelling of [[flag, "/tmp/x"], [`${flag}=/tmp/x`]]) {
          expect(decide([...row.path.split(" "), "x", ...spelling]).result, `${row.path} ${spelling.join(" ")}`).toBe("deny");
        }
      }
    }
  });

  test("the red team's calls are denied and an operand cannot pose as the verb", () => {
    for (const argv of [
      ["auth", "describe", "sa@p.iam.gserviceaccount.com"],
      ["auth", "print-refresh-token"],
      ["auth", "activate-refresh-token", "a", "b"],
      ["vmware", "private-clouds", "vcenter", "credentials", "describe", "--private-cloud=p"],
      ["vmware", "private-clouds", "nsx", "credentials", "describe", "--private-cloud=p"],
      ["kms", "keys", "versions", "describe", "1", "--key=k", "--attestation-file=/home/op/.bashrc"],
    ]) {
      expect(decide(argv).result, argv.join(" ")).toBe("deny");
    }
    expect(decide(["compute", "ssh", "describe", "--command=id"]).result).toBe("unresolved");
    expect(decide(["compute", "instances", "describe", "vm-1", "--zone=z"]).result).toBe("accept");
    expect(decide(["auth", "list", "--format=json"]).result).toBe("accept");
  });
});

/**
 * No option value reaches the audit log, in any spelling, on any path.
 *
 * Real calls through the built server over stdio (and `torii grant add`
 * through the built CLI), for a pflag, an argparse and a plain provider. Every
 * secret is a canary placed where an agent would paste a token: after a long
 * option, after `=`, attached to a short option, at the end of a short
 * cluster, after an argparse prefix, after an option the table does not know.
 * Each path is taken: allowed by a rule, allowed by a grant, explicitly
 * denied, unresolved (headless), refused for a locked option, a forbidden
 * value or an unparseable spelling. Afterwards no canary may appear in
 * audit.jsonl, audit.head or the server's stderr, nor in a reason returned for
 * a refused argv.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CallOutcome } from "../../src/pipeline/call-types.js";
import { makeConfigTree } from "../support/config-tree.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const KUBE = `version: "1"
name: kube
tool: kube
command: "true"
targeting:
  locked_options: [--server]
argv:
  parser: pflag
  options:
    - {name: --namespace, short: -n, value: required}
    - {name: --password, short: -p, value: required}
    - {name: --verbose, short: -v, value: none}
    - {name: --server, short: -S, value: required}
`;

const AWSISH = `version: "1"
name: awsish
tool: awsish
command: "true"
targeting:
  locked_options: [--profile]
argv:
  parser: argparse
  forbidden_value_prefixes: ["file://"]
  options:
    - {name: --token-code, value: required}
    - {name: --output, short: -o, value: required}
    - {name: --debug, short: -d, value: none}
    - {name: --profile, value: required}
`;

const PLAIN = `version: "1"
name: plain
tool: plain
command: "true"
targeting:
  locked_options: [--context]
argv:
  parser: plain
  forbidden_value_prefixes: ["@"]
`;

let counter = 0;
/** A fresh canary; every one contains CANARY, so one search finds them all. */
const canary = (): string => `CANARY${String((counter += 1)).padStart(3, "0")}x`;

/**
 * Option spellings that carry a value, per grammar (`$` is the canary). An
 * argparse CLI's own options (unknown to the table) only follow the command.
 */
const VALUE_SPELLINGS: Record<string, readonly string[]> = {
  kube: ["--password $", "--password=$", "-p$", "-p $", "-p=$", "-vp$", "-vp $", "--namespace $"],
  awsish: ["--token-code $", "--tok $", "--tok=$", "-o$", "-o $", "-o=$", "-do$", "-d -o $"],
  plain: ["--token $", "--token=X $", "-s$", "-s $", "--password $", "-abc $", "--token=$", "-t $"],
};
const BODY_SPELLINGS = ["--instance-ids $", "--secret-string=$", "--cli-input-json $"];

/** Spelling `i` of `tool` with a fresh canary, as argv tokens. */
function spelling(tool: string, i: number): string[] {
  const value = canary();
  return VALUE_SPELLINGS[tool]![i % VALUE_SPELLINGS[tool]!.length]!.split(" ").map((token) => token.replace("$", value));
}

/** The command words of each path, per provider (rules and grants below decide them). */
const PATHS: Record<string, Record<"allow" | "grant" | "deny" | "headless", string[]>> = {
  kube: { allow: ["get", "pods"], grant: ["top", "pods"], deny: ["delete", "pods"], headless: ["describe", "pods"] },
  awsish: { allow: ["s3", "ls"], grant: ["s3", "cp"], deny: ["s3", "rm"], headless: ["s3", "mv"] },
  plain: { allow: ["status"], grant: ["fetch"], deny: ["push"], headless: ["pull"] },
};

/** Refused argv: a locked option, a forbidden value, an unparseable spelling, each with a canary. */
function refusedArgv(): Record<string, string[][]> {
  const c = canary;
  return {
    kube: [
      ["--server", c(), "get", "pods"],
      [`--server=${c()}`, "get"],
      [`-S${c()}`, "get"],
      [`-vS${c()}`, "get"],
      [`--ser_ver=${c()}`, "get"],
      [`--bogus=${c()}`, "get"],
      [`-z${c()}`, "get"],
      [`--verbose=${c()}`, "get"],
      [`---x=${c()}`, "get"],
      ["get", "pods", "--password", `-${c()}`],
    ],
    awsish: [
      ["--prof", c(), "s3", "ls"],
      [`--profile=${c()}`, "s3", "ls"],
      [`--pro=${c()}`, "s3", "ls"],
      ["--output", `file://${c()}`, "s3", "ls"],
      [`-ofile://${c()}`, "s3", "ls"],
      ["s3", "cp", "--body", `FILE://${c()}`],
      [`-d${c()}`, "s3", "ls"],
      [`--=${c()}`, "s3", "ls"],
      [`-dx${c()}`, "s3", "ls"],
    ],
    plain: [
      ["--context", c(), "status"],
      [`--cont=${c()}`, "status"],
      [`-context=${c()}`, "status"],
      ["--data", `@${c()}`, "status"],
      [`--tok\u00e9n=${c()}`, "status"],
      [`\u2014token=${c()}`, "status"],
    ],
  };
}

let root: string;
let session: McpSession;
const outcomes: { path: string; args: string[]; outcome: CallOutcome }[] = [];

async function call(tool: string, args: string[], pathName: string): Promise<CallOutcome> {
  const outcome = outcomeOf(await session.call(tool, { args }));
  outcomes.push({ path: pathName, args, outcome });
  return outcome;
}

beforeAll(async () => {
  root = makeConfigTree({
    "providers/kube/provider.yaml": KUBE,
    "providers/kube/rules.yaml": 'version: "1"\ndeny: [delete]\naccept: [get]\n',
    "providers/awsish/provider.yaml": AWSISH,
    "providers/awsish/rules.yaml": 'version: "1"\ndeny: [s3 rm]\naccept: [s3 ls]\n',
    "providers/plain/provider.yaml": PLAIN,
    "providers/plain/rules.yaml": 'version: "1"\ndeny: ["/push$/"]\naccept: ["/status$/"]\n',
  });
  for (const [tool, words] of Object.entries(PATHS)) {
    if (tool === "plain") continue;
    const granted = await runCli(["grant", "add", tool, "--prefix", String(words.grant.length), "--", ...spelling(tool, 0), ...words.grant], {
      TORII_CONFIG_DIR: root,
    });
    expect(granted.status, granted.stderr).toBe(0);
  }
  session = await startSession(root);
});

afterAll(async () => {
  await session.close();
});

describe("the audit holds no option value and no token after an option", () => {
  test("allowed, granted, denied and unresolved calls with a secret in every option spelling", async () => {
    for (const [tool, paths] of Object.entries(PATHS)) {
      for (let i = 0; i < 8; i += 1) {
        for (const [pathName, words] of Object.entries(paths)) {
          const value = spelling(tool, i);
          const body = tool === "awsish" ? BODY_SPELLINGS[i % BODY_SPELLINGS.length]!.split(" ").map((token) => token.replace("$", canary())) : [];
          // Options before and after the command (a plain provider's rules read the end of the argv).
          const args = tool === "plain" || i % 2 === 0 ? [...value, ...words, ...body] : [...words, ...body, ...value];
          // The plain provider cannot know arity, so its grant is exact, one per argv.
          if (tool === "plain" && pathName === "grant") {
            const granted = await runCli(["grant", "add", "plain", "--exact", "--", ...args], { TORII_CONFIG_DIR: root });
            expect(granted.status, granted.stderr).toBe(0);
          }
          await call(tool, args, pathName);
        }
      }
    }
    const sources = (pathName: string) => new Set(outcomes.filter((entry) => entry.path === pathName).map((entry) => entry.outcome.decision.source));
    expect(sources("allow")).toEqual(new Set(["rules"]));
    expect(sources("grant")).toEqual(new Set(["grant"]));
    expect(sources("deny")).toEqual(new Set(["explicit-deny"]));
    expect(sources("headless")).toEqual(new Set(["headless"]));
  }, 120_000);

  test("refused argv (locked option, forbidden value, unparseable): the reason names no value", async () => {
    for (const [tool, list] of Object.entries(refusedArgv())) {
      for (const args of list) {
        const outcome = await call(tool, args, "refused");
        expect(outcome.decision.result, JSON.stringify(args)).toBe("deny");
        expect(["locked-option", "forbidden-value", "argv-rejected"], JSON.stringify(args)).toContain(outcome.decision.source);
        expect(outcome.decision.reason, JSON.stringify(args)).not.toMatch(/CANARY/u);
      }
    }
    const sources = new Set(outcomes.filter((entry) => entry.path === "refused").map((entry) => entry.outcome.decision.source));
    expect(sources).toEqual(new Set(["locked-option", "forbidden-value", "argv-rejected"]));
  });

  test("no canary in audit.jsonl, audit.head or stderr; the chain verifies; allowed calls keep their command words", async () => {
    await session.close();
    const log = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    expect(log).not.toMatch(/CANARY/u);
    expect(readFileSync(path.join(root, "audit.head"), "utf8")).not.toMatch(/CANARY/u);
    expect(session.stderr()).not.toMatch(/CANARY/u);
    const records = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; scope: string; argv_head?: string[]; detail?: string });
    const events = new Set(records.map((record) => record.event));
    for (const event of [
      "allowed-by-rules",
      "allowed-by-grant",
      "ran",
      "denied-explicit",
      "denied-headless",
      "denied-locked-option",
      "denied-argv",
      "grant-added",
    ]) {
      expect(events, event).toContain(event);
    }
    // Not vacuous: the command words survive where the grammar shows they are positionals.
    expect(
      records.filter((record) => record.scope === "kube" && record.event === "allowed-by-rules").every((record) => record.argv_head?.join(" ") === "get pods"),
    ).toBe(true);
    expect(records.filter((record) => record.event === "denied-locked-option").map((record) => record.detail)).toEqual(
      expect.arrayContaining(["--server", "--profile", "--context"]),
    );
    expect(
      records.filter((record) => record.event === "denied-locked-option" || record.event === "denied-argv").every((record) => record.argv_head === undefined),
    ).toBe(true);
    expect((await runCli(["audit", "verify"], { TORII_CONFIG_DIR: root })).status).toBe(0);
  });
});

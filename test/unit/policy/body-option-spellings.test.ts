/**
 * One reading of argparse body options (red team 9 F1): az reads `-rd PATH`,
 * `-rdPATH` and `-rd=PATH` as `-r -d PATH`, so every check that looks for an
 * option in a body reads them alike (src/policy/grammar/body-option.ts).
 *
 *   P10 any spelling of a listed az file write (a short alone, glued, after `=`,
 *       at any place of a cluster of switches; the long name, a prefix, `=`),
 *       wherever it stands among the other options, is held under a broad
 *       accept rule and is not allowed by a prefix grant shorter than the
 *       writing command (a real grants file; the same grant fits the call's
 *       tokens, so only the hold keeps it out).
 */
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { FileWriteSpec } from "../../../src/policy/grammar/types.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { GrantStore } from "../../../src/state/grant-store.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";
import { tempDir } from "../state/helpers.js";
import { STATE_LOCK_TIMING } from "../../../src/state/lock.js";

const az = bundledPolicyContext("az");
const decide = (accept: readonly string[], argv: readonly string[], deny: readonly string[] = [], context: ProviderPolicyContext = az) =>
  evaluatePolicy(compilePolicy(context, { shared: ruleList([...deny], [...accept]) }), argv);
const AZURE = "/home/u/.azure-old";
const FS_DOWNLOAD = ["storage", "fs", "directory", "download", "-f", "fs", "-s", "src"];

describe("az: a file-writing short at the end of a cluster of switches is held", () => {
  it.each([
    [FS_DOWNLOAD, ["-rd", AZURE]],
    [FS_DOWNLOAD, [`-rd${AZURE}`]],
    [FS_DOWNLOAD, [`-rd=${AZURE}`]],
    [FS_DOWNLOAD, ["-r", "-d", AZURE]],
    [
      ["storage", "copy", "-s", "src"],
      ["-rd", AZURE],
    ],
    [
      ["storage", "blob", "download", "-c", "c", "-n", "b"],
      ["-yf", `${AZURE}/config`],
    ],
  ])("rule `storage` leaves %j %j unresolved", (call, write) => {
    const { decision } = decide(["storage"], [...call, ...write]);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toContain("can write a local file");
  });

  it("the same call without the writing option stays with the broad rule", () => {
    expect(decide(["storage"], [...FS_DOWNLOAD, "-r"]).decision.result).toBe("accept");
  });
});

describe("deny rules and forbidden arguments read body options the same way", () => {
  const copy = ["storage", "copy", "-s", "src"];
  it.each([["-rd", AZURE], [`-rd${AZURE}`], [`-rd=${AZURE}`], [`-d=${AZURE}`]])(`deny \`storage copy -d ${AZURE}\` denies %j`, (...write) => {
    expect(decide(["storage"], [...copy, ...write], ["storage copy -d"]).decision.result, "without the value").toBe("deny");
    expect(decide(["storage"], [...copy, ...write], [`storage copy -d ${AZURE}`]).decision.result, "with the value").toBe("deny");
  });

  it.each([["--dest", AZURE], [`--destination=${AZURE}`], [`--dest=${AZURE}`]])(`deny \`storage copy --destination ${AZURE}\` denies %j`, (...write) => {
    expect(decide(["storage"], [...copy, ...write], [`storage copy --destination ${AZURE}`]).decision.result).toBe("deny");
  });

  it("an accept rule's value is the option's value: `--destination=X Y` is not `--destination Y`", () => {
    const rule = "storage copy -s src --destination /tmp/safe";
    expect(decide([rule], [...copy, "--destination", "/tmp/safe"]).decision.result).toBe("accept");
    expect(decide([rule], [...copy, "--destination=/tmp/safe"]).decision.result).toBe("accept");
    expect(decide([rule], [...copy, `--destination=${AZURE}`, "/tmp/safe"]).decision.result).toBe("unresolved");
  });

  it("a forbidden short is found glued, after = and in a cluster of the body", () => {
    const context = { ...az, settings: { ...az.settings, forbiddenArgs: [...az.settings.forbiddenArgs, "-d"] } };
    for (const write of [["-rd", AZURE], [`-d${AZURE}`], [`-rd=${AZURE}`]]) {
      expect(decide(["storage"], [...copy, ...write], [], context).decision, write.join(" ")).toMatchObject({ result: "deny", source: "forbidden-arg" });
    }
    // `-r` alone is not the forbidden `-d`: the call is only held, as every `storage copy -s` upload is (file_reads).
    expect(decide(["storage"], [...copy, "-r"], [], context).decision.result).toBe("unresolved");
    expect(decide(["storage copy"], [...copy, "-r"], [], context).decision.result).toBe("accept");
  });

  it("a forbidden global option is found by its short inside a body cluster (az reads -ro tsv as -r -o tsv)", () => {
    const context = { ...az, settings: { ...az.settings, forbiddenArgs: [...az.settings.forbiddenArgs, "--output"] } };
    for (const write of [["-ro", "tsv"], ["-rotsv"], ["-o", "tsv"]]) {
      expect(decide(["storage"], [...copy, ...write], [], context).decision, write.join(" ")).toMatchObject({ result: "deny", source: "forbidden-arg" });
    }
  });
});

describe("P10 every spelling of an az file write is held under a broad rule and a prefix grant", () => {
  // A writer under a locked command (`aks get-credentials -f`: it writes a kubeconfig) is refused before any rule.
  const locked = (command: readonly string[]): boolean =>
    (az.lockedCommands ?? []).some((lock) => lock.command.every((word, i) => command[i] === word) && !lock.except.includes(command[lock.command.length] ?? ""));
  const rows = (az.grammar.fileWrites ?? []).filter(
    (row): row is FileWriteSpec & { option: string; short: string } => row.short !== undefined && !locked(row.command),
  );

  /** A real grants file holding a prefix grant for each first word and each parent path of a writing command. */
  async function prefixGrants(): Promise<GrantStore> {
    const store = new GrantStore(path.join(tempDir(), "grants"), { lockTiming: STATE_LOCK_TIMING });
    const prefixes = new Set(rows.flatMap((row) => [row.command.slice(0, 1), row.command.slice(0, -1)]).map((words) => words.join(" ")));
    for (const prefix of prefixes) await store.add("prefix", prefix.split(" "), 60);
    return store;
  }

  const spellingArb = fc.record({
    row: fc.constantFrom(...rows),
    // Switches of the command: az's global shorts (-h, -o) start a cluster the global table reads (-of is --output=f).
    switches: fc.stringMatching(/^[a-gi-np-zA-Z]{0,3}$/u),
    form: fc.constantFrom("apart", "glued", "equals", "long", "long=", "prefix", "prefix="),
    // From 5: `--d` and `--de` are also prefixes of the forbidden `--debug`, which denies the call outright.
    prefixLength: fc.integer({ min: 5, max: 40 }),
    before: fc.integer({ min: 0, max: 2 }),
    accept: fc.constantFrom("first word", "parent path", "regex"),
  });

  function spell(row: { option: string; short: string }, switches: string, form: string, prefixLength: number): string[] {
    const prefix = row.option.slice(0, Math.min(prefixLength, row.option.length));
    const letter = row.short.slice(1);
    if (form === "apart") return [`-${switches}${letter}`, AZURE];
    if (form === "glued") return [`-${switches}${letter}${AZURE}`];
    if (form === "equals") return [`-${switches}${letter}=${AZURE}`];
    if (form === "long") return [row.option, AZURE];
    if (form === "long=") return [`${row.option}=${AZURE}`];
    return form === "prefix" ? [prefix, AZURE] : [`${prefix}=${AZURE}`];
  }

  it("a writer under a locked command is refused before any rule, in the same spellings", () => {
    const lockedRows = (az.grammar.fileWrites ?? []).filter((row) => row.short !== undefined && locked(row.command));
    for (const row of lockedRows) {
      for (const write of [[row.short as string, AZURE], [`${row.short as string}${AZURE}`], [`--${(row.option as string).slice(2)}=${AZURE}`]]) {
        expect(decide(["/.*/"], [...row.command, ...write]).decision.result, [...row.command, ...write].join(" ")).toBe("deny");
      }
    }
  });

  it("held: unresolved with the hold, and no prefix grant shorter than the command path fits", async () => {
    const store = await prefixGrants();
    await fc.assert(
      fc.asyncProperty(spellingArb, async ({ row, switches, form, prefixLength, before, accept }) => {
        const others = [
          ["--account-name", "acct"],
          ["-s", "src"],
          ["--timeout", "30"],
        ];
        const body = [...others.slice(0, before), spell(row, switches, form, prefixLength), ...others.slice(before)].flat();
        const rule = accept === "regex" ? "/.*/" : accept === "first word" ? row.command[0] : row.command.slice(0, -1).join(" ");
        const { decision, canonicalTokens = [] } = decide([rule as string], [...row.command, ...body]);
        expect(decision.result).toBe("unresolved");
        const hold = decision.result === "unresolved" ? decision.fileWrite : undefined;
        expect(hold?.command).toEqual(row.command);
        expect(store.find(canonicalTokens, hold?.minimumPrefix).kind).toBe("none");
        // The same grants fit the call's tokens: only the hold keeps them out.
        expect(store.find(canonicalTokens).kind).toBe("match");
      }),
      { seed: 20261201, numRuns: 400 },
    );
  });
});

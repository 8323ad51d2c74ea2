/**
 * The two front doors of an approval and the server behind them must not be
 * able to disagree on which grant a call admits. For calls of the bundled aws
 * grammar that the policy leaves to the operator (a file write held at its
 * command, `s3 cp`; a local read, `s3api put-object --body`; a write whose
 * command words an option splits, `iot-data --thing-name=t get-thing-shadow`;
 * a call without a hold; an argv with a character that does not show), every
 * grant (exact, and a prefix of each length, one too many included) is put to:
 *
 *   the shared decision   approval/lasting-answers.ts `grantRefusal`
 *   the approval page     its offer (page-offer.ts) and the check of a POSTed answer
 *   the terminal          `torii approvals approve --for 5 --exact | --prefix N`, on
 *                         a pending file holding what the server records for the call
 *   the server            apply-answer.ts carrying out that answer for the call's request
 *
 * and all four must give the same yes or no, and the page must list exactly
 * the prefixes the others admit.
 */
import { describe, expect, test } from "vitest";
import { applyAnswer, type RuleEditor } from "../../../src/approval/apply-answer.js";
import { grantRefusal, lastingAnswersOf, recordedHold } from "../../../src/approval/lasting-answers.js";
import { callPageOffer, offerRefusal } from "../../../src/approval/page-offer.js";
import type { ProviderEntry } from "../../../src/config/registry.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import type { ApprovalRequest } from "../../../src/pipeline/gates.js";
import { ApprovalStore } from "../../../src/state/approval-store.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { makeConfigTree } from "../../support/config-tree.js";
import { treeWithPendingCall } from "../../support/approvals.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";
import { runCli } from "../../support/run-cli.js";

const policy = compilePolicy(bundledPolicyContext("aws"), { shared: ruleList() });

const CALLS: readonly (readonly string[])[] = [
  ["s3", "cp", "s3://b/k", "./out"],
  ["s3api", "put-object", "--bucket", "b", "--key", "k", "--body", "./f"],
  ["iot-data", "--thing-name=t", "get-thing-shadow", "./shadow.json"],
  ["s3", "ls", "s3://b"],
  ["s3", "ls", "s3://b\u200b"],
];

interface Grant {
  readonly mode: "exact" | "prefix";
  readonly tokenCount: number;
}

/** Every grant worth asking about for a call of `count` tokens. */
function grantsFor(count: number): Grant[] {
  return [{ mode: "exact", tokenCount: count }, ...Array.from({ length: count + 1 }, (_, index): Grant => ({ mode: "prefix", tokenCount: index + 1 }))];
}

/** The call as the pipeline hands it to the approver: canonical tokens and the decision's hold. */
function heldCall(argv: readonly string[]) {
  const { decision, canonicalTokens } = evaluatePolicy(policy, argv);
  if (decision.result !== "unresolved" || canonicalTokens === undefined) throw new Error(`${argv.join(" ")} is not left to the operator: ${decision.reason}`);
  return { tokens: canonicalTokens, hold: decision.fileWrite };
}

const rules: RuleEditor = { offers: () => [], add: () => Promise.reject(new Error("no rule is asked for")) };

async function terminalAdmits(tokens: readonly string[], hold: ReturnType<typeof heldCall>["hold"], grant: Grant): Promise<boolean> {
  const { root, id } = await treeWithPendingCall(tokens, undefined, recordedHold(hold).hold);
  const how = grant.mode === "exact" ? ["--exact"] : ["--prefix", String(grant.tokenCount)];
  const answered = await runCli(["approvals", "approve", id, "--for", "5", ...how], { TORII_CONFIG_DIR: root });
  return answered.status === 0;
}

async function serverAdmits(tokens: readonly string[], hold: ReturnType<typeof heldCall>["hold"], grant: Grant): Promise<boolean> {
  const request: ApprovalRequest = {
    provider: { name: "aws", tool: "aws", dir: makeConfigTree({}) } as unknown as ProviderEntry,
    target: undefined,
    canonicalTokens: tokens,
    description: undefined,
    reason: "no rule",
    grants: { exact: tokens.join(" "), prefixes: [] } as unknown as ApprovalRequest["grants"],
    ...(hold === undefined ? {} : { hold }),
    signal: new AbortController().signal,
  };
  // The pending approval the answer is recorded in, as the server reads it back before it writes the grant.
  const { root, id } = await treeWithPendingCall(tokens, undefined, recordedHold(hold).hold);
  const store = new ApprovalStore(root);
  const recorded = await store.answer(id, { choice: "grant", mode: grant.mode, token_count: grant.tokenCount, minutes: 5, channel: "cli", by: "op" });
  if (!recorded.ok || recorded.record.answer === undefined) throw new Error(`the answer was not recorded: ${recorded.ok ? "no answer" : recorded.detail}`);
  const result = await applyAnswer(recorded.record.answer, request, { settings: DEFAULT_SETTINGS, rules, shownRules: [], approval: { store, id } });
  return result.result === "allow";
}

describe("the page, the terminal and the server admit the same grants", () => {
  test.each(CALLS.map((argv) => [argv.join(" "), argv] as const))("%s", async (_name, argv) => {
    const { tokens, hold } = heldCall(argv);
    const offer = callPageOffer({ tokens, hold, defaultMinutes: 5, rules: [] });
    const shared = lastingAnswersOf({ tokens, hold });
    const answers: Record<string, boolean[]> = {};
    for (const grant of grantsFor(tokens.length)) {
      const page = offerRefusal(offer, { choice: "grant", mode: grant.mode, token_count: grant.tokenCount, minutes: 5, csrf: "c" }) === undefined;
      answers[`${grant.mode} ${grant.tokenCount}`] = [
        grantRefusal(shared, grant) === undefined,
        page,
        await terminalAdmits(tokens, hold, grant),
        await serverAdmits(tokens, hold, grant),
      ];
    }
    for (const [grant, [decided, ...doors]] of Object.entries(answers)) {
      expect(doors, `${grant}: the shared decision says ${String(decided)}; page, terminal, server say`).toEqual([decided, decided, decided]);
    }
    const admittedPrefixes = Object.entries(answers)
      .filter(([grant, [decided]]) => grant.startsWith("prefix") && decided === true)
      .map(([grant]) => Number(grant.split(" ")[1]));
    expect(offer.prefixCounts).toEqual(admittedPrefixes);
  });

  test("the calls cover what they are named for: a write and a read held from their command, a split command, no hold, an unseen character", () => {
    const holds = CALLS.map((argv) => {
      const { tokens, hold } = heldCall(argv);
      return { access: hold?.access ?? null, first: lastingAnswersOf({ tokens, hold }).prefixCounts[0] ?? null };
    });
    expect(holds).toEqual([
      { access: "write", first: 2 },
      { access: "read", first: 2 },
      { access: "write", first: 3 },
      { access: null, first: 1 },
      { access: null, first: null },
    ]);
  });
});

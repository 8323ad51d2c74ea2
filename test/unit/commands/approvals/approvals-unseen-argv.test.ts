/**
 * A call whose argv holds characters that do not show on screen (zero-width,
 * bidi, tags, unusual spaces) gets no grant and no rule from the terminal, as
 * from the approval page: `torii approvals list` says so next to the escaped
 * argv, `approve --for` is refused with the argv escaped and leaves the
 * approval pending, `approve --once` still answers it. The server that carries
 * out a recorded answer refuses a grant or a rule for such an argv too,
 * whichever front door wrote it (approval/lasting-answers.ts, the one decision).
 */
import { describe, expect, test } from "vitest";
import { applyAnswer, type RuleEditor } from "../../../../src/approval/apply-answer.js";
import { callPageOffer } from "../../../../src/approval/page-offer.js";
import { DEFAULT_SETTINGS } from "../../../../src/config/settings.js";
import type { ProviderEntry } from "../../../../src/config/registry.js";
import type { ApprovalRequest } from "../../../../src/pipeline/gates.js";
import { ApprovalStore, type ApprovalAnswerRecord } from "../../../../src/state/approval-store.js";
import { treeWithPendingCall } from "../../../support/approvals.js";
import { makeConfigTree } from "../../../support/config-tree.js";
import { runCli } from "../../../support/run-cli.js";

/** `delete` with a zero-width space inside the namespace, and a tag character: both invisible on a terminal. */
const UNSEEN = ["delete", "ns", "prod\u200b", "--now\u{e0041}"];
/** Visible non-ASCII: shown escaped, yet nothing hidden, so it may still be granted. */
const VISIBLE = ["get", "pods", "café"];
const RAW = /[\u200b\u{e0041}]/u;

const treeWithPending = (argv: readonly string[]) => treeWithPendingCall(argv);

describe("torii approvals for an argv with characters that do not show on screen", () => {
  test("list shows the argv escaped and says it can be allowed once only, in text and --json", async () => {
    const { root } = await treeWithPending(UNSEEN);
    const listed = await runCli(["approvals", "list"], { TORII_CONFIG_DIR: root });
    expect(listed.stdout).not.toMatch(RAW);
    expect(listed.stdout).toContain('argv: ["delete","ns","prod\\u{200b}","--now\\u{e0041}"]');
    expect(listed.stdout).toMatch(/^ {2}once only \(no --for grant, no rule\): the argv holds characters that do not show on screen/mu);
    const json = await runCli(["approvals", "list", "--json"], { TORII_CONFIG_DIR: root });
    const parsed = JSON.parse(json.stdout) as { approvals: { once_only: string | null }[] };
    expect(parsed.approvals[0]?.once_only).toContain("do not show on screen");
  });

  test.each([[["--for", "5"]], [["--for", "5", "--exact"]], [["--for", "5", "--prefix", "1"]]])(
    "approve %j is refused with the argv escaped, and the approval stays pending",
    async (options) => {
      const { root, id } = await treeWithPending(UNSEEN);
      const answered = await runCli(["approvals", "approve", id, ...options], { TORII_CONFIG_DIR: root });
      expect(answered.status).not.toBe(0);
      expect(answered.stderr).toContain('no grant for the argv ["delete","ns","prod\\u{200b}","--now\\u{e0041}"]');
      expect(answered.stderr).toContain(`torii approvals approve ${id} --once`);
      expect(answered.stderr).not.toMatch(RAW);
      expect(answered.stdout).not.toMatch(/carries it out/u);
      expect(new ApprovalStore(root).read(id)).toMatchObject({ status: "pending" });
    },
  );

  test("approve --once (and the default) still answers it once", async () => {
    for (const options of [["--once"], []]) {
      const { root, id } = await treeWithPending(UNSEEN);
      const answered = await runCli(["approvals", "approve", id, ...options], { TORII_CONFIG_DIR: root });
      expect(answered.status).toBe(0);
      expect(new ApprovalStore(root).read(id)).toMatchObject({ status: "answered", answer: { choice: "once" } });
    }
  });

  test("an argv whose non-ASCII characters all show (café) is granted as before, and list says nothing of once only", async () => {
    const { root, id } = await treeWithPending(VISIBLE);
    const listed = await runCli(["approvals", "list"], { TORII_CONFIG_DIR: root });
    expect(listed.stdout).not.toContain("once only");
    const answered = await runCli(["approvals", "approve", id, "--for", "5"], { TORII_CONFIG_DIR: root });
    expect(answered.status).toBe(0);
    expect(new ApprovalStore(root).read(id)).toMatchObject({ answer: { choice: "grant", mode: "exact", token_count: 3, minutes: 5 } });
  });

  test("the page offers the same: Deny and Allow once for the unseen argv, a grant for the visible one", () => {
    const offer = (tokens: readonly string[]) => callPageOffer({ tokens, defaultMinutes: 5, rules: [] }).choices;
    expect(offer(UNSEEN)).toEqual(["deny", "once"]);
    expect(offer(VISIBLE)).toContain("grant");
  });
});

describe("the server carrying out a recorded answer", () => {
  const request = (tokens: readonly string[]): ApprovalRequest => ({
    // Never reached for a refused answer: a grant or rule for an unseen argv touches no file.
    provider: { name: "rec" } as unknown as ProviderEntry,
    target: undefined,
    canonicalTokens: tokens,
    description: undefined,
    reason: "no rule",
    grants: { exact: tokens.join(" "), prefixes: [] } as unknown as ApprovalRequest["grants"],
    signal: new AbortController().signal,
  });
  /** A rule editor that records what it was asked to add. */
  function recordingEditor(): { rules: RuleEditor; added: string[] } {
    const added: string[] = [];
    const rules: RuleEditor = {
      offers: () => [],
      add: (_request, effect) => {
        added.push(effect);
        return Promise.resolve({ effect, rule: "recorded" });
      },
    };
    return { rules, added };
  }
  /** No pending approval holds these answers: a grant that reached the write would be refused there too. */
  const approval = { store: new ApprovalStore(makeConfigTree({})), id: "0123456789abcdef" };
  const answer = (fields: Partial<ApprovalAnswerRecord>): ApprovalAnswerRecord =>
    ({ choice: "once", channel: "cli", by: "op", at: new Date(0).toISOString(), ...fields }) as ApprovalAnswerRecord;

  test.each([[{ choice: "grant", mode: "exact", token_count: UNSEEN.length, minutes: 5 }], [{ choice: "rule-accept" }], [{ choice: "rule-deny" }]] as const)(
    "refuses %j for an argv with characters that do not show on screen, writing nothing",
    async (fields) => {
      const { rules, added } = recordingEditor();
      const result = await applyAnswer(answer(fields), request(UNSEEN), { settings: DEFAULT_SETTINGS, rules, shownRules: [], approval });
      expect(result).toMatchObject({ result: "deny", source: "human-deny" });
      expect(result.result === "deny" ? result.reason : "").toContain("do not show on screen");
      expect(added).toEqual([]);
    },
  );

  test("carries out once for that argv, and a rule for a visible one", async () => {
    const { rules, added } = recordingEditor();
    const deps = { settings: DEFAULT_SETTINGS, rules, shownRules: [], approval };
    expect(await applyAnswer(answer({ choice: "once" }), request(UNSEEN), deps)).toMatchObject({ result: "allow", source: "human-once" });
    expect(await applyAnswer(answer({ choice: "rule-accept" }), request(VISIBLE), deps)).toMatchObject({ result: "allow", source: "rules" });
    expect(added).toEqual(["accept"]);
  });
});

/**
 * The Approver that asks a human: for a call no rule or grant decides, it
 * writes a pending approval (state/approval-store.ts), serves its page on
 * 127.0.0.1, opens the operator's browser, and waits on events for an answer
 * from the page or from `torii approvals` in any terminal, until
 * `approval.timeout_seconds` (then deny, `approval-timeout`) or the agent's
 * cancellation (then the approval is withdrawn). Every change of the pending
 * file is a compare-and-swap, so exactly one of answer, timeout and withdrawal
 * wins. The agent sees only the outcome. The URL handed to the browser holds
 * a one-time secret (the pending file keeps only its digest): the browser's
 * first request consumes it and gets the page's session (page-session.ts).
 */
import { randomBytes } from "node:crypto";
import { newPageSecret, pageSecretDigest } from "../state/page-secret.js";
import type { Settings } from "../config/settings.js";
import type { ApprovalAnswer, ApprovalRequest, Approver, LeaseAnswer, LeaseRequest } from "../pipeline/gates.js";
import type { PolicyCache } from "../pipeline/policy-cache.js";
import { effectivePolicyOf, nearestRules } from "../policy/explain.js";
import { ApprovalStore, type ApprovalChange, type ApprovalRecord } from "../state/approval-store.js";
import { applyAnswer, type RuleEditor } from "./apply-answer.js";
import { applyLeaseAnswer, leaseSnapshot } from "./apply-lease-answer.js";
import { renderLeasePage } from "./lease-page-html.js";
import { recordedHold } from "./lasting-answers.js";
import { leaseText } from "./lease-text.js";
import type { PageAnswer, PageFrame, PageModel, RuleOffer } from "./page-model.js";
import { callPageOffer, leasePageOffer, offerRefusal, type PageOffer } from "./page-offer.js";
import { renderPage } from "./page-html.js";
import type { ApprovalPageServer } from "./page-server.js";
import { waitForAnswer } from "./wait-for-answer.js";

export interface PageApproverDeps {
  readonly root: string;
  readonly settings: Settings;
  readonly policies: PolicyCache;
  readonly page: ApprovalPageServer;
  /** Opens the page in the operator's browser (open-browser.ts), or does nothing. */
  readonly open: (url: string) => void;
  readonly rules: RuleEditor;
  readonly clock?: () => Date;
}

/** What an HTTP refusal of the page says for each refusal of the store. */
const REFUSAL_STATUS = { unknown: 404, invalid: 409, "not-pending": 409, expired: 410, orphaned: 410, "no-secret": 404, ended: 403, superseded: 409 } as const;

/** What a pending approval holds besides its id, page, secrets and times. */
type PendingFields = Omit<ApprovalRecord, "version" | "status" | "answer" | "id" | "page" | "page_secrets" | "created_at" | "expires_at">;

export class PageApprover implements Approver {
  private readonly store: ApprovalStore;
  private readonly clock: () => Date;
  private readonly nudges = new Map<string, Set<() => void>>();

  constructor(private readonly deps: PageApproverDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.store = new ApprovalStore(deps.root, { clock: this.clock });
  }

  async ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    try {
      return await this.askOperator(request);
    } catch (error) {
      // No page or pending file means nobody can be asked: fail closed, as headless.
      return {
        result: "deny",
        source: "headless",
        reason: `the operator could not be asked (${error instanceof Error ? error.message : String(error)}), so the call is denied`,
      };
    }
  }

  async askLease(request: LeaseRequest): Promise<LeaseAnswer> {
    const lease = { minutes: this.deps.settings.defaultTargetMinutes, ...leaseSnapshot(request, this.clock()) };
    const { provider, target, canonicalTokens, description } = request;
    const model = { tool: provider.tool, target: target.name, tokens: canonicalTokens, offer: leasePageOffer(lease.minutes), active: lease.active };
    try {
      return await this.pose(
        request.signal,
        (_id, expiresAt) => ({
          render: (frame) => renderLeasePage({ ...model, expiresAt, ...(description === undefined ? {} : { description }) }, frame),
          offer: model.offer,
          record: {
            kind: "lease",
            tool: provider.tool,
            target: target.name,
            argv: [...canonicalTokens],
            lease,
            ...(description === undefined ? {} : { description }),
          },
        }),
        (end, record): Promise<LeaseAnswer> => {
          if (end === "aborted")
            return Promise.resolve({ result: "deny", source: "approval-withdrawn", reason: "the call was cancelled; the lease request was withdrawn" });
          if (end === "timeout" || end.answer === undefined) {
            return Promise.resolve({
              result: "deny",
              source: "approval-timeout",
              reason: `no operator answered within ${this.deps.settings.approvalTimeoutSeconds} s`,
            });
          }
          return applyLeaseAnswer(end.answer, request, record);
        },
      );
    } catch (error) {
      return { result: "deny", source: "human-deny", reason: `the operator could not be asked (${error instanceof Error ? error.message : String(error)})` };
    }
  }

  private askOperator(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const { provider, target, canonicalTokens, description } = request;
    let shownRules: readonly RuleOffer[] = [];
    return this.pose(
      request.signal,
      (id, expiresAt) => {
        const model = this.modelOf(id, request, expiresAt);
        shownRules = model.rules;
        return {
          render: (frame) => renderPage(model, frame),
          offer: model.offer,
          record: {
            kind: "call",
            tool: provider.tool,
            ...(target === undefined ? {} : { target: target.name }),
            argv: [...canonicalTokens],
            ...(description === undefined ? {} : { description }),
            // The terminal admits the grants the page offers only if it knows the hold (lasting-answers.ts).
            ...recordedHold(request.hold),
          },
        };
      },
      (end) => this.outcomeOfEnd(end, request, shownRules),
    );
  }

  /**
   * Serves the page, writes the pending file, opens the browser and waits for
   * the answer; the page is removed whatever the end. `settle` turns the end
   * into the caller's answer.
   */
  private async pose<T>(
    signal: AbortSignal,
    build: (id: string, expiresAt: string) => { render: (frame: PageFrame) => string; offer: PageOffer; record: PendingFields },
    settle: (end: ApprovalRecord | "timeout" | "aborted", record: ApprovalRecord) => Promise<T>,
  ): Promise<T> {
    const id = randomBytes(8).toString("hex");
    const csrf = randomBytes(24).toString("base64url");
    const created = this.clock();
    const expiresAt = new Date(created.getTime() + this.deps.settings.approvalTimeoutSeconds * 1000).toISOString();
    const { render, offer, record } = build(id, expiresAt);
    const page = await this.deps.page.add({
      id,
      csrf,
      render: (session) => render({ ...session, csrf }),
      consume: (secret) => this.store.consumePageSecret(id, secret),
      unoffered: (answer) => offerRefusal(offer, answer),
      answer: (answer, live) => this.answerFromPage(id, answer, live),
    });
    try {
      this.store.prune();
      const secret = newPageSecret();
      const fields = { id, ...record, page, page_secrets: [pageSecretDigest(secret)] };
      const createdRecord = await this.store.create({ ...fields, created_at: created.toISOString(), expires_at: expiresAt });
      if (!signal.aborted) this.deps.open(`${page}/${secret}`);
      return await settle(await this.awaitRecord(id, signal, Date.parse(expiresAt) - this.clock().getTime()), createdRecord);
    } finally {
      this.deps.page.remove(id);
    }
  }

  private outcomeOfEnd(end: ApprovalRecord | "timeout" | "aborted", request: ApprovalRequest, shownRules: readonly RuleOffer[]): Promise<ApprovalAnswer> {
    if (end === "aborted") {
      return Promise.resolve({
        result: "deny",
        source: "approval-withdrawn",
        reason: "the call was cancelled while its approval was pending; the approval was withdrawn",
      });
    }
    if (end !== "timeout") return this.outcomeOf(end, request, shownRules);
    return Promise.resolve({
      result: "deny",
      source: "approval-timeout",
      reason: `no operator answered within ${this.deps.settings.approvalTimeoutSeconds} s, so the call is denied`,
    });
  }

  /** The answered record, or how the wait ended without one (the pending file is then expired or withdrawn). */
  async awaitRecord(id: string, signal: AbortSignal, timeoutMs: number): Promise<ApprovalRecord | "timeout" | "aborted"> {
    const end = await waitForAnswer<ApprovalRecord>({
      dir: this.store.dir,
      timeoutMs,
      signal,
      check: () => {
        const record = this.store.read(id);
        return record !== undefined && "version" in record && record.status !== "pending" ? record : undefined;
      },
      onNudge: (nudge) => {
        const set = this.nudges.get(id) ?? new Set();
        set.add(nudge);
        this.nudges.set(id, set);
        return () => this.nudges.delete(id);
      },
    });
    if (end.kind === "changed") return end.value;
    const finished = await this.store.finish(id, end.kind === "timeout" ? "expired" : "withdrawn").catch((): undefined => undefined);
    if (end.kind === "aborted") return "aborted";
    // The answer may have landed between the deadline and the compare-and-swap: it wins then.
    if (finished?.ok === false && finished.refusal === "not-pending") {
      const record = this.store.read(id);
      if (record !== undefined && "version" in record) return record;
    }
    return "timeout";
  }

  private outcomeOf(record: ApprovalRecord, request: ApprovalRequest, shownRules: readonly RuleOffer[]): Promise<ApprovalAnswer> {
    if (record.status !== "answered" || record.answer === undefined) {
      return Promise.resolve({ result: "deny", source: "approval-timeout", reason: `the approval ended unanswered (${record.status})` });
    }
    return applyAnswer(record.answer, request, {
      settings: this.deps.settings,
      rules: this.deps.rules,
      shownRules,
      approval: { store: this.store, id: record.id },
    });
  }

  private async answerFromPage(id: string, answer: PageAnswer, live: () => boolean): Promise<{ status: number; message: string }> {
    const chosen =
      answer.choice === "grant"
        ? { choice: answer.choice, mode: answer.mode, token_count: answer.token_count, minutes: answer.minutes }
        : answer.choice === "lease-replace" || answer.choice === "lease-add"
          ? { choice: answer.choice, minutes: answer.minutes }
          : { choice: answer.choice };
    const change: ApprovalChange = await this.store.answer(id, { ...chosen, channel: "page", by: "the approval page" }, live);
    if (!change.ok) return { status: REFUSAL_STATUS[change.refusal], message: `refused: ${change.detail}` };
    for (const nudge of this.nudges.get(id) ?? []) nudge();
    return {
      status: 200,
      message: answer.choice === "deny" || answer.choice === "rule-deny" ? "Denied. You can close this page." : "Allowed. You can close this page.",
    };
  }

  private modelOf(id: string, request: ApprovalRequest, expiresAt: string): PageModel {
    let near: PageModel["nearestRules"] = [];
    try {
      const { policy } = this.deps.policies.load(request.provider, request.target?.name);
      near = nearestRules(effectivePolicyOf(policy, request.target?.name), request.canonicalTokens);
    } catch {
      near = []; // the pipeline loaded these rules a moment ago; a file edited since shows no nearest rules
    }
    const rules = this.deps.rules.offers(request);
    const offer = callPageOffer({
      tokens: request.canonicalTokens,
      hold: request.hold,
      defaultMinutes: this.deps.settings.defaultGrantMinutes,
      rules,
    });
    return {
      id,
      tool: request.provider.tool,
      ...(request.target === undefined ? {} : { target: request.target.name }),
      lease: leaseText(request.provider, request.target, this.clock()),
      tokens: request.canonicalTokens,
      ...(request.description === undefined ? {} : { description: request.description }),
      reason: request.reason,
      nearestRules: near,
      grants: request.grants,
      expiresAt,
      rules,
      offer,
    };
  }
}

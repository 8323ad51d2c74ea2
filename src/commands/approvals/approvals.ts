/**
 * `torii approvals list|approve|deny`: the terminal's side of the approval
 * page. Answers go through the same store and compare-and-swap as the page's
 * (state/approval-store.ts), so whichever answers first wins and an answered
 * or expired approval cannot be answered again. The waiting server carries the
 * answer out (a grant is written by the server, into the call's grants file)
 * and records it in the audit log as answered through the CLI by this user.
 */
import os from "node:os";
import { grantRefusal, lastingAnswersOfRecord, type LastingAnswers } from "../../approval/lasting-answers.js";
import { sanitiseDescription, unseenEscapes, visibleAscii, visibleJson } from "../../runtime/display-text.js";
import { approvalOrphaned, ApprovalStore, APPROVAL_ID, orphanedDetail, type ApprovalAnswerRecord, type ApprovalRecord } from "../../state/approval-store.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";
import { emit, MAX_MINUTES, parseWholeNumber, type JsonOption } from "../shared/operator-output.js";

/** Exit code when the approval cannot be answered (unknown, already answered, expired, orphaned, invalid file). */
export const EXIT_NOT_PENDING = 1;

export interface ApproveOptions extends JsonOption {
  readonly once?: boolean;
  readonly for?: string;
  readonly exact?: boolean;
  readonly prefix?: string;
  readonly add?: boolean;
}

function store(): ApprovalStore {
  return new ApprovalStore(configRoot());
}

function checkedId(id: string): string {
  if (!APPROVAL_ID.test(id)) throw new OperatorError(`not an approval id (16 hex digits, as torii approvals list prints): ${JSON.stringify(id)}`);
  return id;
}

function user(): string {
  try {
    return os.userInfo().username;
  } catch {
    return "unknown";
  }
}

/** What a call approval admits that outlasts it, as the page offers it (lasting-answers.ts); undefined for a lease request. */
function lastingOf(record: ApprovalRecord): LastingAnswers | undefined {
  return record.kind === "lease" ? undefined : lastingAnswersOfRecord(record);
}

/** Why this approval may be answered only once or denied (no grant, no rule), or undefined when it may be granted. */
function onceOnlyReason(record: ApprovalRecord): string | undefined {
  return lastingOf(record)?.noLastingReason;
}

/** The `--prefix N` a call approval admits, when a hold narrows it (a file write: from its command on, or none), in words; else undefined. */
function prefixLimit(record: ApprovalRecord): string | undefined {
  const lasting = lastingOf(record);
  if (lasting === undefined || lasting.noLastingReason !== undefined) return undefined;
  const [first] = lasting.prefixCounts;
  if (first === undefined) return `no --prefix grant (--exact only): ${lasting.noPrefixReason ?? "none fits this call"}`;
  return lasting.prefixFloorReason === undefined ? undefined : `--prefix ${first} to ${lasting.tokenCount} only: ${lasting.prefixFloorReason}`;
}

function listJson(record: ApprovalRecord, orphaned: boolean, url: string | undefined) {
  return {
    id: record.id,
    kind: record.kind,
    tool: record.tool,
    target: record.target ?? null,
    argv: record.argv,
    description: record.description ?? null,
    url: url ?? null,
    created_at: record.created_at,
    expires_at: record.expires_at,
    lease: record.lease ?? null,
    orphaned,
    once_only: onceOnlyReason(record) ?? null,
    prefix_counts: lastingOf(record)?.prefixCounts ?? [],
    prefix_limit: prefixLimit(record) ?? null,
  };
}

/**
 * One pending approval for the terminal. The argv, and anything else from the
 * file, is printed with every character outside printable ASCII as `\u{…}` (as
 * on the approval page), the description sanitised as in the tool's field with
 * what does not show on screen as `\u{…}` (as the page writes it); an
 * argv with characters that do not show on screen says it can be allowed once
 * only, a held file write from which `--prefix` on (lasting-answers.ts).
 */
function listText(record: ApprovalRecord, orphaned: boolean, url: string | undefined): string[] {
  const description = sanitiseDescription(record.description);
  const onceOnly = onceOnlyReason(record);
  const limit = prefixLimit(record);
  return [
    `${record.id}  ${record.kind === "lease" ? "lease " : ""}${visibleAscii(record.tool)}${record.target === undefined ? "" : ` ${visibleAscii(record.target)}`}  until ${record.expires_at}`,
    ...(orphaned ? [`  ORPHANED: the server that asked (pid ${record.server?.pid ?? 0}) is no longer running; this request cannot be answered`] : []),
    ...(record.lease === undefined
      ? []
      : [
          `  lease for ${record.lease.minutes} min; active now: ${record.lease.active.map((lease) => `${visibleAscii(lease.target)} until ${lease.expires_at}`).join(", ") || "none"}`,
        ]),
    `  argv: ${visibleJson(record.argv)}`,
    ...(onceOnly === undefined ? [] : [`  once only (no --for grant, no rule): ${onceOnly}`]),
    ...(limit === undefined ? [] : [`  ${limit}`]),
    // Characters that do not show on screen (tags, variation selectors, the soft hyphen…) as `\u{…}`, as the page shows them.
    ...(description === undefined ? [] : [`  the agent says (unverified): ${unseenEscapes(JSON.stringify(description))}`]),
    ...(url === undefined ? [] : [`  page (opens once, in one browser): ${visibleAscii(url)}`]),
  ];
}

export interface ListOptions extends JsonOption {
  /** Mint and print a one-time link to each answerable approval's page. */
  readonly links?: boolean;
}

/** What `list` without `--links` says once, when an approval could be opened in a browser. */
const LINKS_HINT = "(torii approvals list --links prints a one-time link to each page; approve and deny need none)";

/**
 * Lists the pending approvals. The file holds no URL that opens a page; with
 * `--links` each answerable approval gets a freshly minted one-time URL (a
 * compare-and-swap on its file), an orphaned one none. Without it no link is
 * minted: answering from the terminal needs none, and a link printed where
 * the agent reads (an agent's shell session the operator typed `list` into, a
 * captured log) would be a way into the page for whoever opens it first.
 */
export async function runApprovalsList(options: ListOptions): Promise<number> {
  const approvals = store();
  const { pending, invalid } = approvals.list();
  const listed = await Promise.all(
    pending.map(async (record) => {
      const orphaned = approvalOrphaned(record);
      const minted = orphaned || options.links !== true ? undefined : await approvals.mintPageSecret(record.id);
      return { record, orphaned, url: minted?.ok === true ? minted.url : undefined };
    }),
  );
  const hint = options.links !== true && listed.some(({ orphaned }) => !orphaned) ? [LINKS_HINT] : [];
  const lines = listed.length === 0 ? ["no pending approvals"] : [...listed.flatMap(({ record, orphaned, url }) => listText(record, orphaned, url)), ...hint];
  const problems = invalid.map((error) => `unreadable approval file (answers nothing): ${error.message}`);
  emit(options, { approvals: listed.map(({ record, orphaned, url }) => listJson(record, orphaned, url)), invalid: invalid.map((error) => error.file) }, [
    ...lines,
    ...problems,
  ]);
  return 0;
}

/** The answer `approve` records for a lease request: Replace (default) or Add, for --for M minutes or the offered default. */
function approveLease(options: ApproveOptions): Omit<ApprovalAnswerRecord, "at" | "channel" | "by"> {
  if (options.once === true || options.exact === true || options.prefix !== undefined) {
    throw new OperatorError("this approval asks for a lease: answer it with --for M and --add (or neither), not --once, --exact or --prefix");
  }
  const minutes = options.for === undefined ? {} : { minutes: parseWholeNumber(options.for, "--for", 1, MAX_MINUTES) };
  return { choice: options.add === true ? "lease-add" : "lease-replace", ...minutes };
}

/**
 * The answer `approve` records for these options. A grant the page would not
 * offer is refused here, before anything is recorded, by the page's own
 * decision (lasting-answers.ts): any grant for an argv holding characters that
 * do not show on screen (with the argv escaped; once is still allowed), and a
 * prefix grant shorter than a file write's command (with the minimum and why).
 */
function approveAnswer(options: ApproveOptions, record: ApprovalRecord): Omit<ApprovalAnswerRecord, "at" | "channel" | "by"> {
  if (options.add === true) throw new OperatorError("--add answers a lease request only; this approval asks about a call");
  const granting = options.for !== undefined || options.exact === true || options.prefix !== undefined;
  if (!granting) return { choice: "once" };
  if (options.once === true) throw new OperatorError("--once allows this call only: leave out --for, --exact and --prefix, or leave out --once");
  const lasting = lastingAnswersOfRecord(record);
  if (lasting.noLastingReason !== undefined) {
    throw new OperatorError(
      `no grant for the argv ${visibleJson(record.argv)}: ${lasting.noLastingReason} (torii approvals approve ${record.id} --once, or torii approvals deny ${record.id})`,
    );
  }
  const argvLength = record.argv.length;
  if (options.for === undefined) throw new OperatorError("--exact and --prefix need --for M (how many minutes the grant lasts)");
  if (options.exact === true && options.prefix !== undefined) throw new OperatorError("give one of --exact and --prefix N, not both");
  const minutes = parseWholeNumber(options.for, "--for", 1, MAX_MINUTES);
  if (options.prefix === undefined) return { choice: "grant", mode: "exact", token_count: argvLength, minutes };
  const count = parseWholeNumber(options.prefix, "--prefix", 1, argvLength);
  const refusal = grantRefusal(lasting, { mode: "prefix", tokenCount: count });
  if (refusal !== undefined) {
    throw new OperatorError(
      `--prefix ${count} refused, nothing was recorded: ${refusal} (torii approvals approve ${record.id} --for ${minutes} --exact grants this argv only)`,
    );
  }
  return { choice: "grant", mode: "prefix", token_count: count, minutes };
}

async function answer(id: string, options: JsonOption, make: (record: ApprovalRecord) => Omit<ApprovalAnswerRecord, "at" | "channel" | "by">): Promise<number> {
  const approvals = store();
  const current = approvals.read(checkedId(id));
  if (current === undefined) throw new OperatorError(`no approval ${id} (torii approvals list shows the pending ones)`, EXIT_NOT_PENDING);
  if (!("version" in current)) throw new OperatorError(`approval ${id} cannot be answered: ${current.message}`, EXIT_NOT_PENDING);
  // Checked before the lock too: a server killed while it held the lock leaves it stale for seconds.
  if (approvalOrphaned(current)) throw new OperatorError(`approval ${id} cannot be answered: ${orphanedDetail(current)}`, EXIT_NOT_PENDING);
  const chosen = make(current);
  const change = await approvals.answer(id, { ...chosen, channel: "cli", by: user() });
  if (!change.ok) throw new OperatorError(`approval ${id} cannot be answered: ${change.detail}`, EXIT_NOT_PENDING);
  const what =
    chosen.choice === "deny"
      ? "denied"
      : chosen.choice === "grant"
        ? `allowed, with a ${chosen.mode ?? "exact"} grant of ${chosen.token_count ?? 0} token(s) for ${chosen.minutes ?? 0} min`
        : chosen.choice === "lease-replace" || chosen.choice === "lease-add"
          ? `lease granted (${chosen.choice === "lease-add" ? "added to the active targets" : "replacing the active targets"}); the rules still decide the call`
          : "allowed once";
  emit(options, { id, answer: chosen }, [`approval ${id}: ${what}; the waiting server carries it out`]);
  return 0;
}

export function runApprovalsApprove(id: string, options: ApproveOptions): Promise<number> {
  return answer(id, options, (record) => (record.kind === "lease" ? approveLease(options) : approveAnswer(options, record)));
}

export function runApprovalsDeny(id: string, options: JsonOption): Promise<number> {
  return answer(id, options, () => ({ choice: "deny" }));
}

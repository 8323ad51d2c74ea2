/**
 * Pending approvals: `<root>/approvals/<id>.yaml`, one file per question the
 * server is waiting on, so that `torii approvals` in any terminal of the
 * machine can list and answer it, and the waiting server sees the answer.
 *
 * ```yaml
 * version: "1"
 * id: 3f1c0a9b2e4d6f70
 * kind: call                      # call | lease
 * tool: kubectl
 * target: prod                    # absent for a provider without targets
 * argv: [get, pods]               # the canonical tokens
 * page: http://127.0.0.1:40123/a/<id>       # the page, without any secret
 * page_secrets: [<sha256 hex>, …]          # digests of the unused one-time secrets that open it
 * created_at: …  expires_at: …
 * status: pending                 # pending | answered | expired | withdrawn
 * answer: {choice: once, channel: cli, by: alice, at: …}
 * lease: {minutes: 15, active: [{target: dev, expires_at: …}], revision: 7}   # kind lease only
 * hold: {minimum_prefix: 3, access: write}   # kind call, held for a local file write/read (policy/file-write-hold.ts)
 * server: {pid: 4242, started: "123456", namespace: "pid:[4026531836]"}   # the asking server (process-identity.ts)
 * grant_outcome: {state: written, at: …}   # a grant answer: written by the server, or superseded by `torii grant clear|revoke`
 * ```
 *
 * Every change is a compare-and-swap under the file's lock: only a `pending`,
 * unexpired approval can be answered, expired or withdrawn, so an answered or
 * expired approval can never be answered again. The file is written atomically
 * (0600, directory 0700); a torn or invalid file answers nothing and stays on
 * disk. The file never holds a secret that opens the page: only the digests of
 * unused one-time secrets (state/page-secret.ts), so reading it (any process
 * of the operator's user can) opens nothing. `mintPageSecret` adds one and
 * returns its URL; the page server's first request with it consumes it.
 *
 * A grant answer is carried out by the waiting server, which notices it only
 * later. `torii grant clear|revoke` and the server's grant write both hold the
 * grants file's lock while they set `grant_outcome` (a compare-and-swap on an
 * answered file that has none): the revocation marks the answers of its scope
 * not yet written `superseded`, and the server writes a grant only after it
 * marked the answer `written`, so a revocation after the answer is never undone.
 */
import { readdirSync, unlinkSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { HELD_ACCESSES } from "../policy/file-write-hold.js";
import { StateWrittenError, type StateError } from "./errors.js";
import { expiresAtSchema } from "./expiry.js";
import { newPageSecret, pageSecretDigest, withPageSecret } from "./page-secret.js";
import { currentProcessIdentity, processState } from "./process-identity.js";
import { grantFingerprint, type GrantMatcher } from "./fingerprints.js";
import { StateFile, type StateFileOptions } from "./state-file.js";

/** `<root>/approvals`. */
export function approvalsDir(root: string): string {
  return path.join(root, "approvals");
}

/** An approval id: 16 lowercase hex digits (also a safe file name). */
export const APPROVAL_ID = /^[0-9a-f]{16}$/;

const channelSchema = z.enum(["page", "cli"]);
const answerSchema = z.strictObject({
  /** once | grant (exact or prefix, minutes) | deny | rule-accept | rule-deny | lease-replace | lease-add (minutes). */
  choice: z.enum(["once", "grant", "deny", "rule-accept", "rule-deny", "lease-replace", "lease-add"]),
  mode: z.enum(["exact", "prefix"]).optional(),
  token_count: z.int().min(1).optional(),
  minutes: z.int().min(1).max(1440).optional(),
  channel: channelSchema,
  by: z.string().max(256),
  at: expiresAtSchema,
});

const recordSchema = z.strictObject({
  version: z.literal("1"),
  id: z.string().regex(APPROVAL_ID),
  kind: z.enum(["call", "lease"]),
  tool: z.string().min(1).max(256),
  target: z.string().min(1).max(256).optional(),
  argv: z.array(z.string()),
  description: z.string().max(4096).optional(),
  /** The page's URL without a secret (`http://127.0.0.1:<port>/a/<id>`). */
  page: z.string().max(2048),
  /** SHA-256 digests (hex) of the one-time secrets not used yet. */
  page_secrets: z.array(z.string().regex(/^[0-9a-f]{64}$/)).max(64),
  created_at: expiresAtSchema,
  expires_at: expiresAtSchema,
  status: z.enum(["pending", "answered", "expired", "withdrawn"]),
  answer: answerSchema.optional(),
  /** A lease request (kind lease): the minutes offered and the provider's leases live when it was asked. */
  lease: z
    .strictObject({
      minutes: z.int().min(1).max(1440),
      active: z.array(z.strictObject({ target: z.string().min(1).max(256), expires_at: expiresAtSchema })),
      /**
       * The lease file's revision those leases were read at; absent when it could not be read. The answer is
       * carried out only at this revision (approval/apply-lease-answer.ts): a lease change meanwhile, a clear
       * above all, may have come after the answer, and the page showed other leases than there would be.
       */
      revision: z.int().min(0).optional(),
    })
    .optional(),
  /**
   * A call held for a local file write, read or plugin run (policy/file-write-hold.ts): no prefix grant shorter
   * than `minimum_prefix` tokens is admitted (approval/lasting-answers.ts). Written by the server that asks, so
   * the terminal refuses what the page does not offer; the server checks its own request again when it carries out the answer.
   */
  hold: z.strictObject({ minimum_prefix: z.int().min(1), access: z.enum(HELD_ACCESSES) }).optional(),
  /** The server that asks and waits: an answer is carried out only while it runs. Absent in files from before it was recorded. */
  server: z
    .strictObject({
      pid: z.int().min(1),
      started: z
        .string()
        .regex(/^[0-9]{1,20}$/)
        .optional(),
      namespace: z.string().max(64).optional(),
    })
    .optional(),
  /**
   * What became of a grant answer (status answered, choice grant): `written` by the waiting server, or `superseded`
   * by a `torii grant clear|revoke` of its scope before the server wrote it (`by` says which). Absent until then,
   * and in files from before it was recorded.
   */
  grant_outcome: z.strictObject({ state: z.enum(["written", "superseded"]), at: expiresAtSchema, by: z.string().max(256).optional() }).optional(),
});

export type ApprovalRecord = z.infer<typeof recordSchema>;
export type ApprovalAnswerRecord = z.infer<typeof answerSchema>;
export type ApprovalChannel = z.infer<typeof channelSchema>;

/**
 * True when the server that wrote a pending approval is gone (killed before it
 * could withdraw it): nobody waits for its answer. False when it runs or the
 * file names no server.
 */
export function approvalOrphaned(record: ApprovalRecord): boolean {
  return record.server !== undefined && processState(record.server) === "gone";
}

/** Why an orphaned approval cannot be answered. */
export function orphanedDetail(record: ApprovalRecord): string {
  return `the server that asked (pid ${record.server?.pid ?? 0}) is no longer running, so no call waits for this answer`;
}

/** Why a change was refused. */
export type ApprovalChangeRefusal = "unknown" | "invalid" | "not-pending" | "expired" | "orphaned" | "no-secret" | "ended" | "superseded";

export type ApprovalChange =
  { readonly ok: true; readonly record: ApprovalRecord } | { readonly ok: false; readonly refusal: ApprovalChangeRefusal; readonly detail: string };

export interface ApprovalStoreOptions extends StateFileOptions {
  readonly clock?: () => Date;
}

/** Answered, expired or withdrawn approvals are kept this long (for `replay` refusals and inspection), then pruned. */
const KEEP_FINISHED_MS = 60 * 60_000;

export class ApprovalStore {
  readonly dir: string;
  private readonly clock: () => Date;

  constructor(
    root: string,
    private readonly options: ApprovalStoreOptions = {},
  ) {
    this.dir = approvalsDir(root);
    this.clock = options.clock ?? (() => new Date());
  }

  /** The file of approval `id`. @throws RangeError for an id that is not 16 hex digits. */
  fileOf(id: string): string {
    if (!APPROVAL_ID.test(id)) throw new RangeError(`not an approval id (16 hex digits): ${JSON.stringify(id)}`);
    return path.join(this.dir, `${id}.yaml`);
  }

  private stateOf(id: string): StateFile<ApprovalRecord> {
    return new StateFile<ApprovalRecord>(
      this.fileOf(id),
      {
        version: "1",
        schema: recordSchema,
        findDuplicate: () => undefined,
        header: "# A pending Torii approval. Answer it with `torii approvals approve|deny`, not by hand.\n",
      },
      this.options,
    );
  }

  /** Writes a new pending approval (exclusive: an id is never reused), naming this process as the server that waits. */
  async create(record: Omit<ApprovalRecord, "version" | "status" | "answer" | "server">): Promise<ApprovalRecord> {
    const full: ApprovalRecord = { version: "1", ...record, status: "pending", server: currentProcessIdentity() };
    const state = this.stateOf(record.id);
    await state.locked(async (write) => {
      if (state.read().kind !== "missing") throw new Error(`approval ${record.id} already exists`);
      await write(full);
    });
    return full;
  }

  /** The approval as on disk; `undefined` when there is none, a StateError when the file is torn or invalid. */
  read(id: string): ApprovalRecord | StateError | undefined {
    const read = this.stateOf(id).read();
    if (read.kind === "missing") return undefined;
    return read.kind === "ok" ? read.state : read.error;
  }

  /** Pending approvals that have not expired, oldest first; `invalid` lists the files that could not be read. */
  list(): { readonly pending: readonly ApprovalRecord[]; readonly invalid: readonly StateError[] } {
    const now = this.clock().getTime();
    const pending: ApprovalRecord[] = [];
    const invalid: StateError[] = [];
    for (const id of this.ids()) {
      const record = this.read(id);
      if (record === undefined) continue;
      if (!("version" in record)) invalid.push(record);
      else if (record.status === "pending" && Date.parse(record.expires_at) > now) pending.push(record);
    }
    return { pending: pending.sort((a, b) => a.created_at.localeCompare(b.created_at)), invalid };
  }

  /**
   * Answers a pending, unexpired approval whose server still runs (compare-and-swap under the lock).
   * `live` is asked under the lock too: false (the page session that answers has ended) refuses with `ended`.
   */
  answer(id: string, answer: Omit<ApprovalAnswerRecord, "at">, live: () => boolean = () => true): Promise<ApprovalChange> {
    const ended = { refusal: "ended", detail: "the page that sent this answer no longer answers (another browser opened its link)" } as const;
    return this.change(
      id,
      (record) => (live() ? { ...record, status: "answered", answer: { ...answer, at: this.clock().toISOString() } } : undefined),
      false,
      true,
      ended,
    );
  }

  /** Ends a pending approval unanswered: `expired` (timeout) or `withdrawn` (the agent cancelled). */
  finish(id: string, status: "expired" | "withdrawn"): Promise<ApprovalChange> {
    return this.change(id, (record) => ({ ...record, status }), status === "expired");
  }

  /**
   * Adds a fresh one-time secret to a pending, unexpired approval whose server
   * still runs, and returns the URL that opens its page once.
   */
  async mintPageSecret(id: string): Promise<{ readonly ok: true; readonly url: string } | Extract<ApprovalChange, { ok: false }>> {
    const secret = newPageSecret();
    const change = await this.change(id, (record) => ({ ...record, page_secrets: withPageSecret(record.page_secrets, pageSecretDigest(secret)) }), false, true);
    return change.ok ? { ok: true, url: `${change.record.page}/${secret}` } : change;
  }

  /** Consumes a one-time secret of a pending, unexpired approval (compare-and-swap): true once per minted secret, false otherwise. */
  async consumePageSecret(id: string, secret: string): Promise<boolean> {
    const digest = pageSecretDigest(secret);
    // A secret the file does not list is refused without taking the lock: any local process can send the page
    // server wrong links by the thousand, and each would wait for the lock (up to its timeout, after its
    // connection was closed too) and hold up the operator's own open and answer. The unlocked read is whole (files
    // are replaced by rename), and a secret is listed before its link is handed out, so it never misses one.
    const listed = this.read(id);
    if (listed === undefined || !("version" in listed) || !listed.page_secrets.includes(digest)) return false;
    const change = await this.change(id, (record) =>
      record.page_secrets.includes(digest) ? { ...record, page_secrets: record.page_secrets.filter((known) => known !== digest) } : undefined,
    );
    return change.ok;
  }

  /**
   * The waiting server, holding the grants file's lock, before it writes the grant an answer asks for: marks the
   * answer `written` (compare-and-swap: an answered grant with no outcome yet). Refused `superseded` when a
   * `torii grant clear|revoke` got there first; the grant must not be written then.
   */
  claimGrant(id: string): Promise<ApprovalChange> {
    return this.settleGrant(id, { state: "written", at: this.clock().toISOString() });
  }

  /**
   * `torii grant clear|revoke`, holding the grants file's lock of the scope (`tool`, `target`): marks `superseded`
   * every answered grant of that scope not yet written whose matcher `affected` takes (every one by default).
   * Returns the ids it marked. A file that cannot be read answers nothing and is skipped.
   */
  async supersedeGrants(
    scope: { readonly tool: string; readonly target: string | undefined },
    by: string,
    affected: (matcher: GrantMatcher) => boolean = () => true,
  ): Promise<string[]> {
    const marked: string[] = [];
    for (const id of this.ids()) {
      const record = this.read(id);
      if (record === undefined || !("version" in record) || !grantUnwritten(record)) continue;
      if (record.kind !== "call" || record.tool !== scope.tool || record.target !== scope.target || !affected(answeredMatcher(record))) continue;
      let change: ApprovalChange;
      try {
        change = await this.settleGrant(id, { state: "superseded", at: this.clock().toISOString(), by });
      } catch (error) {
        // Renamed into place before a later step failed (its directory's fsync): the mark is in force, and the
        // revocation that asked for it must go on, not stop as if nothing had been done. Any other failure stops it.
        if (!(error instanceof StateWrittenError)) throw error;
        change = { ok: true, record };
      }
      if (change.ok) marked.push(id);
    }
    return marked;
  }

  /** Sets the outcome of an answered grant that has none (compare-and-swap under the pending file's lock). */
  private settleGrant(id: string, outcome: NonNullable<ApprovalRecord["grant_outcome"]>): Promise<ApprovalChange> {
    return this.withRecord(id, async (record, write): Promise<ApprovalChange> => {
      if (record.grant_outcome?.state === "superseded") {
        return {
          ok: false,
          refusal: "superseded",
          detail: `the grant answered in approval ${id} was superseded by ${record.grant_outcome.by ?? "a revocation"}`,
        };
      }
      if (!grantUnwritten(record)) return { ok: false, refusal: "not-pending", detail: `approval ${id} holds no grant answer waiting to be written` };
      const updated: ApprovalRecord = { ...record, grant_outcome: outcome };
      await write(updated);
      return { ok: true, record: updated };
    });
  }

  /** Removes finished or long-expired approval files (best effort; invalid files stay for the operator). */
  prune(): void {
    const cutoff = this.clock().getTime() - KEEP_FINISHED_MS;
    for (const id of this.ids()) {
      const record = this.read(id);
      if (record === undefined || !("version" in record) || Date.parse(record.expires_at) > cutoff) continue;
      try {
        unlinkSync(this.fileOf(id));
      } catch {
        // Best effort: a finished approval answers nothing even when it stays.
      }
    }
  }

  /** `next` returns the updated record, or undefined to refuse with `declined` (by default `no-secret`: the secret it was given is not among the file's). */
  private change(
    id: string,
    next: (record: ApprovalRecord) => ApprovalRecord | undefined,
    ignoreExpiry = false,
    needServer = false,
    declined: { readonly refusal: ApprovalChangeRefusal; readonly detail: string } = {
      refusal: "no-secret",
      detail: `that secret does not open approval ${id}`,
    },
  ): Promise<ApprovalChange> {
    return this.withRecord(id, async (record, write): Promise<ApprovalChange> => {
      if (record.status !== "pending") return { ok: false, refusal: "not-pending", detail: `approval ${id} is already ${record.status}` };
      if (!ignoreExpiry && Date.parse(record.expires_at) <= this.clock().getTime()) {
        return { ok: false, refusal: "expired", detail: `approval ${id} expired at ${record.expires_at}` };
      }
      if (needServer && approvalOrphaned(record)) return { ok: false, refusal: "orphaned", detail: orphanedDetail(record) };
      const updated = next(record);
      if (updated === undefined) return { ok: false, ...declined };
      await write(updated);
      return { ok: true, record: updated };
    });
  }

  /** Runs `body` on approval `id`'s record under its file's lock; a missing or invalid file is refused without it. */
  private withRecord(
    id: string,
    body: (record: ApprovalRecord, write: (record: ApprovalRecord) => Promise<void>) => Promise<ApprovalChange>,
  ): Promise<ApprovalChange> {
    const state = this.stateOf(id);
    return state.locked(async (write): Promise<ApprovalChange> => {
      const read = state.read();
      if (read.kind === "missing") return { ok: false, refusal: "unknown", detail: `no approval ${id}` };
      if (read.kind === "error") return { ok: false, refusal: "invalid", detail: read.error.message };
      return body(read.state, write);
    });
  }

  private ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.flatMap((name) => {
      const id = name.endsWith(".yaml") ? name.slice(0, -".yaml".length) : "";
      return APPROVAL_ID.test(id) ? [id] : [];
    });
  }
}

/** An answered grant whose outcome is not recorded yet. */
function grantUnwritten(record: ApprovalRecord): boolean {
  return record.status === "answered" && record.answer?.choice === "grant" && record.grant_outcome === undefined;
}

/** The matcher of the grant a call's answer asks for, on the file's argv (the server's canonical tokens). */
function answeredMatcher(record: ApprovalRecord): GrantMatcher {
  const mode = record.answer?.mode ?? "exact";
  const count = record.answer?.token_count ?? record.argv.length;
  return { mode, token_count: count, sha256: grantFingerprint(mode, record.argv.slice(0, count)) };
}

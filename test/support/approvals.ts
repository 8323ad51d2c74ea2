/**
 * Waiting for the server's pending approvals in tests, on file-system events
 * (the approvals directory is created 0700 up front so it can be watched).
 */
import { mkdirSync, readdirSync, watch } from "node:fs";
import { ApprovalStore, approvalsDir, type ApprovalRecord } from "../../src/state/approval-store.js";
import { makeConfigTree } from "./config-tree.js";

/**
 * A config tree holding one pending call approval (id 0123456789abcdef, tool `rec`, an hour to go) with this argv,
 * and `hold` as the server records a file write's hold (approval/lasting-answers.ts `recordedHold`).
 */
export async function treeWithPendingCall(argv: readonly string[], description?: string, hold?: ApprovalRecord["hold"]): Promise<{ root: string; id: string }> {
  const root = makeConfigTree({ "settings.yaml": 'version: "1"\n' });
  const id = "0123456789abcdef";
  const now = Date.now();
  await new ApprovalStore(root).create({
    id,
    kind: "call",
    tool: "rec",
    argv: [...argv],
    ...(description === undefined ? {} : { description }),
    ...(hold === undefined ? {} : { hold }),
    page: "http://127.0.0.1:1/a/0123456789abcdef",
    page_secrets: [],
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + 3_600_000).toISOString(),
  });
  return { root, id };
}

/** Resolves with the first pending approval `accept` takes (any by default), watching the approvals directory. */
export function nextPending(root: string, accept: (record: ApprovalRecord) => boolean = () => true, timeoutMs = 60_000): Promise<ApprovalRecord> {
  const dir = approvalsDir(root);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const store = new ApprovalStore(root);
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const found = store.list().pending.find(accept);
      if (found === undefined) return;
      clearTimeout(timer);
      watcher.close();
      resolve(found);
    };
    const watcher = watch(dir, check);
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`no pending approval appeared in ${dir} within ${timeoutMs} ms`));
    }, timeoutMs);
    check();
  });
}

/** The record of approval `id` as on disk (throws when missing or unreadable). */
export function approvalRecord(root: string, id: string): ApprovalRecord {
  const record = new ApprovalStore(root).read(id);
  if (record === undefined || !("version" in record)) throw new Error(`approval ${id} is missing or unreadable`);
  return record;
}

/** The ids of every approval file under `root`, whatever its status. */
export function approvalIds(root: string): string[] {
  return readdirSync(approvalsDir(root))
    .filter((name) => name.endsWith(".yaml"))
    .map((name) => name.slice(0, -".yaml".length));
}

/** A fresh one-time URL of approval `id`'s page, minted as `torii approvals list` does (the file keeps only its digest). */
export async function pageUrl(root: string, id: string): Promise<string> {
  const minted = await new ApprovalStore(root).mintPageSecret(id);
  if (!minted.ok) throw new Error(`approval ${id} gives no page url: ${minted.detail}`);
  return minted.url;
}

/**
 * `torii auth status [tool] [--json]` and `torii auth logout <tool> [target]`.
 *
 * Status reads each stored session without the lock and reports only its
 * state and times, never a value:
 * - `valid`: the last validate run accepted the stored values;
 * - `expired`: the last validate run refused them (a call will be denied);
 * - `unchecked`: stored, and not validated yet (or no validate command);
 * - `missing`: nothing stored;
 * - `unreadable`: the file is damaged or unsafe (a call will be denied).
 *
 * Logout deletes the scope's session under the scope's lock.
 */
import { ScopeMutex } from "../../pipeline/scope-mutex.js";
import { loginCommand } from "../../pipeline/environment-session.js";
import { runInAuthScope, sessionStoreOf } from "../../pipeline/auth-scope.js";
import { loadSettings } from "../../config/settings.js";
import { operatorAudit } from "../shared/operator-audit.js";
import { configRoot } from "../shared/operator-context.js";
import { emit, type JsonOption } from "../shared/operator-output.js";
import { findProvider, loadOperatorRegistry } from "../shared/selection.js";
import { allSessionSelections, selectSession, type SessionSelection } from "./auth-scope-selection.js";

type SessionState = "valid" | "expired" | "unchecked" | "missing" | "unreadable";

interface StatusRow {
  readonly tool: string;
  readonly target: string | null;
  readonly identity_provider: string;
  readonly scope: string;
  readonly state: SessionState;
  readonly saved_at: string | null;
  readonly checked_at: string | null;
  readonly login: string;
}

function statusOf(selection: SessionSelection): StatusRow {
  const read = sessionStoreOf(selection.scope).read();
  const base = {
    tool: selection.provider.tool,
    target: selection.target?.name ?? null,
    identity_provider: selection.scope.identity.name,
    scope: selection.scope.scope,
    login: loginCommand(selection.provider, selection.target),
  };
  if (read.kind !== "ok") return { ...base, state: read.kind === "missing" ? "missing" : "unreadable", saved_at: null, checked_at: null };
  const { check } = read.session;
  const state: SessionState = check === undefined ? "unchecked" : check.result === "valid" ? "valid" : "expired";
  return { ...base, state, saved_at: read.session.saved_at, checked_at: check?.checked_at ?? null };
}

function statusLine(row: StatusRow): string {
  const who = row.target === null ? row.tool : `${row.tool} ${row.target}`;
  const when = row.checked_at === null ? (row.saved_at === null ? "" : `, stored ${row.saved_at}`) : `, checked ${row.checked_at}`;
  const next = row.state === "valid" || row.state === "unchecked" ? "" : ` (run: ${row.login})`;
  return `${who}: ${row.state}${when} [${row.identity_provider}, scope ${row.scope}]${next}`;
}

export function runAuthStatus(tool: string | undefined, options: JsonOption): number {
  const registry = loadOperatorRegistry();
  let selections = allSessionSelections(registry);
  if (tool !== undefined) {
    findProvider(registry, tool);
    selections = selections.filter((selection) => selection.provider.tool === tool);
  }
  const rows = selections.map(statusOf);
  const lines =
    rows.length === 0
      ? [`no provider${tool === undefined ? "" : ` matching ${tool}`} uses stored credentials (auth.strategy: environment)`]
      : rows.map(statusLine);
  emit(options, { sessions: rows }, lines);
  return 0;
}

export async function runAuthLogout(tool: string, target: string | undefined, options: JsonOption): Promise<number> {
  const root = configRoot();
  const selection = selectSession(loadOperatorRegistry(), tool, target);
  const timeoutMs = loadSettings(root).timeoutSeconds * 1000;
  const removed = await runInAuthScope(new ScopeMutex(), selection.scope, timeoutMs, () => sessionStoreOf(selection.scope).remove());
  if (removed) await operatorAudit(root).record({ event: "session-removed", scope: selection.auditScope, detail: selection.scope.scope });
  const { identity } = selection.scope;
  emit(
    options,
    { action: removed ? "session-removed" : "no-session", tool, target: target ?? null, identity_provider: identity.name, scope: selection.scope.scope },
    [
      removed
        ? `removed the stored ${identity.name} credentials for scope ${selection.scope.scope}`
        : `no ${identity.name} credentials were stored for scope ${selection.scope.scope}`,
    ],
  );
  return 0;
}

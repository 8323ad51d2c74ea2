/**
 * The credential scope of a call, and its lock (invariant 7).
 *
 * A call's credentials belong to its identity provider (the target's
 * `identity.provider`, or the provider itself) in one scope (the target's
 * `identity.scope`, which defaults to the target name; the provider's tool
 * name without a target). The server's calls and `torii auth login|logout`
 * resolve the scope with this one function, so a login stores exactly the
 * session the call will read.
 *
 * The lock serialises every lifecycle step of a scope (session check, login,
 * logout, identity probe) across processes: two MCP clients each run their own
 * server against one configuration root, and an operator logs in beside them.
 * It is the state layer's file lock on `identities/<scope>/scope` (so
 * `identities/<scope>/scope.lock`), behind an in-process mutex so that callers
 * in one process queue without polling the file system.
 */
import path from "node:path";
import type { ProviderEntry, Registry, TargetEntry } from "../config/registry.js";
import { withFileLock, type LockTiming } from "../state/lock.js";
import { currentPathPolicy, ensureStateDirectory } from "../state/safe-path.js";
import { identityScopeDir, SessionStore } from "../state/session-store.js";
import type { ScopeMutex } from "./scope-mutex.js";

export interface AuthScope {
  /** The provider whose credentials the call uses. */
  readonly identity: ProviderEntry;
  readonly scope: string;
  /** `<identity dir>/identities/<scope>`. */
  readonly dir: string;
  /** One key per (identity provider, scope), for the in-process mutex. */
  readonly key: string;
}

/** Lock timing of the scope lock, in every process: a dead holder's lock is taken over after 10 s; a live one refreshes it every 2 s. */
const SCOPE_LOCK_STALE_MS = 10_000;
const SCOPE_LOCK_UPDATE_MS = 2_000;
/** A waiter also waits out a lifecycle command that takes its whole timeout, and a little more. */
const SCOPE_LOCK_WAIT_MARGIN_MS = 10_000;

/** The identity provider and scope of a call to `provider` (on `target`). */
export function authScopeOf(provider: ProviderEntry, target: TargetEntry | undefined, registry: Registry): AuthScope {
  const name = target?.config.identity.provider;
  const identity = name === undefined || name === provider.name ? provider : registry.providersByName.get(name);
  // The registry validated this at load; a missing entry means the tree changed under us.
  if (identity === undefined) throw new Error(`identity provider ${name ?? ""} is not installed`);
  const scope = target?.config.identity.scope ?? identity.tool;
  return { identity, scope, dir: identityScopeDir(identity.dir, scope), key: `${identity.name}\0${scope}` };
}

/** The stored session of the scope (used by the `environment` strategy). */
export function sessionStoreOf(scope: AuthScope): SessionStore {
  return new SessionStore(scope.dir);
}

/**
 * Runs `task` holding the scope's lock, in this process and across processes. A call canceled while it
 * waits for this process's earlier calls of the scope leaves at once (`signal`, ScopeMutex.run).
 */
export function runInAuthScope<T>(mutex: ScopeMutex, scope: AuthScope, lifecycleTimeoutMs: number, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const file = path.join(scope.dir, "scope");
  const timing: LockTiming = { stale: SCOPE_LOCK_STALE_MS, update: SCOPE_LOCK_UPDATE_MS, waitMs: lifecycleTimeoutMs + SCOPE_LOCK_WAIT_MARGIN_MS };
  return mutex.run(
    scope.key,
    async () => {
      ensureStateDirectory(file, currentPathPolicy());
      return withFileLock(file, timing, task);
    },
    signal,
  );
}

/**
 * The page server's connection cap on its own (page-connections.ts), with
 * stand-in sockets: each pool keeps at most its cap, a newcomer always gets
 * in, the oldest connection between requests goes first (a new one counts as
 * inside its first request), and connections of
 * the session pool are never closed for a flood of anonymous ones.
 */
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { expect, test } from "vitest";
import { ConnectionGuard } from "../../../src/approval/page-connections.js";

/** A socket stand-in: `destroy` records the close and emits it, as a socket does. */
function socket(name: string, closed: string[]): Socket {
  const emitter = new EventEmitter();
  return Object.assign(emitter, {
    destroy: () => {
      closed.push(name);
      emitter.emit("close");
    },
  }) as unknown as Socket;
}

test("a newcomer over the cap closes the oldest anonymous connection between requests, then the oldest inside one, never itself", () => {
  const closed: string[] = [];
  const guard = new ConnectionGuard({ anonymous: 3, session: 2 });
  const [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map((name) => socket(name, closed)) as [Socket, Socket, Socket, Socket, Socket];
  for (const held of [a, b, c]) guard.admit(held);
  guard.busy(a, true);
  guard.busy(b, true);
  guard.busy(b, false); // b was answered and waits for its next request
  guard.admit(d); // a is inside a request and c before its first: b, the oldest between requests, goes
  expect(closed).toEqual(["b"]);
  guard.busy(d, true);
  guard.admit(e); // every older one is inside a request (or its first): the oldest of them goes, never the newcomer
  expect(closed).toEqual(["b", "a"]);
  expect(guard.counts()).toEqual({ anonymous: 3, session: 0 });
});

test("a new connection still sending its first request outlives a pool of older ones inside requests for `cap - 1` arrivals", () => {
  const closed: string[] = [];
  const guard = new ConnectionGuard({ anonymous: 3, session: 2 });
  const flood = ["f1", "f2", "f3"].map((name) => socket(name, closed));
  for (const held of flood) {
    guard.admit(held);
    guard.busy(held, true); // a wrong link waiting on the pending file's lock
  }
  guard.admit(socket("operator", closed));
  for (const name of ["f4", "f5"]) guard.admit(socket(name, closed));
  expect(closed).toEqual(["f1", "f2", "f3"]);
});

test("connections in the session pool are never closed for anonymous ones; the session pool is capped on its own", () => {
  const closed: string[] = [];
  const guard = new ConnectionGuard({ anonymous: 2, session: 2 });
  const operator = socket("operator", closed);
  guard.admit(operator);
  guard.trust(operator);
  for (let index = 0; index < 50; index++) guard.admit(socket(`flood-${index}`, closed));
  expect(closed).not.toContain("operator");
  expect(closed).toHaveLength(48);
  expect(guard.counts()).toEqual({ anonymous: 2, session: 1 });
  // A cookie replayed over many connections fills only the session pool, oldest out.
  const replayed = ["r1", "r2"].map((name) => socket(name, closed));
  for (const held of replayed) {
    guard.admit(held);
    guard.trust(held);
  }
  expect(closed.slice(48)).toEqual(["flood-48", "operator"]);
  expect(guard.counts()).toEqual({ anonymous: 1, session: 2 });
});

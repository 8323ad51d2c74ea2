/**
 * The approval page server's connection cap. Any local process can connect to
 * the page's port, and the page server runs inside the MCP server: thousands
 * of sockets, each held open (silent, or sending headers a byte at a time)
 * until a deadline ends it, would use up the process's file descriptors and
 * memory, and with them the server's answers to its agent.
 *
 * Connections are held in two pools, each capped. A connection starts
 * anonymous; it joins the session pool once one of its requests proved a key
 * only the page's browser has (the page key, the load key) or opened the link:
 * a copied session cookie alone does not move it (page-server.ts). A new connection is
 * always let in, and the oldest connection of its pool over the cap is closed
 * (one between requests before one inside a request; never the newcomer). So a flood without the
 * session's cookie closes only its own pool's connections, never the
 * operator's: the operator's browser, connecting in between, is the newest of
 * the anonymous pool and outlives `anonymous - 1` more arrivals, far longer than
 * it takes to send its request (refusing newcomers instead would let a flood
 * that got there first keep the page away from the operator for good).
 * A new connection counts as inside its first request from the start: a
 * flood that keeps its own older connections inside requests (ones the server
 * is still answering) would otherwise make the
 * operator's connection, still sending its request, the first to go.
 */
import type { Socket } from "node:net";

/** The pools' caps: connections without a session, connections whose requests carried one. */
export interface ConnectionCaps {
  readonly anonymous: number;
  readonly session: number;
}

/** Browsers open at most six connections to one host; the rest is headroom for a flood's newest connections. */
export const DEFAULT_CONNECTION_CAPS: ConnectionCaps = Object.freeze({ anonymous: 64, session: 16 });

interface Held {
  /** Whether a request of this connection is being read or answered now; a new connection's first counts from its connect. */
  busy: boolean;
}

export class ConnectionGuard {
  /** Each pool in arrival order (a Map keeps insertion order), oldest first. */
  private readonly anonymous = new Map<Socket, Held>();
  private readonly session = new Map<Socket, Held>();

  constructor(private readonly caps: ConnectionCaps = DEFAULT_CONNECTION_CAPS) {}

  /** Takes in a new connection, closing the oldest anonymous one over the cap. */
  admit(socket: Socket): void {
    this.anonymous.set(socket, { busy: true });
    socket.once("close", () => {
      this.anonymous.delete(socket);
      this.session.delete(socket);
    });
    trim(this.anonymous, this.caps.anonymous, socket);
  }

  /** Marks whether `socket` is inside a request (read, routed or answered); one inside a request is closed last. */
  busy(socket: Socket, busy: boolean): void {
    const held = this.anonymous.get(socket) ?? this.session.get(socket);
    if (held !== undefined) held.busy = busy;
  }

  /** Moves `socket` into the session pool: one of its requests proved the session's page or load key (or opened it). */
  trust(socket: Socket): void {
    const held = this.anonymous.get(socket);
    if (held === undefined) return;
    this.anonymous.delete(socket);
    this.session.set(socket, held);
    trim(this.session, this.caps.session, socket);
  }

  /** How many connections each pool holds now. */
  counts(): { readonly anonymous: number; readonly session: number } {
    return { anonymous: this.anonymous.size, session: this.session.size };
  }
}

/**
 * Closes the oldest connections of `pool` until it holds at most `cap`: those between requests first, then those
 * inside one (or before their first); never `newcomer`, the connection that just came in or moved here.
 */
function trim(pool: Map<Socket, Held>, cap: number, newcomer: Socket): void {
  while (pool.size > cap) {
    let idle: Socket | undefined;
    let busy: Socket | undefined;
    for (const [socket, held] of pool) {
      if (socket === newcomer) continue;
      if (!held.busy) {
        idle = socket;
        break;
      }
      busy ??= socket;
    }
    const victim = idle ?? busy;
    if (victim === undefined) return;
    pool.delete(victim);
    victim.destroy();
  }
}

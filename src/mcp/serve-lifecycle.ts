/**
 * The life of a stdio server process, shared by the normal server and the one
 * that reports a start-up failure: connect Torii's transport, and shut down
 * cleanly on stdin end/close, stdout's close or failure (EPIPE), a stdout that stays full taking nothing
 * (STDOUT_STALL_MS), SIGINT, SIGTERM, SIGHUP, SIGQUIT or a closed transport (the SDK notices none of these
 * but the last). Calls in flight are aborted and whatever
 * the caller still has to flush (audit records) is awaited before exit.
 */
import type { CreatedServer } from "./server.js";
import { boundedLineWriter, STDERR_BACKLOG_BYTES } from "./stderr-log.js";
import { BoundedStdioTransport } from "./stdio/transport.js";

/** The signals that end the server through its shutdown (Windows has no SIGQUIT). */
const TERMINATING_SIGNALS: readonly NodeJS.Signals[] =
  process.platform === "win32" ? ["SIGINT", "SIGTERM", "SIGHUP"] : ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

/** Set once stderr failed (EPIPE, EIO): its reader is gone and nothing more is written there. */
let stderrGone = false;

/**
 * Stderr is the client's to read, and it may go away first (the client died,
 * its terminal closed): a failed write must never end the server, whose
 * shutdown still has the running call's records to write. Without a listener,
 * the stream's 'error' event (EPIPE) is an uncaught exception.
 */
function keepStderrFailuresQuiet(): void {
  if (process.stderr.listenerCount("error") > 0) return;
  process.stderr.on("error", () => {
    stderrGone = true;
  });
}

let writeStderrLine: ((line: string) => void) | undefined;

/**
 * Where stdio MCP servers may write: never stdout. Best effort: a client that stopped reading loses the line,
 * nothing else; past STDERR_BACKLOG_BYTES unread, lines are dropped (./stderr-log.ts).
 */
export function logToStderr(message: string): void {
  if (stderrGone || process.stderr.destroyed) return;
  writeStderrLine ??= boundedLineWriter(process.stderr, STDERR_BACKLOG_BYTES, () => {
    stderrGone = true;
  });
  writeStderrLine(`torii: ${message}`);
}

/**
 * How long a server that has shut down (calls killed, audit records written) waits for its client to
 * read the replies already written to stdout before it exits anyway.
 */
export const STDOUT_DRAIN_MS = 5_000;

/**
 * How long stdout may stay full, taking nothing, before the server gives up on its client and shuts down
 * (calls in flight killed, as for a cancel; TORII_STDOUT_STALL_MS shortens it, for tests). Whether stdin has
 * ended or not: past the hold bound stdin is paused and its end cannot be seen, and a client that keeps stdin
 * open but never reads receives none of the results it asked for, while their calls hold slots, scope locks
 * and leases. Two minutes: a client that is alive reads its one channel of replies long before that (a
 * suspended machine suspends the server's clock too); a client that reads a whole reply each period is waited for
 * (a reply read part way counts once read whole: ./stdio/transport.ts, watchStall).
 */
export const STDOUT_STALL_MS = 120_000;

export interface LifecycleOptions {
  readonly maxMessageBytes: number;
  /** STDOUT_DRAIN_MS unless set. */
  readonly drainMs?: number;
  /** STDOUT_STALL_MS unless set; 0 never gives up. */
  readonly stallMs?: number;
  /** Told why the server gave up on a client that stopped reading stdout, before the shutdown (serve.ts records it in the audit). */
  readonly stalled?: (why: string) => void;
  /** Awaited after in-flight calls were aborted, before the transport closes. */
  readonly beforeClose?: () => Promise<unknown>;
  /** Called once connected. */
  readonly started?: () => void;
  /** Given the transport before it connects (serve.ts hands its `whenWritable` to the call path). */
  readonly transport?: (transport: BoundedStdioTransport) => void;
}

/** Serves `created` on stdio until the client goes away or a signal arrives; resolves once shut down. */
export async function serveUntilClosed(created: CreatedServer, options: LifecycleOptions): Promise<void> {
  const { server } = created;
  keepStderrFailuresQuiet();
  const transport = new BoundedStdioTransport({
    maxMessageBytes: options.maxMessageBytes,
    log: logToStderr,
    stallMs: options.stallMs ?? STDOUT_STALL_MS,
  });
  options.transport?.(transport);

  let closing: Promise<void> | undefined;
  const shutdown = (why: string): Promise<void> => {
    closing ??= (async () => {
      logToStderr(`shutting down (${why})`);
      transport.refuseRequests(`the server is shutting down (${why}); the request was not run`);
      await created.cleanup();
      await options.beforeClose?.();
      await server.close().catch(() => undefined);
      // The replies already written (the aborted calls' among them) reach a client that still reads;
      // one that does not cannot keep the server (nothing of it runs any more) beyond this bound.
      const drainMs = options.drainMs ?? STDOUT_DRAIN_MS;
      if (!(await transport.untilFlushed(drainMs)))
        logToStderr(`stdout was not read within ${drainMs} ms of the shutdown: the replies still unread are dropped`);
    })();
    return closing;
  };

  // The transport's own end of stdin: it comes after every line sent before it was read (the stream's may come before).
  transport.oninputend = (why) => void shutdown(why);
  // A stdout that is gone (the client closed its end: EPIPE) takes no reply any more, whether stdin is open or not.
  transport.onoutputend = (why) => void shutdown(why);
  // A client that stopped reading stdout (maybe gone, its stdin's end unread behind the hold bound) ends the server too.
  transport.onstall = (why) => {
    // Already shutting down (stdin ended, a signal): that shutdown's own drain bound ends the wait; nothing was given up.
    if (closing !== undefined) return;
    options.stalled?.(why);
    void shutdown(why);
  };
  // Every signal a terminal or a supervisor sends to end the server goes through the same shutdown:
  // calls in flight are killed and their records written. A hang-up (the client's terminal closing)
  // would otherwise end the server at once and leave a running CLI unsupervised.
  for (const signal of TERMINATING_SIGNALS) process.on(signal, () => void shutdown(signal));
  // A cancel reaches Torii's own abort of the call too: the SDK ignores one for the id 0 or "" (server.ts).
  transport.oncancel = (id) => {
    created.cancel(id);
  };
  transport.onerror = (error) => {
    logToStderr(`transport error: ${error.message}`);
  };

  await server.connect(transport);
  options.started?.();
  await new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await shutdown("transport closed");
}

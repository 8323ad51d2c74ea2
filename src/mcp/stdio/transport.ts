/**
 * The MCP stdio transport Torii serves on, in place of the SDK's
 * StdioServerTransport, whose read buffer throws (and closes the connection)
 * at 10 MB and which drops invalid messages without a reply.
 *
 * - Reads stdin through a bounded line reader: a line over the limit is
 *   answered with -32600 (with its top-level id when that can be read) and
 *   skipped up to the next newline; the calls in flight go on.
 * - Validates each line before the protocol layer sees it (./inbound.ts) and
 *   answers invalid requests itself.
 * - Writes JSON-RPC only to stdout and honours backpressure: while stdout is
 *   full, stdin is still read, but every line that would be answered (a request,
 *   an invalid line) is held, not handed on, up to `heldInputBytes` (then stdin
 *   is paused until stdout drains; the bound is kept line by line, the rest of
 *   a chunk past it waits unread in the line reader); notifications are handed on at once, so a
 *   `notifications/cancelled` stops its call (or drops its held request) while
 *   the client does not read, and the end of stdin is seen (the server shuts
 *   down: serve-lifecycle.ts). When stdout drains, what the client sent until
 *   then (stdin's buffer, then the pipe, read without blocking) is read before
 *   any held line is handed on, so a cancel sent past the bound still drops
 *   its held request. A client that floods without reading cannot grow
 *   the server's memory with queued replies; `whenWritable()` lets calls already
 *   accepted wait before they run (call-path.ts), so at most the calls already
 *   running add a result each. While stdout can take more, requests are handed
 *   on RELEASE_BATCH a turn, so their answers can fill it before more are read.
 * - Refuses a request whose id is already used by a request in flight (-32600,
 *   nothing runs). JSON-RPC requires ids to be unique among pending requests;
 *   the SDK keys each handler's abort controller by id alone, so a second call
 *   with the same id would take over the first's cancellation: a
 *   `notifications/cancelled` for that id would stop the second call, and the
 *   first (its process still running) could no longer be canceled at all. An id
 *   is in flight from its request until its response is written or the turn
 *   after the client cancels it (the SDK writes no response for a canceled
 *   request, and has aborted it by then; a cancel for 0 or "", which the SDK
 *   ignores, leaves the id in flight until the answer).
 *   Ids match as written: a cancel's number `requestId` written otherwise than
 *   as its integer (1.0, -0) cancels nothing (./inbound.ts). A cancel for a call
 *   the SDK does not stop (0, "") is told to `oncancel`, at once and a turn later
 *   (once the call started), so the server stops it.
 * - Never waits unboundedly on a client that stopped reading: while stdout is
 *   full, each `stallMs` in which stdout took nothing (no write completed) is
 *   checked, and the first without progress is told to `onstall`, once (the
 *   server then shuts down: serve-lifecycle.ts). Past the hold bound stdin is
 *   paused, so its end can no longer be seen: a client that flooded, closed stdin
 *   and never reads would otherwise keep the server (and any call waiting for
 *   room) for ever; one that keeps stdin open and never reads receives nothing,
 *   so no work of its is worth waiting for either. A stdout that closes or
 *   fails (EPIPE: the client closed its end) is told to `onoutputend` at once,
 *   for the same reason.
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CancelledNotificationSchema, ErrorCode, isJSONRPCRequest, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { errorReply, readInbound, type ErrorReply } from "./inbound.js";
import { BoundedLineReader } from "./line-reader.js";
import { pipeDescriptorOf, readWithoutBlocking } from "./pending-input.js";

export interface BoundedStdioOptions {
  /** Longest line read, in bytes, not counting the newline (settings.yaml `max_message_bytes`). */
  readonly maxMessageBytes: number;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Diagnostics about refused input (never the input itself); stderr in the server. */
  readonly log?: (message: string) => void;
  /** How many bytes of input may be held while stdout is full before stdin is paused; `heldInputLimit(maxMessageBytes)` by default. */
  readonly heldInputBytes?: number;
  /**
   * The descriptor `stdin` reads, read without blocking when stdout drains (./pending-input.ts); by default
   * process.stdin's own when it is a pipe or socket, none for a stream given in `stdin`.
   */
  readonly stdinFd?: number;
  /**
   * How long stdout may stay full without taking anything before `onstall` is told (STDOUT_STALL_MS in the
   * server, serve-lifecycle.ts); none by default (never).
   */
  readonly stallMs?: number;
}

/**
 * One line read while stdout was full, kept until it drains: a request to hand on, or the transport's own reply.
 * A request is kept as the bytes of its line and read again when handed on: parsed, a line of 1 MiB of `[{},{},…]`
 * took about 25 MB, so the bound on held bytes would not have bounded memory.
 */
type Held =
  | { readonly kind: "request"; readonly id: RequestId; readonly line: Buffer; readonly bytes: number }
  | { readonly kind: "reply"; readonly reply: ErrorReply; readonly bytes: number };

/**
 * At most this many lines are held while stdout is full, whatever their size: a parsed message costs
 * some hundreds of bytes beyond its text (8 MiB of pings held as 150,000 messages took 50 MB).
 */
export const MAX_HELD_LINES = 1024;

/**
 * When stdout drains, what the client already sent is read before anything held is handed on, past the hold's
 * bounds up to this many bytes (or twice MAX_HELD_LINES lines): a client that sent more without reading stdout
 * cannot make that read take all it sends.
 */
const PENDING_READ_BYTES = 1024 * 1024;

/** How many held lines are handed on per turn of the event loop once stdout drained. */
export const RELEASE_BATCH = 16;

/**
 * The id a message the protocol layer sends answers: a response's (a result or an error, no method), else
 * undefined. By shape alone: the protocol layer built it, and the SDK's response guards would run zod over
 * the whole result (every content block, the structured content) of every reply only to say so.
 */
export function respondedId(message: JSONRPCMessage): RequestId | undefined {
  if ("method" in message || !("id" in message) || !("result" in message || "error" in message)) return undefined;
  const { id } = message;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/** The default bound on input held while stdout is full: 8 MiB, or two messages of the largest size allowed. */
export function heldInputLimit(maxMessageBytes: number): number {
  return Math.max(8 * 1024 * 1024, 2 * maxMessageBytes);
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Told the request id of a `notifications/cancelled` for a request handed on with the id 0 or "", which the SDK does
   * not abort: at once, and again a turn later if it is still in flight (cancelRequest; serve-lifecycle.ts wires it to server.ts's CreatedServer.cancel).
   */
  oncancel?: (id: RequestId) => void;
  /**
   * Told once, why stdin ended (`end`, or `close` without it), only after every line the client sent before that
   * was read: the stream reports its end as soon as it gave its last chunk, while the rest of that chunk may still
   * wait unread in the line reader (a bound, or RELEASE_BATCH); shut down then, the server dropped those requests.
   */
  oninputend?: (why: string) => void;
  /** Told once, why the transport gave up on its client: stdout was full and took nothing for `stallMs`. */
  onstall?: (why: string) => void;
  /**
   * Told once, why stdout is gone (closed, or broken: EPIPE once the client closed its end of the pipe): no reply can
   * reach the client any more, so nothing it started is worth running on, whether its stdin is still open or not.
   */
  onoutputend?: (why: string) => void;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly log: (message: string) => void;
  private readonly reader: BoundedLineReader;
  private drained: Promise<void> | undefined;
  private started = false;
  private closed = false;
  /**
   * The ids of the client's requests still waiting for their response (1 and "1" are distinct ids, as for the SDK), each
   * with a token of its own, so what a cancel does a turn later (cancelRequest) is for its request, not a later one with that id.
   */
  private readonly pendingIds = new Map<RequestId, object>();
  /** What was read while stdout was full and is handed on (or written) once it drains, in order. */
  private held: Held[] = [];
  private heldBytes = 0;
  /** The next turn's release, while one is scheduled. */
  private releasing: NodeJS.Immediate | undefined;
  private readonly heldInputBytes: number;
  private readonly stdinFd: number | undefined;
  /** Set while stdin is paused because too much is held; cleared when it is read again. */
  private pausedForHold = false;
  /** Why requests are refused, once the server began to shut down (`refuseRequests`). */
  private refusing: string | undefined;
  /** Set once stdout was full during the shutdown: stdin is read no more. */
  private stoppedAtShutdown = false;
  /** Set while what the client sent is read at the drain (readPending), which may go past the hold's bounds up to its ceiling. */
  private readingPending = false;
  /**
   * Requests handed on straight from stdin since reading last waited for a turn (so at most RELEASE_BATCH in one turn):
   * reset only then, so a client sending a request or two a turn makes reading wait a turn every RELEASE_BATCH requests.
   */
  private handedOnThisTurn = 0;
  /** The next turn, while reading waits for it (stdin paused once RELEASE_BATCH requests were handed on in this one). */
  private nextTurn: NodeJS.Immediate | undefined;
  /** Why stdin ended, once it did; told to `oninputend` once nothing is left unread. */
  private inputEnd: string | undefined;
  private inputEndTold = false;
  /** Bytes handed to stdout so far; less stdout.writableLength, what it has taken (the stall watch's measure of progress). */
  private written = 0;
  /** The stall watch's next check, while stdout is full. */
  private stallTimer: NodeJS.Timeout | undefined;
  private stallTold = false;
  private outputEndTold = false;

  constructor(private readonly options: BoundedStdioOptions) {
    this.stdin = options.stdin ?? process.stdin;
    // eslint-disable-next-line no-restricted-properties -- the one writer of JSON-RPC to stdout
    this.stdout = options.stdout ?? process.stdout;
    this.log = options.log ?? (() => undefined);
    this.heldInputBytes = options.heldInputBytes ?? heldInputLimit(options.maxMessageBytes);
    this.stdinFd = options.stdinFd ?? (options.stdin === undefined ? pipeDescriptorOf(this.stdin) : undefined);
    this.reader = new BoundedLineReader(options.maxMessageBytes, {
      line: (bytes) => {
        this.handleLine(bytes);
      },
      oversized: (id, bytes) => {
        this.handleOversized(id, bytes);
      },
      accepting: () => this.accepting(),
    });
  }

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error("BoundedStdioTransport already started"));
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
    this.stdin.on("end", this.onInputEnd);
    this.stdin.on("close", this.onInputClose);
    this.stdout.on("error", this.onStreamError);
    this.stdout.on("error", this.onOutputEnd);
    this.stdout.on("close", this.onOutputEnd);
    return Promise.resolve();
  }

  /** Writes one message as one line; resolves once stdout can take more. */
  async send(message: JSONRPCMessage): Promise<void> {
    // The protocol layer's response to a request ends that request: its id may be used again.
    const answered = respondedId(message);
    if (answered !== undefined) this.pendingIds.delete(answered);
    await this.write(message);
  }

  private async write(message: JSONRPCMessage | ErrorReply): Promise<void> {
    if (this.closed || this.stdout.destroyed) throw new Error("the stdio transport is closed");
    if (!this.writeLine(message)) await this.waitForDrain();
  }

  /**
   * Undefined while stdout can take more; else a promise that resolves once it
   * can (the same promise for one whole wait). Work whose result would be
   * written to stdout waits for it, so a client that does not read cannot make
   * the server build result after result in memory.
   */
  whenWritable(): Promise<void> | undefined {
    return this.drained;
  }

  /**
   * The server is shutting down and runs nothing more: answers every request still held (read while stdout
   * was full, never handed on) with -32603 `why`, and writes the transport's own replies still held, past
   * the hold. A request read from now on is answered the same way at once, never handed on nor held (close()
   * would drop it unanswered); once stdout is full, stdin is no longer read, so a client that floods without
   * reading cannot grow what waits. What stdout cannot take waits in memory until the process exits
   * (untilFlushed bounds that wait).
   */
  refuseRequests(why: string): void {
    this.refusing ??= why;
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    if (this.releasing !== undefined) clearImmediate(this.releasing);
    this.releasing = undefined;
    for (const item of held) {
      // The transport's own replies held meanwhile are written as they are, in their place.
      if (item.kind === "reply") this.writePastHold(item.reply);
      else {
        this.pendingIds.delete(item.id);
        this.writePastHold(errorReply(ErrorCode.InternalError, why, item.id));
      }
    }
  }

  /** Writes during the shutdown, whether stdout is full or not; past its high-water mark, stdin is read no more. */
  private writePastHold(message: ErrorReply): void {
    if (this.closed || this.stdout.destroyed) return;
    if (!this.writeLine(message)) {
      this.pausedForHold = false;
      this.stoppedAtShutdown = true;
      this.stdin.pause();
    }
  }

  /**
   * One message as one line, counted in bytes (a Buffer: writableLength counts a string written to a socket in
   * UTF-16 units); false when stdout is full.
   */
  private writeLine(message: JSONRPCMessage | ErrorReply): boolean {
    const line = Buffer.from(`${JSON.stringify(message)}\n`, "utf8");
    this.written += line.length;
    return this.stdout.write(line);
  }

  /**
   * Resolves true once stdout has taken everything written to it (or was closed), false after `ms`
   * when it still has not: a client that stopped reading cannot keep the process alive.
   */
  untilFlushed(ms: number): Promise<boolean> {
    const { stdout } = this;
    if (stdout.writableLength === 0 || stdout.destroyed) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const finish = (flushed: boolean): void => {
        clearTimeout(timer);
        stdout.off("drain", onDrain);
        stdout.off("close", onClose);
        stdout.off("error", onClose);
        resolve(flushed);
      };
      const onDrain = (): void => {
        if (stdout.writableLength === 0) finish(true);
      };
      const onClose = (): void => {
        finish(true);
      };
      const timer = setTimeout(() => {
        finish(false);
      }, ms);
      stdout.on("drain", onDrain);
      stdout.on("close", onClose);
      stdout.on("error", onClose);
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    this.stdin.off("end", this.onInputEnd);
    this.stdin.off("close", this.onInputClose);
    this.stdout.off("error", this.onOutputEnd);
    this.stdout.off("close", this.onOutputEnd);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.reader.reset();
    this.held = [];
    this.heldBytes = 0;
    if (this.releasing !== undefined) clearImmediate(this.releasing);
    if (this.nextTurn !== undefined) clearImmediate(this.nextTurn);
    clearTimeout(this.stallTimer);
    this.onclose?.();
    return Promise.resolve();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.reader.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  };

  /**
   * Whether the reader may hand on the next line: the bounds are kept line by line, not chunk by chunk (a chunk of
   * 64 KiB holds some thousand short lines). Past them, the rest of the chunk waits in the reader, unread, with stdin
   * paused, until the hold is back within its bounds (readAgain) or stdout drains (readPending, up to its ceiling).
   */
  private accepting(): boolean {
    if (this.closed || this.stoppedAtShutdown) return false;
    if (this.readingPending) return this.mayReadPending();
    return !this.pausedForHold && this.handedOnThisTurn < RELEASE_BATCH;
  }

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onInputEnd = (): void => {
    this.inputEnded("stdin ended");
  };

  private readonly onInputClose = (): void => {
    this.inputEnded("stdin closed");
  };

  /** Stdout failed or closed (process.stdout emits 'close' after an EPIPE): told once, unless the transport closed first. */
  private readonly onOutputEnd = (error?: Error): void => {
    if (this.closed || this.outputEndTold) return;
    this.outputEndTold = true;
    this.onoutputend?.(error === undefined ? "stdout closed" : `stdout failed: ${error.message}`);
  };

  private inputEnded(why: string): void {
    this.inputEnd ??= why;
    this.tellInputEnd();
  }

  /** Tells `oninputend` once stdin ended and the line reader has nothing left unread (the lines before the end came first). */
  private tellInputEnd(): void {
    if (this.inputEnd === undefined || this.inputEndTold || this.closed || this.reader.hasUnread()) return;
    this.inputEndTold = true;
    this.oninputend?.(this.inputEnd);
  }

  /** Reads on from the rest of a chunk the reader left unread, while the sink accepts; its end may be stdin's. */
  private resumeReader(): void {
    this.reader.resume();
    this.tellInputEnd();
  }

  private handleLine(bytes: Buffer): void {
    const inbound = readInbound(bytes);
    if (inbound === undefined) return;
    if (inbound.kind === "reject") {
      this.log(`refused a ${bytes.length}-byte message: ${inbound.reason}`);
      for (const reply of inbound.replies) this.reply(reply);
      return;
    }
    const { message } = inbound;
    if (isJSONRPCRequest(message)) {
      if (this.refusing !== undefined) {
        this.writePastHold(errorReply(ErrorCode.InternalError, this.refusing, message.id));
        return;
      }
      if (this.pendingIds.has(message.id)) {
        this.log(`refused a ${bytes.length}-byte message: its id is used by a request in flight`);
        this.reply(errorReply(ErrorCode.InvalidRequest, "Invalid Request: the id is already used by a request in flight", message.id));
        return;
      }
      this.pendingIds.set(message.id, {});
      // A request is answered: while stdout is full it waits here, not in the protocol layer (or as a queued reply),
      // and so does one read while earlier ones are still held (they keep their order).
      if (this.mustHold()) {
        // A copy: the line may be a slice of a larger chunk of stdin, which it would keep alive.
        this.hold({ kind: "request", id: message.id, line: Buffer.from(bytes), bytes: bytes.length });
        return;
      }
    } else {
      const cancelled = CancelledNotificationSchema.safeParse(message);
      const id = cancelled.success ? cancelled.data.params.requestId : undefined;
      if (id !== undefined) this.cancelRequest(id);
    }
    this.deliver(message);
    if (isJSONRPCRequest(message)) this.countHandedOn();
  }

  /**
   * The protocol layer answers a request on a later microtask, so stdout's state does not change while one chunk is
   * read: handed on whole, a 64 KiB read of `tools/list` requests (some thousand) queued as many answers before the
   * first write could report stdout full. So, as when held lines are released, at most RELEASE_BATCH requests are
   * handed on per turn; then stdin pauses, the rest of the chunk waits unread, and the next turn reads on (held, by
   * then, if their answers filled stdout).
   */
  private countHandedOn(): void {
    this.handedOnThisTurn += 1;
    if (this.handedOnThisTurn < RELEASE_BATCH) return;
    this.stdin.pause();
    this.nextTurn ??= setImmediate(() => {
      this.readNextTurn();
    });
  }

  /** A new turn: reads on (the rest of the chunk, then stdin) unless a bound, the shutdown or close() stopped reading meanwhile. */
  private readNextTurn(): void {
    this.nextTurn = undefined;
    this.handedOnThisTurn = 0;
    // readAgain reads on once the hold is back within its bounds; after the shutdown began or close(), nothing is read.
    if (this.closed || this.stoppedAtShutdown || this.pausedForHold) return;
    this.resumeReader();
    if (this.reading()) this.stdin.resume();
  }

  /**
   * A cancel ends its request. One still held is dropped (it never ran, and a canceled request gets no response): its
   * id is free at once. One handed on is the protocol layer's to stop, by id, on a later microtask (the SDK runs its
   * cancel handler on one): its id stays in flight until the next turn, else a request reusing it in the same chunk was
   * handed on first, took the SDK's abort for that id, and the canceled call ran on, its answer taken for the new one's.
   * Then the id is free, unless that request was answered meanwhile (and the id maybe taken by a later one). The SDK
   * aborts no call whose id is 0 or "" (`_oncancel`: `if (!requestId) return`): the server is told (`oncancel`), at
   * once and again on the next turn, when the call's handler has started (a cancel read with its request found no
   * call to stop), and the call is answered with its canceled result, which frees the id.
   */
  private cancelRequest(id: RequestId): void {
    const request = this.pendingIds.get(id);
    if (request === undefined) return;
    const index = this.held.findIndex((held) => held.kind === "request" && held.id === id);
    if (index !== -1) {
      this.pendingIds.delete(id);
      const [dropped] = this.held.splice(index, 1);
      this.heldBytes -= dropped?.bytes ?? 0;
      return;
    }
    const ignoredBySdk = id === 0 || id === "";
    // At once for a call already started (one waiting for stdout never enters the pipeline), again a turn later for one
    // whose handler had not started yet.
    if (ignoredBySdk) this.oncancel?.(id);
    setImmediate(() => {
      if (this.closed || this.pendingIds.get(id) !== request) return;
      if (ignoredBySdk) this.oncancel?.(id);
      else this.pendingIds.delete(id);
    });
  }

  private deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      // The protocol layer must not take the reader down with it.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private handleOversized(id: RequestId | undefined, bytes: number): void {
    const limit = this.options.maxMessageBytes;
    this.log(`refused a ${bytes}-byte message: over the ${limit}-byte limit (max_message_bytes)`);
    this.reply(errorReply(ErrorCode.InvalidRequest, `Invalid Request: the message exceeds the ${limit}-byte limit`, id));
  }

  /** The transport's own error reply: never the response that ends a request in flight with the same id. */
  private reply(reply: ErrorReply, bytes = 0): void {
    if (this.closed) return;
    if (this.refusing !== undefined) {
      this.writePastHold(reply);
      return;
    }
    if (this.mustHold()) {
      this.hold({ kind: "reply", reply, bytes: Math.max(bytes, JSON.stringify(reply).length) });
      return;
    }
    this.writeReply(reply);
  }

  /** While stdout is full, or lines read earlier still wait, what would be answered is held. */
  private mustHold(): boolean {
    return this.drained !== undefined || this.held.length > 0;
  }

  private writeReply(reply: ErrorReply): void {
    this.write(reply).catch((error: unknown) => {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    });
  }

  /** Holds what would be answered until stdout drains (or closes), so replies cannot pile up in memory. */
  private waitForDrain(): Promise<void> {
    this.drained ??= new Promise<void>((resolve) => {
      const done = (): void => {
        this.stdout.off("drain", done);
        this.stdout.off("close", done);
        this.drained = undefined;
        clearTimeout(this.stallTimer);
        this.stallTimer = undefined;
        // What the client sent before it read stdout is read before anything held is handed on, whatever the hold's
        // bounds: a cancel in it drops its held request. Read here, in this call, not left to the event loop; and
        // before the calls waiting for room (whenWritable) go on, so the cancels are handed on first.
        this.readPending();
        resolve();
        this.readAgain();
        this.release();
      };
      this.stdout.on("drain", done);
      this.stdout.on("close", done);
      this.watchStall();
    });
    return this.drained;
  }

  /**
   * While stdout is full: every `stallMs`, whether it took anything since the last check (a write completed); the
   * first check without progress tells `onstall`. Node reports no part of a write: writableLength falls only once the
   * whole write is taken, one reply, or the replies queued behind one, which the socket writes together (writev). So a
   * reply read part way counts once it is read whole: the client must read up to one 8 MiB result (message-limit.ts),
   * or a batch of them, in one period (about 70 KB/s for one result in the default 2 min); a pipe's worth is not enough.
   */
  private watchStall(): void {
    const ms = this.options.stallMs;
    if (ms === undefined || ms <= 0 || this.stallTold) return;
    let taken = this.taken();
    const check = (): void => {
      this.stallTimer = undefined;
      if (this.drained === undefined || this.closed) return;
      const now = this.taken();
      if (now > taken) {
        taken = now;
        this.stallTimer = setTimeout(check, ms);
        return;
      }
      this.stallTold = true;
      this.onstall?.(`stdout took nothing for ${ms} ms while replies waited (the client stopped reading or went away)`);
    };
    this.stallTimer = setTimeout(check, ms);
  }

  /** How many bytes stdout has taken (passed on to the OS) so far. */
  private taken(): number {
    return this.written - this.stdout.writableLength;
  }

  /** Keeps one line read while stdout is full; past `heldInputBytes` or MAX_HELD_LINES, stdin is paused until it drains. */
  private hold(held: Held): void {
    this.held.push(held);
    this.heldBytes += held.bytes;
    if (this.overBound() && !this.pausedForHold) {
      this.log(`stdout is full and ${this.held.length} lines (${this.heldBytes} bytes) wait to be answered: stdin is not read until the client reads stdout`);
      this.pausedForHold = true;
      this.stdin.pause();
    }
  }

  private overBound(): boolean {
    return this.heldBytes > this.heldInputBytes || this.held.length > MAX_HELD_LINES;
  }

  /**
   * Stdout drained while lines are held: reads what the client sent up to now, before any held line is handed on.
   * First what the stream buffered (paused by the hold bound, stdin is still read into it up to its highWaterMark;
   * resume() would deliver it only on a later turn, after the first held lines were handed on), then what the OS
   * holds for a pipe or socket, as far as it can be read without blocking. Past the bounds (requests read now are
   * held behind the others), but not past PENDING_READ_BYTES more or twice MAX_HELD_LINES: at each batch of a
   * release too, so what is held never grows past that ceiling however the client floods.
   */
  private readPending(): void {
    if (this.held.length === 0 || this.refusing !== undefined) return;
    this.readingPending = true;
    try {
      this.readPendingInput();
    } finally {
      this.readingPending = false;
    }
  }

  private readPendingInput(): void {
    const { stdin, reader } = this;
    // First the rest of a chunk the bounds left unread, then the stream's buffer, then the descriptor; a chunk is read
    // only once all before it was, and the reader stops at the ceiling line by line (accepting).
    this.resumeReader();
    const more = (): boolean => this.mayReadPending() && !reader.hasUnread();
    // A read in paused mode emits its chunk as 'data' (to onData), at once.
    while (more() && stdin.readableLength > 0 && stdin.read() !== null);
    // Bytes from the descriptor come after all the stream holds; an ended or destroyed stream's descriptor may be another file's.
    const fd = this.stdinFd;
    while (fd !== undefined && more() && stdin.readableLength === 0 && !stdin.readableEnded && !stdin.destroyed) {
      const chunk = readWithoutBlocking(fd);
      if (chunk === undefined) return;
      this.onData(chunk);
    }
  }

  private mayReadPending(): boolean {
    return !this.closed && this.heldBytes <= this.heldInputBytes + PENDING_READ_BYTES && this.held.length <= 2 * MAX_HELD_LINES;
  }

  /**
   * Reads stdin again once what is held is back within its bounds (stdout drained, or held lines were
   * handed on). What stdin buffered while paused is read at once, before the next held line is handed on,
   * so a notification in it (a cancel) is seen first; requests in it queue behind the held ones, and the
   * bound pauses stdin again.
   */
  private readAgain(): void {
    if (!this.pausedForHold || this.closed || this.refusing !== undefined || this.overBound()) return;
    this.pausedForHold = false;
    // The rest of the chunk the bound stopped comes first; a read in paused mode emits its chunk as 'data' (to onData).
    this.resumeReader();
    while (this.reading() && this.stdin.read() !== null);
    if (this.reading()) this.stdin.resume();
  }

  /** Neither paused by the hold bound (again) nor closed, and nothing left unread; a method, as handling a line may change all three. */
  private reading(): boolean {
    return !this.pausedForHold && !this.closed && !this.reader.hasUnread();
  }

  /**
   * Stdout drained: hands on (or writes) what was held, in order, RELEASE_BATCH lines a turn (their
   * answers are written in between, so a full stdout stops the release again before the next batch);
   * stdin is read again as soon as what is held is within its bounds. Each later batch first reads what
   * the client sent meanwhile (readPending), so a cancel sent after the drain drops its request still held.
   */
  private release(): void {
    this.releasing = undefined;
    for (let count = 0; count < RELEASE_BATCH && this.drained === undefined && !this.closed; count += 1) {
      const next = this.held.shift();
      if (next === undefined) break;
      this.heldBytes -= next.bytes;
      if (next.kind === "request") this.handOn(next);
      else this.writeReply(next.reply);
      this.readAgain();
    }
    if (this.closed || this.drained !== undefined) return;
    if (this.held.length > 0)
      this.releasing ??= setImmediate(() => {
        this.readPending();
        this.release();
      });
  }

  /** A held request's line, read again (the same line reads the same), handed on. */
  private handOn(held: Extract<Held, { kind: "request" }>): void {
    const inbound = readInbound(held.line);
    if (inbound?.kind === "message") {
      this.deliver(inbound.message);
      return;
    }
    // Not reached (it was a request when read); fail closed: it does not run, and its id is free again.
    this.pendingIds.delete(held.id);
    this.writeReply(errorReply(ErrorCode.InternalError, "Internal error: the request could not be read again", held.id));
  }
}

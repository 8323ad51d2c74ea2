/**
 * Moving `audit.head` forward once per burst of appends instead of after
 * each one (the MCP server's writer; see AuditLogOptions.headDelayMs).
 *
 * A head move stages a new file, fsyncs it and renames it under the lock:
 * in a server that forks a program for every call, that was most of the
 * audit's CPU per call. A writer that defers it keeps only the newest head
 * its synced appends earned (each anchors fsynced bytes, and the newest is
 * the log as this writer last left it) and moves it once the delay has passed
 * since the first deferred one, through `place` (queued behind appends). At
 * exit, a head still waiting is put in place synchronously (`placeNow`). The
 * head therefore lags the log by at most the delay; a crash in that window
 * leaves a head that anchors a prefix of the log, which readers accept.
 */
import type { AuditHead } from "./head.js";

/**
 * The MCP server's delay: a burst of calls moves the head about once a
 * second, and `torii audit verify` during one may warn about lines after the
 * anchored end for that long (as it does for a call still running).
 */
export const SERVER_HEAD_DELAY_MS = 1_000;

export class DeferredHead {
  private pending: AuditHead | undefined;
  private timer: NodeJS.Timeout | undefined;
  private listening = false;
  private readonly atExit = (): void => {
    const head = this.take();
    if (head !== undefined) this.placeNow(head);
  };

  constructor(
    private readonly delayMs: number,
    private readonly place: () => void,
    private readonly placeNow: (head: AuditHead) => void,
  ) {}

  /** Keeps `head` (anchoring fsynced bytes) to be put in place within the delay. */
  defer(head: AuditHead): void {
    this.pending = head;
    if (!this.listening) {
      process.on("exit", this.atExit);
      this.listening = true;
    }
    if (this.timer !== undefined) return;
    // Unref'd: the exit hook places a waiting head, so no process stays up for it.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.place();
    }, this.delayMs).unref();
  }

  /** The head waiting to be placed, if any; it is no longer waiting. */
  take(): AuditHead | undefined {
    const head = this.pending;
    this.pending = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.listening) {
      process.removeListener("exit", this.atExit);
      this.listening = false;
    }
    return head;
  }
}

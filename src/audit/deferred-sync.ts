/**
 * What the MCP server's writer leaves for later (AuditLogOptions.headDelayMs):
 * records handed over after a call's process started, the fsync of bytes it
 * wrote without one, and the head move that anchors them.
 *
 * Each of these cost a lock cycle or an fsync per call: a call's records
 * after its program (`ran`) went out in an append of their own, fsynced, and
 * the head was staged, fsynced and renamed after it. Deferred, a call costs
 * one lock cycle (the append of the records that allow its program, which
 * goes out at once and carries the records still waiting), and once per
 * delay the writer writes what still waits, fsyncs the log and moves the head
 * (`flush`, queued behind appends). At exit what waits is written
 * synchronously, if the lock is free within a bounded wait (`flushNow`). So every record is
 * in the file and fsynced, and the head anchors it, at most about the delay
 * after it was handed over (docs/audit.md, "What a crash can lose").
 */
import type { AuditHead } from "./head.js";
import type { AuditFields } from "./record.js";

/**
 * The MCP server's delay: a burst of calls is fsynced and anchored about
 * once a second, and `torii audit verify` during one may warn about lines
 * after the anchored end for that long (as it does for a call still running).
 */
export const SERVER_HEAD_DELAY_MS = 1_000;

/** Records waiting to go out with the writer's next append, and what to tell their caller. */
export interface WaitingBatch {
  readonly fields: readonly AuditFields[];
  /** Called with the hash of the batch's last record once it is in the file, or with the failure. */
  readonly settle: (outcome: string | Error) => void;
}

/** A head the writer owes: it anchors the log as the writer last left it (the file `ino`). */
export interface OwedHead {
  readonly head: AuditHead;
  readonly ino: number;
  /** The bytes it anchors were fsynced already (a synced append); otherwise the flush fsyncs them first. */
  readonly synced: boolean;
}

export class DeferredSync {
  private records: WaitingBatch[] = [];
  private owed: OwedHead | undefined;
  private timer: NodeJS.Timeout | undefined;
  private listening = false;
  private readonly atExit = (): void => {
    if (this.records.length > 0 || this.owed !== undefined) this.flushNow();
  };

  constructor(
    private readonly delayMs: number,
    private readonly flush: () => void,
    private readonly flushNow: () => void,
  ) {}

  /** Keeps `batch` to go out with the next append, or with the flush within the delay. */
  hold(batch: WaitingBatch): void {
    this.records.push(batch);
    this.arm();
  }

  /** Remembers that the head `owed` (and, unless synced, an fsync) is due within the delay. */
  owe(owed: OwedHead): void {
    this.owed = owed;
    this.arm();
  }

  /** The records waiting, for an append to carry; they no longer wait. What is owed stays owed. */
  takeRecords(): WaitingBatch[] {
    const records = this.records;
    this.records = [];
    return records;
  }

  /** The head owed, if any; nothing is owed any more and the timer stops (records waiting keep theirs). */
  takeOwed(): OwedHead | undefined {
    const owed = this.owed;
    this.owed = undefined;
    if (this.records.length === 0) this.disarm();
    return owed;
  }

  private arm(): void {
    if (!this.listening) {
      process.on("exit", this.atExit);
      this.listening = true;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.delayMs);
    // Records waiting are an append someone may await: the process stays up for them (at most the
    // delay). An fsync or a head alone is left to the exit hook, so no process stays up for it.
    if (this.records.length > 0) this.timer.ref();
    else this.timer.unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.listening) {
      process.removeListener("exit", this.atExit);
      this.listening = false;
    }
  }
}

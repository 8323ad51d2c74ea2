/**
 * Successful identity checks, remembered for a while: a call whose scope,
 * lease binding and credential-source fingerprint all equal those of a recent
 * success skips the STS request. Any change of the three is a different key,
 * so an edited config file, a new login or another target never reuses a
 * success. In memory only: a restarted server checks again.
 *
 * How long a success holds is measured on a monotonic clock: the wall clock is
 * read once, when the success is remembered, only to turn the credentials' own
 * expiry into a remaining time. A wall clock stepped back afterwards (NTP
 * correcting a clock that ran ahead, a VM resumed from a snapshot, an operator
 * setting the date) would otherwise keep a success for its TTL plus the step,
 * skipping the STS check for as long as that.
 */
/** Milliseconds on a monotonic clock. */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export class IdentityCache {
  /** Monotonic deadline (ms) of each remembered success. */
  private readonly until = new Map<string, number>();

  /**
   * @param wallNow the wall clock (ms since the epoch), to compare with the credentials' expiry.
   * @param monotonicNow a monotonic clock (ms), that times every success.
   */
  constructor(
    private readonly wallNow: () => number = Date.now,
    private readonly monotonicNow: () => number = monotonicMs,
  ) {}

  /** The key of a success: scope, binding and fingerprint, joined unambiguously. */
  static keyOf(scope: string, binding: string, fingerprint: string): string {
    return JSON.stringify([scope, binding, fingerprint]);
  }

  /** True when `key` holds a success that has not expired. */
  has(key: string): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > this.monotonicNow()) return true;
    this.until.delete(key);
    return false;
  }

  /** Remembers a success for `ttlSeconds`, but never past `notAfter` (the credentials' own expiry). */
  remember(key: string, ttlSeconds: number, notAfter?: Date): void {
    const untilExpiry = notAfter === undefined ? Number.POSITIVE_INFINITY : notAfter.getTime() - this.wallNow();
    const remaining = Math.min(ttlSeconds * 1000, untilExpiry);
    if (!(ttlSeconds > 0) || !(remaining > 0)) {
      this.until.delete(key);
      return;
    }
    this.until.set(key, this.monotonicNow() + remaining);
  }

  /** Forgets `key` (after a failure, so the next call checks again). */
  forget(key: string): void {
    this.until.delete(key);
  }
}

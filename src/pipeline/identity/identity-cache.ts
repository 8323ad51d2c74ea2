/**
 * Successful identity checks, remembered for a while: a call whose scope,
 * lease binding and credential-source fingerprint all equal those of a recent
 * success skips the STS request. Any change of the three is a different key,
 * so an edited config file, a new login or another target never reuses a
 * success. In memory only: a restarted server checks again.
 */
export class IdentityCache {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The key of a success: scope, binding and fingerprint, joined unambiguously. */
  static keyOf(scope: string, binding: string, fingerprint: string): string {
    return JSON.stringify([scope, binding, fingerprint]);
  }

  /** True when `key` holds a success that has not expired. */
  has(key: string): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(key);
    return false;
  }

  /** Remembers a success for `ttlSeconds`, but never past `notAfter` (the credentials' own expiry). */
  remember(key: string, ttlSeconds: number, notAfter?: Date): void {
    const limit = Math.min(this.now() + ttlSeconds * 1000, notAfter?.getTime() ?? Number.POSITIVE_INFINITY);
    if (ttlSeconds <= 0 || limit <= this.now()) {
      this.until.delete(key);
      return;
    }
    this.until.set(key, limit);
  }

  /** Forgets `key` (after a failure, so the next call checks again). */
  forget(key: string): void {
    this.until.delete(key);
  }
}

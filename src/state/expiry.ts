/**
 * Expiry of leases and grants: durations, the stored instant, and when an
 * entry counts as live. Pure: the caller passes `now` (each store's injected clock).
 */
import * as z from "zod";

export const MIN_DURATION_MINUTES = 1;
export const MAX_DURATION_MINUTES = 1440;

/**
 * The skew rule. No entry is ever written to expire more than
 * MAX_DURATION_MINUTES after it was written, so one that expires later than
 * that (plus this allowance) relative to the clock now was written before the
 * clock went back, or by hand: it is not live. A clock set back can therefore
 * lengthen an entry by at most this allowance beyond the maximum duration,
 * never indefinitely.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 60_000;

const MAX_AHEAD_MS = MAX_DURATION_MINUTES * 60_000 + CLOCK_SKEW_ALLOWANCE_MS;

/** `expires_at`: an ISO-8601 UTC instant (`Z`, no offset), as `Date.toISOString()` writes it. */
export const expiresAtSchema = z.iso
  .datetime({ error: "must be an ISO-8601 UTC time such as 2026-01-01T12:00:00.000Z" })
  .refine((value) => Number.isFinite(Date.parse(value)), { error: "must be a real date and time" });

/** @throws RangeError unless `minutes` is a whole number from 1 to 1440. */
export function checkDuration(minutes: number): void {
  if (!Number.isInteger(minutes) || minutes < MIN_DURATION_MINUTES || minutes > MAX_DURATION_MINUTES) {
    throw new RangeError(`the duration must be a whole number of minutes from ${MIN_DURATION_MINUTES} to ${MAX_DURATION_MINUTES}, got ${String(minutes)}`);
  }
}

/** The `expires_at` of an entry written at `now` for `minutes`. */
export function expiryAfter(now: Date, minutes: number): string {
  return new Date(now.getTime() + minutes * 60_000).toISOString();
}

/** Live: not yet expired at `now`, and not further ahead than any write could have set it (the skew rule). */
export function isLive(expiresAt: string, now: Date): boolean {
  const expires = Date.parse(expiresAt);
  const current = now.getTime();
  return Number.isFinite(expires) && current < expires && expires - current <= MAX_AHEAD_MS;
}

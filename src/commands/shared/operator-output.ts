/**
 * What the lease and grant commands share: reading a number of minutes, saying
 * when something expires, and printing a report either for a human or as one
 * JSON object for scripts.
 */
import { terminalSafeJson } from "../../runtime/display-text.js";
import { OperatorError } from "./operator-context.js";

/** The longest lease or grant, in minutes (one day), as in Torii. */
export const MAX_MINUTES = 1440;

/** Options every state command accepts. */
export interface JsonOption {
  readonly json?: boolean;
}

/**
 * Prints `value` as JSON with `--json`, otherwise the human-readable lines.
 * The JSON escapes what a terminal would act on (C1 controls, bidi marks), as
 * values may carry an agent's text.
 */
export function emit(options: JsonOption, value: object, lines: readonly string[]): void {
  process.stdout.write(options.json === true ? `${terminalSafeJson(JSON.stringify(value, null, 2))}\n` : `${lines.join("\n")}\n`);
}

/** Reads a whole decimal number from `min` to `max` typed for `flag`. */
export function parseWholeNumber(raw: string, flag: string, min: number, max: number): number {
  const value = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new OperatorError(`${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** `--for MIN` (1..1440), or the default from settings.yaml when it is absent. */
export function parseMinutes(raw: string | undefined, defaultMinutes: number): number {
  return raw === undefined ? defaultMinutes : parseWholeNumber(raw, "--for", 1, MAX_MINUTES);
}

/** Whole minutes left until `expiresAt` (rounded up; 0 once it has passed). */
export function remainingMinutes(expiresAt: string, now: Date): number {
  const left = Date.parse(expiresAt) - now.getTime();
  return Number.isFinite(left) && left > 0 ? Math.ceil(left / 60_000) : 0;
}

/** `until 2025-01-01T10:15:00.000Z (15 min left)`. */
export function expiryText(expiresAt: string, now: Date): string {
  return `until ${expiresAt} (${remainingMinutes(expiresAt, now)} min left)`;
}

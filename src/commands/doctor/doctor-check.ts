/**
 * One finding of `torii doctor`. `fail` is a problem that stops a call (the
 * server does not start, a provider's calls are all denied, a target cannot
 * run); `warn` is worth fixing but stops nothing; `ok` is a passed check.
 */

export type CheckStatus = "ok" | "warn" | "fail";

export interface DoctorCheck {
  /** What was checked: `config`, `provider kubectl`, `target kubectl/dev`, `audit`, … */
  readonly subject: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** What to do about a warn or fail: a command or an edit. */
  readonly fix?: string;
}

/** Builds a finding (the fix only when there is one). */
export function check(subject: string, status: CheckStatus, message: string, fix?: string): DoctorCheck {
  return fix === undefined ? { subject, status, message } : { subject, status, message, fix };
}

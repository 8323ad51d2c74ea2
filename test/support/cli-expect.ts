/**
 * Assertions shared by the operator-CLI end-to-end tests: every run is free of
 * stack traces and of the secrets the test planted; usage errors exit 3 with a
 * `torii:` message; `--json` prints one object.
 */
import { expect } from "vitest";
import { runCli, type CliResult } from "./run-cli.js";

/** Matchers typed as the values they stand for. */
export const ANY_STRING = expect.any(String) as string;
export const ANY_NUMBER = expect.any(Number) as number;

/** Runs the CLI and checks that it printed no stack trace and none of `secrets`. */
export async function runChecked(args: readonly string[], env: Record<string, string>, secrets: readonly string[] = []): Promise<CliResult> {
  const result = await runCli(args, env);
  expect(result.stderr).not.toMatch(/\n\s+at /u);
  for (const secret of secrets) expect(result.stdout + result.stderr).not.toContain(secret);
  return result;
}

/** The JSON object a successful `--json` run printed. */
export function jsonOutput(result: CliResult): Record<string, unknown> {
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** Exit 3, nothing on stdout, one `torii: …` message on stderr. */
export function expectUsageError(result: CliResult, message: RegExp | string): void {
  expect(result.status).toBe(3);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^torii: /u);
  if (typeof message === "string") expect(result.stderr).toContain(message);
  else expect(result.stderr).toMatch(message);
}

/**
 * The whole minutes from the command's run to the ISO-8601 time `iso`, when `iso` lies that many minutes after some
 * moment between `before` and `after` (the clock read around the command); NaN otherwise. No margin to outrun.
 */
export function expiresBetween(iso: unknown, before: number, after: number): number {
  const at = Date.parse(String(iso));
  const minutes = Math.round((at - before) / 60_000);
  return at >= before + minutes * 60_000 && at <= after + minutes * 60_000 ? minutes : Number.NaN;
}

/**
 * zod schemas for field kinds that several configuration files share.
 */
import path from "node:path";
import * as z from "zod";

/**
 * `version: "1"`. The number `1` is accepted too: Torii's reader took an
 * unquoted `version: 1`, and a Torii tree must load unchanged.
 */
export const versionSchema = z.union([z.literal("1"), z.literal(1)], {
  error: 'must be "1"',
});

/** A name made of `[A-Za-z0-9_.-]`, used for tools, targets and scopes (which become directory names). */
export function safeNameSchema(maxLength: number): z.ZodString {
  return z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, { error: 'must be non-empty and contain only ASCII letters, digits, "_", "." and "-"' })
    .max(maxLength, { error: `must be at most ${maxLength} characters` })
    .refine((name) => name !== "." && name !== "..", { error: 'must not be "." or ".."' });
}

/** An environment variable name. */
export const envVarNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)" });

/**
 * A `removed_env` entry: a variable name, or `NAME_*` for every variable whose
 * name starts with `NAME_` (src/runtime/child-env.ts applies it).
 */
export const removedEnvEntrySchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(?:_\*)?$/, {
  error: "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*) or a prefix NAME_*",
});

/** An integer within `[min, max]`. */
export function intInRange(min: number, max: number): z.ZodNumber {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** An integer of at least `min`. */
export function intAtLeast(min: number): z.ZodNumber {
  const error = `must be a whole number of at least ${min}`;
  return z.number({ error }).int({ error }).min(min, { error });
}

/**
 * A non-empty single-line string with no control characters. `typeError`
 * replaces zod's message when the value is not a string at all.
 */
export function singleLineSchema(typeError?: string): z.ZodString {
  return z
    .string(typeError === undefined ? undefined : { error: typeError })
    .min(1, { error: "must not be empty" })
    .regex(SINGLE_LINE, { error: "must be a single line without control characters" });
}

/** A text without control characters (singleLineSchema's pattern, for plain row checks). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
export const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;

/**
 * A program to run: a bare name looked up on PATH, or an absolute path.
 * A relative path with a separator would resolve against whatever directory
 * the server was started in, so it is refused.
 */
export const commandSchema = singleLineSchema().refine((command) => isFullyQualifiedPath(command) || isBareProgramName(command), {
  error: "must be a bare program name or an absolute path",
});

/** `aws`, `kubectl.exe`: no separator, no drive (`C:aws` is drive-relative), not `.` or `..`. */
function isBareProgramName(command: string): boolean {
  return !/[\\/]/.test(command) && !/^[A-Za-z]:/.test(command) && command !== "." && command !== "..";
}

/**
 * True for `/usr/bin/aws`, `C:\Tools\aws.exe`, `C:/Tools/aws.exe` and
 * `\\server\share\aws.exe`, whatever the host platform, so a configuration
 * validates the same everywhere. `\aws` and `C:aws` are drive-relative, not absolute.
 */
export function isFullyQualifiedPath(candidate: string): boolean {
  return path.posix.isAbsolute(candidate) || /^[A-Za-z]:[\\/]/.test(candidate) || /^\\\\[^\\/]/.test(candidate);
}

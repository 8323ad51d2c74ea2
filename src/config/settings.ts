/**
 * `<root>/settings.yaml`: server-wide limits and defaults. The file is
 * optional; every field has a default.
 */
import path from "node:path";
import * as z from "zod";
import { intInRange, singleLineSchema, versionSchema } from "./common-fields.js";
import { settingsPath } from "./paths.js";
import { readTrustedConfigText } from "./read-file.js";
import { configTrust, type ConfigTrust } from "./trusted-path.js";
import { parseYamlDocument } from "./yaml-document.js";

/** Server-wide settings, after defaults. */
export interface Settings {
  /** Cap on a call's combined stdout + stderr, in bytes. */
  readonly maxOutputBytes: number;
  /** Default length of a grant given from the approval page, in minutes. */
  readonly defaultGrantMinutes: number;
  /** Default length of a target lease (`torii target activate`), in minutes. */
  readonly defaultTargetMinutes: number;
  /** Wall-clock limit for one provider call, in seconds (a provider's `runtime.timeout_seconds` overrides it). */
  readonly timeoutSeconds: number;
  /** How many provider calls may run at once across the server. */
  readonly maxConcurrentCalls: number;
  /** Longest JSON-RPC line the stdio server reads, in bytes; a longer one is answered with an error and skipped. */
  readonly maxMessageBytes: number;
  /** Whether a call no rule or grant decides is put to the operator (`page`) or denied at once (`off`). */
  readonly approvalMode: "page" | "off";
  /** How long a pending approval waits for the operator, in seconds; then the call is denied (`approval-timeout`). */
  readonly approvalTimeoutSeconds: number;
  /**
   * How long after the approval page's one-time link is opened its allowing
   * answers wait, in seconds, so that a second browser holding the same link
   * (one that read it from the opener's arguments) is noticed first.
   */
  readonly approvalSettleSeconds: number;
  /**
   * Where the approval page listens: a random address of 127.0.0.0/8 (the
   * default, approval/page-address.ts says why) or always 127.0.0.1, for a
   * setup that reaches the page only there (a port forward, a firewall rule).
   */
  readonly approvalAddress: "loopback-random" | "127.0.0.1";
  /**
   * `path.trusted_directories`: directories (and everything below them) where
   * the PATH search accepts group write, never other write (config/search-trust.ts).
   */
  readonly pathTrustedDirectories: readonly string[];
}

/** The settings in force when `settings.yaml` is absent or leaves a field out. */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  maxOutputBytes: 262_144,
  defaultGrantMinutes: 2,
  defaultTargetMinutes: 15,
  timeoutSeconds: 120,
  maxConcurrentCalls: 8,
  maxMessageBytes: 1_048_576,
  approvalMode: "page",
  approvalTimeoutSeconds: 120,
  approvalSettleSeconds: 5,
  approvalAddress: "loopback-random",
  pathTrustedDirectories: Object.freeze([]),
});

const GIB = 1024 * 1024 * 1024;
const MIB = 1024 * 1024;

/** How many directories `path.trusted_directories` may list: a short, reviewed list, not a second PATH. */
const MAX_TRUSTED_DIRECTORIES = 32;

/**
 * One `path.trusted_directories` entry: an absolute, normalised directory
 * path of this platform that is not a filesystem root (which would accept
 * group write everywhere). Anything else fails the file, never widens trust.
 */
const trustedDirectorySchema = singleLineSchema("must be a string")
  .refine((value) => path.isAbsolute(value) && (process.platform !== "win32" || /^(?:[A-Za-z]:[\\/]|[\\/]{2}[^\\/?.])/u.test(value)), {
    error: "must be an absolute path",
  })
  .refine((value) => !path.isAbsolute(value) || path.normalize(value) === value, {
    error: "must be written in normal form (no `.` or `..` components, no doubled separators)",
  })
  .refine((value) => !path.isAbsolute(value) || path.parse(value).root !== path.normalize(value), { error: "must not be a filesystem root" });

/** The schema of `settings.yaml` (snake_case, as written in the file). */
export const settingsFileSchema = z.strictObject({
  version: versionSchema.optional(),
  max_output_bytes: intInRange(1, GIB).default(DEFAULT_SETTINGS.maxOutputBytes),
  default_grant_minutes: intInRange(1, 1440).default(DEFAULT_SETTINGS.defaultGrantMinutes),
  default_target_minutes: intInRange(1, 1440).default(DEFAULT_SETTINGS.defaultTargetMinutes),
  timeout_seconds: intInRange(1, 86_400).default(DEFAULT_SETTINGS.timeoutSeconds),
  max_concurrent_calls: intInRange(1, 256).default(DEFAULT_SETTINGS.maxConcurrentCalls),
  max_message_bytes: intInRange(1024, 64 * MIB).default(DEFAULT_SETTINGS.maxMessageBytes),
  approval: z
    .strictObject({
      mode: z.enum(["page", "off"]).default(DEFAULT_SETTINGS.approvalMode),
      timeout_seconds: intInRange(1, 86_400).default(DEFAULT_SETTINGS.approvalTimeoutSeconds),
      settle_seconds: intInRange(0, 60).default(DEFAULT_SETTINGS.approvalSettleSeconds),
      address: z.enum(["loopback-random", "127.0.0.1"]).default(DEFAULT_SETTINGS.approvalAddress),
    })
    .default({
      mode: DEFAULT_SETTINGS.approvalMode,
      timeout_seconds: DEFAULT_SETTINGS.approvalTimeoutSeconds,
      settle_seconds: DEFAULT_SETTINGS.approvalSettleSeconds,
      address: DEFAULT_SETTINGS.approvalAddress,
    }),
  path: z
    .strictObject({
      trusted_directories: z
        .array(trustedDirectorySchema, { error: "must be a list of absolute paths" })
        .max(MAX_TRUSTED_DIRECTORIES, { error: `must list at most ${MAX_TRUSTED_DIRECTORIES} directories` })
        .default([]),
    })
    .default({ trusted_directories: [] }),
});

/**
 * Reads `<root>/settings.yaml`. A missing file, or one with no fields (empty or
 * only comments), yields `DEFAULT_SETTINGS`; a file that exists but is invalid
 * is an error, never silently replaced by defaults, and so is one that others
 * could have written (trusted-path.ts).
 *
 * @throws ConfigError with the file, line and column of each problem.
 */
export function loadSettings(root: string, trust: ConfigTrust = configTrust(root)): Settings {
  const file = settingsPath(root);
  const text = readTrustedConfigText(trust, file);
  if (text === undefined) return { ...DEFAULT_SETTINGS };
  const { value } = parseYamlDocument(file, text, settingsFileSchema, { allowEmpty: true });
  return {
    maxOutputBytes: value.max_output_bytes,
    defaultGrantMinutes: value.default_grant_minutes,
    defaultTargetMinutes: value.default_target_minutes,
    timeoutSeconds: value.timeout_seconds,
    maxConcurrentCalls: value.max_concurrent_calls,
    maxMessageBytes: value.max_message_bytes,
    approvalMode: value.approval.mode,
    approvalTimeoutSeconds: value.approval.timeout_seconds,
    approvalSettleSeconds: value.approval.settle_seconds,
    approvalAddress: value.approval.address,
    pathTrustedDirectories: value.path.trusted_directories.map((directory) => path.normalize(directory)),
  };
}

/**
 * `torii init`: creates the configuration root (0700) and a commented
 * `settings.yaml` holding the defaults. It never overwrites anything: running it
 * again reports what already exists.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { DEFAULT_SETTINGS } from "../../config/settings.js";
import { settingsPath } from "../../config/paths.js";
import { configRoot } from "../shared/operator-context.js";
import { emit, type JsonOption } from "../shared/operator-output.js";

const SETTINGS_TEMPLATE = `# Torii server settings. Every field is optional; these are the defaults.
version: "1"
# Cap on a call's combined stdout + stderr, in bytes.
max_output_bytes: ${DEFAULT_SETTINGS.maxOutputBytes}
# Default length of a grant, in minutes (1..1440).
default_grant_minutes: ${DEFAULT_SETTINGS.defaultGrantMinutes}
# Default length of a target lease (torii target activate), in minutes (1..1440).
default_target_minutes: ${DEFAULT_SETTINGS.defaultTargetMinutes}
# Wall-clock limit of one provider call, in seconds.
timeout_seconds: ${DEFAULT_SETTINGS.timeoutSeconds}
# Provider calls that may run at once; the rest wait.
max_concurrent_calls: ${DEFAULT_SETTINGS.maxConcurrentCalls}
# Longest JSON-RPC message the server reads from its client, in bytes (1024..67108864).
max_message_bytes: ${DEFAULT_SETTINGS.maxMessageBytes}
# A call no rule or grant decides: ask the operator (page: the local approval page and
# torii approvals) or deny at once (off); unanswered after timeout_seconds, it is denied.
approval:
  mode: ${DEFAULT_SETTINGS.approvalMode}
  timeout_seconds: ${DEFAULT_SETTINGS.approvalTimeoutSeconds}
  # Seconds after the page's one-time link is opened before it takes an allowing
  # answer, so a second browser that read the same link is noticed first (0..60).
  settle_seconds: ${DEFAULT_SETTINGS.approvalSettleSeconds}
  # Where the page listens: loopback-random (a fresh 127.x.y.z, an origin no other
  # page has used) or 127.0.0.1 (where a port forward or firewall rule needs it).
  address: ${DEFAULT_SETTINGS.approvalAddress}
`;

/** Writes `file` only when it does not exist yet; returns whether it did. */
function createIfMissing(file: string, content: string): boolean {
  try {
    writeFileSync(file, content, { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Creates the root and settings.yaml when missing, silently; says what it did. */
export function ensureRoot(): { root: string; settings: string; created: boolean } {
  const root = configRoot();
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const settings = settingsPath(root);
  return { root, settings, created: createIfMissing(settings, SETTINGS_TEMPLATE) };
}

/** `torii init [--json]`. */
export function runInit(options: JsonOption = {}): number {
  const { root, settings, created } = ensureRoot();
  emit(options, { root, settings, created }, [`configuration root: ${root}`, created ? `created ${settings}` : `kept existing ${settings}`]);
  return 0;
}

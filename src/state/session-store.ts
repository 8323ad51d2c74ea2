/**
 * The stored session of an `environment`-strategy identity provider, one per
 * credential scope: `<providerDir>/identities/<scope>/session.yaml`, mode 0600.
 *
 * ```yaml
 * version: "1"
 * saved_at: 2026-01-01T12:00:00.000Z   # when torii auth login stored these values
 * fields:                              # the provider's auth.fields, by name (secrets)
 *   API_TOKEN: "…"
 * check:                               # the last run of the provider's validate command
 *   checked_at: 2026-01-01T12:05:00.000Z
 *   result: valid                      # or invalid
 * ```
 *
 * The check lives in the same file as the values it judged, so replacing the
 * values (one atomic rename) always drops or replaces their check. Reads are
 * lock-free and fail closed (a torn or unknown file is an error, never an empty
 * session); writes take the file's lock and replace it atomically. Torii (Rust)
 * kept `credentials.env` in the same directory; it is not read (log in once).
 */
import { unlinkSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { envVarNameSchema } from "../config/common-fields.js";
import { expiresAtSchema } from "./expiry.js";
import type { StateError } from "./errors.js";
import { StateFile, type StateFileOptions } from "./state-file.js";

export const SESSION_FILE = "session.yaml";

export type SessionCheckResult = "valid" | "invalid";

export interface SessionCheck {
  /** ISO-8601 UTC. */
  readonly checked_at: string;
  readonly result: SessionCheckResult;
}

export interface StoredSession {
  readonly version: "1";
  readonly saved_at: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly check?: SessionCheck | undefined;
}

export type SessionRead =
  { readonly kind: "missing" } | { readonly kind: "ok"; readonly session: StoredSession } | { readonly kind: "error"; readonly error: StateError };

const sessionFileSchema = z.strictObject({
  version: z.literal("1"),
  saved_at: expiresAtSchema,
  fields: z.record(envVarNameSchema, z.string()),
  check: z.strictObject({ checked_at: expiresAtSchema, result: z.enum(["valid", "invalid"]) }).optional(),
});

/** `<providerDir>/identities/<scope>`: the directory of one credential scope's session and lock. */
export function identityScopeDir(providerDir: string, scope: string): string {
  if (scope === "" || scope === "." || scope === ".." || /[\\/\0]/u.test(scope)) throw new RangeError(`${JSON.stringify(scope)} is not a valid scope name`);
  return path.join(providerDir, "identities", scope);
}

export class SessionStore {
  readonly file: string;
  private readonly state: StateFile<StoredSession>;

  constructor(scopeDir: string, options: StateFileOptions = {}) {
    this.file = path.join(scopeDir, SESSION_FILE);
    this.state = new StateFile<StoredSession>(
      this.file,
      {
        version: "1",
        schema: sessionFileSchema,
        findDuplicate: () => undefined,
        header: "# Torii stored credentials (secrets). Change them with `torii auth login|logout`, not by hand.\n",
      },
      options,
    );
  }

  /** The stored session, without the lock. Never throws. */
  read(): SessionRead {
    const read = this.state.read();
    if (read.kind === "ok") return { kind: "ok", session: read.state };
    return read.kind === "error" ? { kind: "error", error: read.error } : read;
  }

  /** Replaces the whole session (values and check) in one atomic write. */
  async replace(fields: Readonly<Record<string, string>>, savedAt: Date, check: SessionCheck | undefined): Promise<void> {
    const session: StoredSession = { version: "1", saved_at: savedAt.toISOString(), fields: { ...fields }, ...(check === undefined ? {} : { check }) };
    await this.state.locked(async (write) => {
      await write(session);
    });
  }

  /**
   * Records a check of the session saved at `savedAt`; does nothing when the
   * file no longer holds that session (a login replaced it meanwhile) or is unreadable.
   */
  async recordCheck(savedAt: string, check: SessionCheck): Promise<void> {
    await this.state.locked(async (write) => {
      const current = this.state.read();
      if (current.kind !== "ok" || current.state.saved_at !== savedAt) return;
      await write({ ...current.state, check });
    });
  }

  /** Deletes the session under the lock; false when there was none. A damaged file is deleted too. */
  async remove(): Promise<boolean> {
    return this.state.locked(() => {
      try {
        unlinkSync(this.file);
        return Promise.resolve(true);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return Promise.resolve(false);
        throw error;
      }
    });
  }
}

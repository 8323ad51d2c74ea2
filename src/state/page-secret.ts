/**
 * The one-time secrets that open an approval page. A secret travels only in
 * the URL handed to a browser (its argv, its address bar); the pending file
 * keeps its SHA-256 digest, so a process that reads the file learns nothing
 * that opens the page. The first request that presents a secret consumes its
 * digest (a compare-and-swap in state/approval-store.ts).
 */
import { createHash, randomBytes } from "node:crypto";

/** At most this many unconsumed secrets per approval (each `torii approvals list --links` mints one; a plain `list` none); the oldest is dropped first. */
export const MAX_PAGE_SECRETS = 8;

/** A fresh secret: 32 random bytes, base64url (43 characters). */
export function newPageSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** The digest the pending file stores for `secret` (lowercase hex SHA-256). */
export function pageSecretDigest(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** `digests` with `digest` appended, keeping the newest MAX_PAGE_SECRETS. */
export function withPageSecret(digests: readonly string[], digest: string): string[] {
  return [...digests, digest].slice(-MAX_PAGE_SECRETS);
}

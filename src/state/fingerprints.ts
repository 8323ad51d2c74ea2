/**
 * Digests that tie state to what it authorises. Pure: no file system, no clock.
 *
 * - A lease is bound to one target's configuration *and* its file's identity,
 *   so editing `target.yaml`, or removing and recreating the target, changes the
 *   binding and the old lease no longer matches.
 * - A grant is stored as a digest of the canonical argv, never as a command
 *   line: the digest is tagged and length-prefixed, so no two different token
 *   vectors (`["ab","c"]` and `["a","bc"]`, or an exact and a prefix grant)
 *   share one. Byte-compatible with Torii's `grants` version 2.
 */
import { createHash } from "node:crypto";

const BINDING_TAG = "torii-target-binding-v1\0";
const GRANT_TAG = "torii-grant-v2\0";

/** How a grant compares tokens: all of them and their count, or only the first `token_count`. */
export type GrantMode = "exact" | "prefix";

/** The stored form of a grant: which tokens it covers, as a digest. */
export interface GrantMatcher {
  readonly mode: GrantMode;
  readonly token_count: number;
  readonly sha256: string;
}

/** Where a target's configuration file is on disk: a new inode or birth time means a recreated target. */
export interface FileIdentity {
  readonly ino: number;
  readonly birthtimeMs: number;
}

/**
 * SHA-256 hex of `"torii-target-binding-v1\0"` followed by the canonical JSON
 * (keys sorted at every level) of `{provider, alias, config, identity: {ino, birthtimeMs}}`.
 *
 * @throws TypeError when `config` holds something JSON cannot represent
 *   faithfully (a function, a bigint, a non-finite number, a class instance).
 */
export function targetBinding(input: { provider: string; alias: string; config: unknown; fileIdentity: FileIdentity }): string {
  const canonical = canonicalJson({
    provider: input.provider,
    alias: input.alias,
    config: input.config,
    identity: { ino: input.fileIdentity.ino, birthtimeMs: input.fileIdentity.birthtimeMs },
  });
  return createHash("sha256").update(BINDING_TAG, "utf8").update(canonical, "utf8").digest("hex");
}

/**
 * SHA-256 hex over `"torii-grant-v2\0"`, the mode (`exact`/`prefix`), the token
 * count as a u64 big-endian, and each token as its UTF-8 byte length (u64 BE)
 * followed by its bytes.
 *
 * Tokens are compared as the UTF-8 bytes the child process receives, so two
 * strings that encode to the same bytes (a lone surrogate and U+FFFD) are the
 * same token, exactly as they are the same argument when the process runs.
 */
export function grantFingerprint(mode: GrantMode, tokens: readonly string[]): string {
  const hash = createHash("sha256");
  hash.update(GRANT_TAG, "utf8");
  hash.update(mode, "utf8");
  hash.update(u64(tokens.length));
  for (const token of tokens) {
    const bytes = Buffer.from(token, "utf8");
    hash.update(u64(bytes.length));
    hash.update(bytes);
  }
  return hash.digest("hex");
}

/** The short, non-secret reference to a grant used in audit records and `grant revoke`: `grant:<mode>:<n>:<8 hex>`. */
export function grantEvidence(matcher: GrantMatcher): string {
  return `grant:${matcher.mode}:${matcher.token_count}:${matcher.sha256.slice(0, 8)}`;
}

function u64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

/**
 * JSON with object keys sorted (by UTF-16 code unit, like `Array.prototype.sort`)
 * at every level. Object properties whose value is `undefined` are left out, as
 * `JSON.stringify` does; anything JSON would silently change is refused.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${String(value)} has no JSON form`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item: unknown) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  }
  if (typeof value === "object") {
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) {
      throw new TypeError("canonicalJson: only plain objects, arrays and JSON scalars have a canonical form");
    }
    const record = value as Readonly<Record<string, unknown>>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(",")}}`;
  }
  throw new TypeError(`canonicalJson: a ${typeof value} has no JSON form`);
}

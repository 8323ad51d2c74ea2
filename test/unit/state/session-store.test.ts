/**
 * The session store: one atomic 0600 file per scope, read lock-free and fail
 * closed; a check is recorded only against the session it judged.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { identityScopeDir, SessionStore } from "../../../src/state/session-store.js";
import { tempDir } from "./helpers.js";

const SAVED = new Date("2026-01-01T12:00:00.000Z");

describe("SessionStore", () => {
  it("stores the fields whole in a 0600 file (creating the scope directory 0700) and reads them back", async () => {
    const dir = identityScopeDir(tempDir(), "prod");
    const store = new SessionStore(dir);
    expect(store.read()).toEqual({ kind: "missing" });
    await store.replace({ TOKEN: "multi\nline: value # not a comment" }, SAVED, { checked_at: SAVED.toISOString(), result: "valid" });
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(store.read()).toEqual({
      kind: "ok",
      session: {
        version: "1",
        saved_at: SAVED.toISOString(),
        fields: { TOKEN: "multi\nline: value # not a comment" },
        check: { checked_at: SAVED.toISOString(), result: "valid" },
      },
    });
  });

  it("a torn or unknown file is an error, never an empty session, and reading leaves it on disk", async () => {
    const store = new SessionStore(identityScopeDir(tempDir(), "s"));
    await store.replace({ TOKEN: "x" }, SAVED, undefined);
    for (const text of ['version: "1"\nsaved_at: 2026-01-01T12:00:00.000Z\nfields:\n  TOKEN: "unterminated', 'version: "2"\n', "fields: {}\n"]) {
      writeFileSync(store.file, text, { mode: 0o600 });
      const read = store.read();
      expect(read.kind, text).toBe("error");
      expect(readFileSync(store.file, "utf8")).toBe(text);
    }
  });

  it("records a check only for the session it judged, and removes the file once", async () => {
    const store = new SessionStore(identityScopeDir(tempDir(), "s"));
    await store.replace({ TOKEN: "new" }, SAVED, undefined);
    await store.recordCheck("2025-12-31T00:00:00.000Z", { checked_at: SAVED.toISOString(), result: "invalid" });
    const untouched = store.read();
    expect(untouched.kind === "ok" && untouched.session.check).toBeUndefined();
    await store.recordCheck(SAVED.toISOString(), { checked_at: SAVED.toISOString(), result: "invalid" });
    const checked = store.read();
    expect(checked.kind === "ok" && checked.session.check?.result).toBe("invalid");
    expect(await store.remove()).toBe(true);
    expect(await store.remove()).toBe(false);
    expect(store.read()).toEqual({ kind: "missing" });
  });

  it("refuses a scope name that would leave the identities directory", () => {
    for (const scope of ["", "..", "a/b", "a\\b"]) expect(() => identityScopeDir("/p", scope)).toThrow(RangeError);
    expect(identityScopeDir("/p", "prod")).toBe(path.join("/p", "identities", "prod"));
  });
});

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { grantEvidence, grantFingerprint } from "../../../src/state/fingerprints.js";
import { GRANTS_FILE, GrantStore } from "../../../src/state/grant-store.js";
import { FakeClock, T0, tempDir } from "./helpers.js";
import { STATE_LOCK_TIMING } from "../../../src/state/lock.js";

const MINUTE = 60_000;

function setup(relative = GRANTS_FILE): { clock: FakeClock; store: GrantStore; dir: string } {
  const dir = tempDir();
  const clock = new FakeClock();
  return { dir, clock, store: new GrantStore(path.join(dir, relative), { clock: clock.now, lockTiming: STATE_LOCK_TIMING }) };
}

describe("GrantStore: matching", () => {
  it("an exact grant compares every token and the count", async () => {
    const { store } = setup();
    const entry = await store.add("exact", ["get", "pods"], 10);
    expect(entry).toEqual({
      expires_at: new Date(T0 + 10 * MINUTE).toISOString(),
      matcher: { mode: "exact", token_count: 2, sha256: grantFingerprint("exact", ["get", "pods"]) },
    });
    expect(store.find(["get", "pods"])).toEqual({ kind: "match", entry, evidence: grantEvidence(entry.matcher) });
    expect(store.find(["get", "pods", "--all-namespaces"])).toEqual({ kind: "none" });
    expect(store.find(["get"])).toEqual({ kind: "none" });
    expect(store.find(["get", "secrets"])).toEqual({ kind: "none" });
  });

  it("a prefix grant deliberately allows any suffix, and nothing shorter or different", async () => {
    const { store } = setup();
    const entry = await store.add("prefix", ["get", "pods"], 10);
    expect(store.find(["get", "pods"])).toMatchObject({ kind: "match", evidence: grantEvidence(entry.matcher) });
    expect(store.find(["get", "pods", "-n", "finance"])).toMatchObject({ kind: "match" });
    expect(store.find(["get"])).toEqual({ kind: "none" });
    expect(store.find(["get", "secrets"])).toEqual({ kind: "none" });
    expect(store.find(["get", "podsx"])).toEqual({ kind: "none" });
  });

  it("a prefix grant shorter than the minimum prefix (a file write's hold) does not match; a longer one and an exact one do", async () => {
    const { store } = setup();
    const write = ["iot-data", "get-thing-shadow", "--thing-name", "t", "/home/op/.aws/credentials"];
    await store.add("prefix", ["iot-data"], 10);
    expect(store.find(write)).toMatchObject({ kind: "match" });
    expect(store.find(write, 2)).toEqual({ kind: "none" });
    const named = await store.add("prefix", ["iot-data", "get-thing-shadow"], 10);
    expect(store.find(write, 2)).toMatchObject({ kind: "match", evidence: grantEvidence(named.matcher) });
    const { store: other } = setup();
    const exact = await other.add("exact", write, 10);
    expect(other.find(write, write.length + 1)).toMatchObject({ kind: "match", evidence: grantEvidence(exact.matcher) });
  });

  it("token boundaries are kept: a grant for [ab, c] does not match [a, bc]; [get, 'pods -A'] does not match three tokens", async () => {
    const { store } = setup();
    await store.add("exact", ["ab", "c"], 10);
    await store.add("exact", ["get", "pods -A"], 10);
    expect(store.find(["a", "bc"])).toEqual({ kind: "none" });
    expect(store.find(["abc"])).toEqual({ kind: "none" });
    expect(store.find(["get", "pods", "-A"])).toEqual({ kind: "none" });
    expect(store.find(["ab", "c"]).kind).toBe("match");
  });

  it("an exact grant is not a prefix grant for the same tokens", async () => {
    const { store } = setup();
    await store.add("exact", ["s3", "ls"], 10);
    expect(store.find(["s3", "ls", "s3://bucket"])).toEqual({ kind: "none" });
  });

  it("unicode tokens match by their UTF-8 bytes", async () => {
    const { store } = setup();
    await store.add("exact", ["logs", "pod-ü", "日本語", "🙂"], 10);
    expect(store.find(["logs", "pod-ü", "日本語", "🙂"]).kind).toBe("match");
    expect(store.find(["logs", "pod-u\u0308", "日本語", "🙂"]).kind).toBe("none");
  });

  it("a grant in target A's file never matches a lookup through target B's file or the provider's", async () => {
    const dir = tempDir();
    const options = { lockTiming: STATE_LOCK_TIMING };
    const targetA = new GrantStore(path.join(dir, "targets", "a", GRANTS_FILE), options);
    const targetB = new GrantStore(path.join(dir, "targets", "b", GRANTS_FILE), options);
    const provider = new GrantStore(path.join(dir, GRANTS_FILE), options);
    await targetA.add("prefix", ["delete"], 10);
    expect(targetA.find(["delete", "pod", "web"]).kind).toBe("match");
    expect(targetB.find(["delete", "pod", "web"])).toEqual({ kind: "none" });
    expect(provider.find(["delete", "pod", "web"])).toEqual({ kind: "none" });
  });

  it("stores digests, never the tokens", async () => {
    const { store } = setup();
    await store.add("exact", ["secretsmanager", "get-secret-value", "--secret-id", "prod/db"], 10);
    const text = readFileSync(store.file, "utf8");
    expect(text).not.toContain("prod/db");
    expect(text).not.toContain("secretsmanager");
    expect(text).toMatch(/^version: "2"$/m);
  });
});

describe("GrantStore: expiry", () => {
  it("a grant matches until its expiry and is filtered from list() after it", async () => {
    const { store, clock } = setup();
    await store.add("exact", ["get", "pods"], 15);
    clock.advance(15 * MINUTE - 1);
    expect(store.find(["get", "pods"]).kind).toBe("match");
    expect(store.list()).toMatchObject({ ok: true, entries: [{ matcher: { mode: "exact" } }] });
    clock.advance(1);
    expect(store.find(["get", "pods"])).toEqual({ kind: "none" });
    expect(store.list()).toEqual({ ok: true, entries: [] });
  });

  it("expired entries are pruned on the next write", async () => {
    const { store, clock } = setup();
    await store.add("exact", ["get", "pods"], 1);
    await store.add("exact", ["get", "nodes"], 60);
    clock.advance(2 * MINUTE);
    await store.add("prefix", ["describe"], 5);
    const text = readFileSync(store.file, "utf8");
    expect(text).not.toContain(grantFingerprint("exact", ["get", "pods"]));
    expect(text).toContain(grantFingerprint("exact", ["get", "nodes"]));
  });

  it("granting the same tokens again replaces the expiry instead of adding a duplicate", async () => {
    const { store, clock } = setup();
    await store.add("prefix", ["get"], 60);
    clock.advance(MINUTE);
    const again = await store.add("prefix", ["get"], 5);
    expect(store.list()).toEqual({ ok: true, entries: [again] });
    expect(again.expires_at).toBe(new Date(T0 + 6 * MINUTE).toISOString());
  });

  it.each([0, 1441, 2.5, -1])("refuses a duration of %s minutes", async (minutes) => {
    const { store } = setup();
    await expect(store.add("exact", ["get"], minutes)).rejects.toBeInstanceOf(RangeError);
    expect(existsSync(store.file)).toBe(false);
  });

  it("refuses an empty token list and an unknown mode", async () => {
    const { store } = setup();
    await expect(store.add("prefix", [], 5)).rejects.toBeInstanceOf(RangeError);
    await expect(store.add("regex" as "exact", ["get"], 5)).rejects.toBeInstanceOf(RangeError);
  });
});

describe("GrantStore: revoke and clear", () => {
  it("revokes by evidence (8 hex digits, or more to narrow it) and counts what it removed", async () => {
    const { store } = setup();
    const pods = await store.add("exact", ["get", "pods"], 10);
    const nodes = await store.add("exact", ["get", "nodes"], 10);
    await store.add("prefix", ["get", "pods"], 10);
    expect(await store.revoke(grantEvidence(pods.matcher))).toBe(1);
    expect(store.find(["get", "pods"]).kind).toBe("match"); // the prefix grant still covers it
    expect(await store.revoke(`grant:exact:2:${nodes.matcher.sha256}`)).toBe(1);
    expect(store.find(["get", "nodes"])).toEqual({ kind: "none" });
    const before = readFileSync(store.file);
    expect(await store.revoke("grant:exact:2:00000000")).toBe(0);
    expect(readFileSync(store.file).equals(before)).toBe(true);
  });

  it.each(["grant:exact:2:abc", "grant:any:2:1234abcd", "exact:2:1234abcd", "grant:exact:0:1234abcd", "grant:exact:2:1234ABCD", "grant:exact:2:"])(
    "refuses the malformed reference %s",
    async (evidence) => {
      const { store } = setup();
      await store.add("exact", ["get"], 10);
      await expect(store.revoke(evidence)).rejects.toBeInstanceOf(RangeError);
    },
  );

  it("clear removes every entry and says how many were live", async () => {
    const { store, clock } = setup();
    await store.add("exact", ["a"], 1);
    await store.add("exact", ["b"], 10);
    await store.add("exact", ["c"], 10);
    clock.advance(2 * MINUTE);
    expect(await store.clear()).toEqual({ removed: 2 });
    expect(store.list()).toEqual({ ok: true, entries: [] });
    expect(await store.clear()).toEqual({ removed: 0 });
  });

  it("clear on a missing file creates nothing", async () => {
    const { store } = setup("targets/prod/grants");
    expect(await store.clear()).toEqual({ removed: 0 });
    expect(existsSync(store.file)).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { canonicalJson, grantEvidence, grantFingerprint, targetBinding } from "../../../src/state/fingerprints.js";

// Reference vectors computed independently (Python hashlib + struct.pack(">Q")), byte-compatible with Torii's grants v2.
describe("grantFingerprint", () => {
  it("matches the reference vectors", () => {
    expect(grantFingerprint("exact", ["get", "pods"])).toBe("5cd1177ca5810c88cd8108323fe8ed63a67036dfd16a4ac966473d4854f098e2");
    expect(grantFingerprint("prefix", ["get", "pods"])).toBe("035822bf468f3933cccc6f88923ea628897b60978f612bd242daa21a8a65d713");
    expect(grantFingerprint("exact", ["héllo", "日本", "🙂"])).toBe("3fb3dc9808b6a86a8bdacc872635bb2eb3ea453b5e1d9392a0ab289834be43cc");
    expect(grantFingerprint("exact", [])).toBe("6b62bc0ecbf10ef5f35cf8d109af89806661e6f5b2c63949c0a2c560debb1e0f");
    expect(grantFingerprint("exact", [""])).toBe("1809e4e12f46f6aec072fee80e05b5c12b51137e98cc0801aae98a495f6e3518");
  });

  it("keeps token boundaries: moving a character across a boundary changes the digest", () => {
    expect(grantFingerprint("exact", ["ab", "c"])).not.toBe(grantFingerprint("exact", ["a", "bc"]));
    expect(grantFingerprint("exact", ["get", "pods -A"])).not.toBe(grantFingerprint("exact", ["get", "pods", "-A"]));
    expect(grantFingerprint("exact", ["get", ""])).not.toBe(grantFingerprint("exact", ["get"]));
    expect(grantFingerprint("exact", ["a\0b"])).not.toBe(grantFingerprint("exact", ["a", "b"]));
  });

  it("separates exact from prefix for the same tokens", () => {
    expect(grantFingerprint("exact", ["s3", "ls"])).not.toBe(grantFingerprint("prefix", ["s3", "ls"]));
  });

  it("hashes tokens as UTF-8 bytes: composed and decomposed forms are different tokens", () => {
    expect(grantFingerprint("exact", ["é"])).not.toBe(grantFingerprint("exact", ["e\u0301"]));
    // A lone surrogate reaches the child as U+FFFD, so it is the same token.
    expect(grantFingerprint("exact", ["\uD800"])).toBe(grantFingerprint("exact", ["\uFFFD"]));
  });

  prop([fc.array(fc.string({ unit: "grapheme" }), { maxLength: 6 }), fc.array(fc.string({ unit: "grapheme" }), { maxLength: 6 })], {
    seed: 42,
    numRuns: 500,
  })("different token vectors never share a digest", (left, right) => {
    fc.pre(JSON.stringify(left) !== JSON.stringify(right));
    expect(grantFingerprint("exact", left)).not.toBe(grantFingerprint("exact", right));
    expect(grantFingerprint("prefix", left)).not.toBe(grantFingerprint("exact", right));
  });
});

describe("grantEvidence", () => {
  it("is grant:<mode>:<count>:<first 8 hex>", () => {
    const sha256 = grantFingerprint("prefix", ["get", "pods"]);
    expect(grantEvidence({ mode: "prefix", token_count: 2, sha256 })).toBe("grant:prefix:2:035822bf");
    expect(grantEvidence({ mode: "exact", token_count: 3, sha256 })).toMatch(/^grant:exact:3:[0-9a-f]{8}$/);
  });
});

describe("targetBinding", () => {
  const config = { version: "1", name: "prod", context: "prod-ctx", identity: { provider: "kubectl", scope: "prod" } };
  const input = { provider: "kubectl", alias: "prod", config, fileIdentity: { ino: 1234, birthtimeMs: 1700000000000.5 } };

  it("matches the reference vector (sorted-key JSON after the tag)", () => {
    expect(targetBinding(input)).toBe("e33e61ab3b675da7ae3da92fd032da53456273a5eb854b161556e9a3a57273cc");
  });

  it("does not depend on key order", () => {
    const reordered = { identity: { scope: "prod", provider: "kubectl" }, context: "prod-ctx", name: "prod", version: "1" };
    expect(targetBinding({ ...input, config: reordered })).toBe(targetBinding(input));
  });

  it("changes when the configuration is edited, the file recreated, or the target renamed", () => {
    const base = targetBinding(input);
    expect(targetBinding({ ...input, config: { ...config, context: "other" } })).not.toBe(base);
    expect(targetBinding({ ...input, fileIdentity: { ino: 1235, birthtimeMs: 1700000000000.5 } })).not.toBe(base);
    expect(targetBinding({ ...input, fileIdentity: { ino: 1234, birthtimeMs: 1700000000001 } })).not.toBe(base);
    expect(targetBinding({ ...input, alias: "prod2" })).not.toBe(base);
    expect(targetBinding({ ...input, provider: "kubectl2" })).not.toBe(base);
  });

  it("refuses values JSON cannot represent faithfully", () => {
    expect(() => targetBinding({ ...input, config: { at: new Date(0) } })).toThrow(TypeError);
    expect(() => targetBinding({ ...input, config: { n: Number.NaN } })).toThrow(TypeError);
    expect(() => targetBinding({ ...input, config: { n: 1n } })).toThrow(TypeError);
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every level and drops undefined members like JSON.stringify", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  prop([fc.jsonValue()], { seed: 7, numRuns: 200 })("parses back to the same value", (value) => {
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });
});

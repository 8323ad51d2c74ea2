import { describe, expect, it } from "vitest";
import { AUDIT_EVENTS, BROKER_AUDIT_EVENTS, TORII_AUDIT_EVENTS } from "../../../src/audit/events.js";
import {
  AUDIT_FIELD_ORDER,
  auditFields,
  canonicalJson,
  checkAuditLine,
  GENESIS_HASH,
  sanitiseAuditText,
  sealAuditLine,
  sha256Hex,
  type AuditInput,
} from "../../../src/audit/record.js";

const BASE: AuditInput = { call_id: "call-1", scope: "aws/prod", event: "ran" };
const TIME = new Date("2026-01-02T03:04:05.678Z");

function line(input: AuditInput, prev = GENESIS_HASH): string {
  return sealAuditLine(auditFields(input), TIME, prev).line;
}

describe("audit events", () => {
  it("include Torii's events verbatim and the broker's own", () => {
    for (const event of [
      "invoke",
      "allowed-by-rules",
      "denied-explicit",
      "override-timed",
      "session-candidate-invalid",
      "identity-check-failed",
      "target-access-cleared",
      "ran",
    ]) {
      expect(TORII_AUDIT_EVENTS).toContain(event);
    }
    expect([...BROKER_AUDIT_EVENTS]).toEqual([
      "denied-locked-option",
      "denied-locked-command",
      "denied-argv",
      "denied-policy-error",
      "denied-headless",
      "human-deny",
      "approval-timeout",
      "approval-withdrawn",
      "denied-target-inactive",
      "launch-failed",
      "auth-failed",
      "target-added",
      "target-removed",
      "grant-added",
      "grant-revoked",
      "grants-cleared",
      "session-removed",
      "client-stalled",
      "audit-anchored",
      "audit-head-mismatch",
    ]);
    expect(new Set(AUDIT_EVENTS).size).toBe(AUDIT_EVENTS.length);
  });
});

describe("auditFields: only the typed fields, sanitised and cut", () => {
  it("keeps at most the first two argv tokens, each cut to 64 characters", () => {
    const long = "x".repeat(100);
    const fields = auditFields({ ...BASE, argv_head: [long, "ls", "--secret-value", "AKIAIOSFODNN7EXAMPLE"] });
    expect(fields.argv_head).toEqual(["x".repeat(64), "ls"]);
    expect(line({ ...BASE, argv_head: ["s3", "cp", "s3://bucket/secret-key"] })).not.toContain("secret-key");
  });

  it.each([
    [["--token", "CANARY", "get"]],
    [["--password=CANARY"]],
    [["-sCANARY", "get"]],
    [["-abCANARY"]],
    [["-s", "CANARY"]],
    [["--tok", "CANARY"]],
    [["get", "--token", "CANARY"]],
    [["--token=X", "CANARY"]],
    [["-", "CANARY"]],
  ])("keeps no token from the first option-like one on: %j", (argv) => {
    expect(line({ ...BASE, argv_head: argv })).not.toContain("CANARY");
    expect(auditFields({ ...BASE, argv_head: argv }).argv_head ?? []).toEqual(argv[0] === "get" ? ["get"] : []);
  });

  it("drops fields the input type does not have, even when an object carries them", () => {
    const smuggled = { ...BASE, env: { AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI" }, stdout: "token=abc", argv: ["s3", "ls", "SECRET"] };
    const written = line(smuggled);
    expect(written).not.toMatch(/wJalrXUtnFEMI|token=abc|SECRET|env|stdout/);
    expect(Object.keys(JSON.parse(written) as object)).toEqual(["v", "time", "call_id", "scope", "event", "prev", "hash"]);
  });

  it("has no field for a secret (type level)", () => {
    // Compiled, never run: each line must fail type checking (tsc enforces the @ts-expect-error).
    const typeOnly = () => {
      // @ts-expect-error -- there is no field for environment values
      auditFields({ ...BASE, env: { TOKEN: "x" } } satisfies AuditInput);
      // @ts-expect-error -- there is no field for output
      auditFields({ ...BASE, stdout: "x" } satisfies AuditInput);
      // @ts-expect-error -- the full argv has no field; argv_head is cut by the writer
      auditFields({ ...BASE, argv: ["a"] } satisfies AuditInput);
      // @ts-expect-error -- events are a closed union
      auditFields({ ...BASE, event: "made-up" } satisfies AuditInput);
    };
    expect(typeOnly).toBeTypeOf("function");
  });

  it("cuts rule and detail to 200 characters and counts code points", () => {
    const fields = auditFields({ ...BASE, rule: "r".repeat(300), detail: "🎌".repeat(250) });
    expect(fields.rule).toHaveLength(200);
    expect(Array.from(fields.detail ?? "")).toHaveLength(200);
  });

  it("replaces newlines, control, separator and bidi characters, and lone surrogates", () => {
    expect(sanitiseAuditText("a\nb\rc\td\u001b[31me\u007f\u0085f\u2028g\u202eh\u2066i\ud800j", 100)).toBe("a_b_c_d_[31me__f_g_h_i_j");
    expect(sanitiseAuditText("日本 🎌 ok", 100)).toBe("日本 🎌 ok");
    // Every bidi formatting character, the marks included: before, U+061C (ARABIC LETTER MARK, an implicit
    // mark like U+200E/U+200F) was left in an agent's argv token and printed raw by audit tail.
    expect(sanitiseAuditText("a\u061cb\u200ec\u200fd\u202ae\u2069f", 100)).toBe("a_b_c_d_e_f");
    expect(auditFields({ ...BASE, argv_head: ["get", "po\u061cds"] }).argv_head).toEqual(["get", "po_ds"]);
    const written = line({ ...BASE, detail: 'x\n{"v":1,"forged":true}', rule: "r\r\n", argv_head: ["a\nb"], source: "s\u0000" });
    expect(written.split("\n")).toHaveLength(1);
    expect(written).not.toMatch(/\\n|\\r|\\u0000/);
  });

  it.each([
    ["an unknown event", { event: "made-up" }, /event/],
    ["an empty call_id", { call_id: "" }, /call_id/],
    ["an empty scope", { scope: "" }, /scope/],
    ["a policy_hash that is not hex SHA-256", { policy_hash: "sha256:abc" }, /policy_hash/],
    ["an upper-case policy_hash", { policy_hash: "A".repeat(64) }, /policy_hash/],
    ["a fractional exit code", { exit_code: 1.5 }, /exit_code/],
    ["a negative duration", { duration_ms: -1 }, /duration_ms/],
    ["an infinite duration", { duration_ms: Infinity }, /duration_ms/],
    ["a non-string argv token", { argv_head: ["a", 3] }, /argv_head/],
    ["a non-boolean flag", { truncated: "yes" }, /truncated/],
    ["a non-string detail", { detail: { secret: "x" } }, /detail/],
  ])("refuses %s, naming the field and not the value", (_name, override, field) => {
    const run = () => auditFields({ ...BASE, ...override } as unknown as AuditInput);
    expect(run).toThrow(TypeError);
    expect(run).toThrow(field);
    expect(run).not.toThrow(/sha256:abc|AAAA|secret/);
  });

  it("accepts exit_code null (ended by a signal) and rounds durations", () => {
    expect(auditFields({ ...BASE, exit_code: null, duration_ms: 12.6 })).toMatchObject({ exit_code: null, duration_ms: 13 });
  });
});

describe("sealAuditLine and checkAuditLine", () => {
  const full: AuditInput = {
    ...BASE,
    rule: "s3 ls",
    source: "rules",
    policy_hash: "a".repeat(64),
    argv_head: ["s3", "ls"],
    detail: "exit 0",
    exit_code: 0,
    duration_ms: 5,
    truncated: false,
    timed_out: false,
  };

  it("writes the fields in the documented order with hash last", () => {
    const written = JSON.parse(line(full)) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(AUDIT_FIELD_ORDER);
  });

  it("hashes the line without its hash field, and chains on the previous line", () => {
    const first = line(full);
    const parsed = JSON.parse(first) as { hash: string; prev: string };
    expect(parsed.prev).toBe(GENESIS_HASH);
    const { hash, ...unsigned } = parsed;
    expect(hash).toBe(sha256Hex(canonicalJson(unsigned)));
    expect(hash).toBe(sha256Hex(first.replace(/,"hash":"[0-9a-f]{64}"\}$/, "}")));
    const check = checkAuditLine(Buffer.from(first));
    expect(check.kind).toBe("record");
    expect(check.kind === "record" && check.digest).toBe(sha256Hex(first));
  });

  it.each([
    ["an edited field", (text: string) => text.replace('"exit_code":0', '"exit_code":1'), "edited", /hash does not match/],
    [
      "an edited hash",
      (text: string) => text.replace(/"hash":"([0-9a-f])/, (_match, first: string) => `"hash":"${first === "0" ? "1" : "0"}`),
      "edited",
      /hash does not match/,
    ],
    ["a reformatted record", (text: string) => text.replace('"v":1,', '"v": 1,'), "edited", /laid out/],
    ["re-ordered fields", (text: string) => text.replace('"v":1,"time"', '"time"').replace('"call_id"', '"v":1,"call_id"'), "edited", /laid out/],
    ["an added field", (text: string) => text.replace('"v":1,', '"v":1,"extra":1,'), "invalid", /not an audit record/],
    ["an unknown version", (text: string) => text.replace('"v":1,', '"v":2,'), "invalid", /not an audit record/],
    ["three argv tokens", (text: string) => text.replace('["s3","ls"]', '["s3","ls","x"]'), "invalid", /argv_head/],
    ["a cut line", (text: string) => text.slice(0, 40), "unreadable", /not a JSON line/],
    ["an empty line", () => "", "unreadable", /^empty line$/],
    // Only a line of no bytes is "empty": one of whitespace or a NUL is read, and is no JSON line.
    ["a line of spaces", () => "   ", "unreadable", /^not a JSON line$/],
    ["a carriage return", () => "\r", "unreadable", /^not a JSON line$/],
    ["a tab", () => "\t", "unreadable", /^not a JSON line$/],
    ["a NUL", () => "\0", "unreadable", /^not a JSON line$/],
  ] as const)("classifies %s", (_name, mutate, kind, reason) => {
    const check = checkAuditLine(Buffer.from(mutate(line(full))));
    expect(check.kind).toBe(kind);
    expect("reason" in check ? check.reason : "").toMatch(reason);
  });

  it("classifies bytes that are not UTF-8 as unreadable", () => {
    expect(checkAuditLine(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])).kind).toBe("unreadable");
  });
});

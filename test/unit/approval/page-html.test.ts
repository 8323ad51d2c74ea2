/**
 * The page's rendering of what the agent sent, and the request checks.
 */
import { describe, expect, test } from "vitest";
import { escapeHtml, visibleText, visibleToken } from "../../../src/approval/page-html.js";
import { hostAllowed, sameOrigin, secretsEqual } from "../../../src/approval/request-guard.js";

describe("rendering", () => {
  test("markup is escaped, odd characters become visible escapes, an empty token is labelled", () => {
    expect(escapeHtml(`<a href="x">'&`)).toBe("&#60;a href=&#34;x&#34;&#62;&#39;&#38;");
    expect(visibleToken("a\u200bb")).toContain("\\u{200b}");
    expect(visibleToken("pod\u0430")).toContain("\\u{430}");
    expect(visibleToken("x\n")).toContain("\\u{a}");
    expect(visibleToken("a b")).toContain("␠");
    expect(visibleToken("")).toContain("(empty token)");
    expect(visibleToken("y".repeat(81))).toContain("(81 characters)");
    expect(visibleText("kubectl get 'a\u202eb'")).toBe("kubectl get &#39;a\\u{202e}b&#39;");
  });
});

describe("request checks", () => {
  test("Host must be 127.0.0.1:<port> or localhost:<port> exactly", () => {
    expect(hostAllowed("127.0.0.1:8080", 8080)).toBe(true);
    expect(hostAllowed("localhost:8080", 8080)).toBe(true);
    for (const host of ["127.0.0.1:8081", "evil.test:8080", "127.0.0.1", "LOCALHOST:8080", undefined]) expect(hostAllowed(host, 8080)).toBe(false);
  });

  test("Origin must be the page's own", () => {
    expect(sameOrigin("http://127.0.0.1:8080", "127.0.0.1:8080")).toBe(true);
    for (const origin of ["http://localhost:8080", "null", "https://127.0.0.1:8080", undefined]) expect(sameOrigin(origin, "127.0.0.1:8080")).toBe(false);
  });

  test("secrets compare equal only when identical, whatever their lengths", () => {
    expect(secretsEqual("abc", "abc")).toBe(true);
    expect(secretsEqual("abc", "abcd")).toBe(false);
    expect(secretsEqual("", "abc")).toBe(false);
  });
});

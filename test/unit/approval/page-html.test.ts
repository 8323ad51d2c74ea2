/**
 * The page's rendering of what the agent sent and of its offer, and the request checks.
 */
import { describe, expect, test } from "vitest";
import { renderLeasePage } from "../../../src/approval/lease-page-html.js";
import type { PageModel } from "../../../src/approval/page-model.js";
import { callPageOffer, leasePageOffer } from "../../../src/approval/page-offer.js";
import { escapeHtml, renderPage, visibleText, visibleToken } from "../../../src/approval/page-html.js";
import { suggestGrants } from "../../../src/policy/grant-suggestion.js";
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

/** A call page's model for `tokens` with `offer`. */
function callModel(tokens: string[], offer: PageModel["offer"]): PageModel {
  return {
    id: "0123456789abcdef",
    tool: "rec",
    lease: "none needed (the provider has no targets)",
    tokens,
    reason: "no rule",
    nearestRules: [],
    grants: suggestGrants("rec", undefined, { positionals: tokens, options: [], hasTail: false, tail: [] }),
    expiresAt: "2026-01-01T00:00:00.000Z",
    rules: [],
    offer,
  };
}

/** The values of the page's prefix boundary list, its duration field's bounds, and whether the prefix choice is enabled. */
function offered(html: string) {
  return {
    prefixCounts: [...html.matchAll(/<option value="(\d+)"/g)].map((match) => Number(match[1])),
    minutes: /id="minutes" min="(\d+)" max="(\d+)" value="(\d+)"/.exec(html)?.slice(1).map(Number),
    prefixDisabled: /value="prefix" disabled/.test(html),
  };
}

describe("the page renders its offer, the one the server checks answers against", () => {
  test("the prefix boundaries listed are the offer's: every one from a file write's hold to the whole argv", () => {
    const tokens = ["cp", "pod:/etc/x", "/tmp/x", "--retries", "3"];
    for (const minimumPrefix of [undefined, 3]) {
      const offer = callPageOffer({ tokenCount: tokens.length, minimumPrefix, defaultMinutes: 20, rules: [] });
      expect(offered(renderPage(callModel(tokens, offer), "/a/x", "csrf", 0))).toEqual({
        prefixCounts: minimumPrefix === undefined ? [1, 2, 3, 4, 5] : [3, 4, 5],
        minutes: [1, 1440, 20],
        prefixDisabled: false,
      });
      expect(offer.prefixCounts).toEqual(minimumPrefix === undefined ? [1, 2, 3, 4, 5] : [3, 4, 5]);
    }
  });

  test("a file write no prefix grant can name gets no prefix choice, and the offer holds none", () => {
    const offer = callPageOffer({ tokenCount: 2, minimumPrefix: 3, defaultMinutes: 20, rules: [] });
    expect(offer.prefixCounts).toEqual([]);
    expect(offered(renderPage(callModel(["a", "b"], offer), "/a/x", "csrf", 0))).toMatchObject({ prefixCounts: [], prefixDisabled: true });
    expect(offer.noPrefixReason).toMatch(/writes a local file/);
  });

  test("a rule offered disabled is not among the offer's choices", () => {
    const rule = { rule: "x", scope: "", file: "rules.yaml", alsoAffects: [] };
    const offer = callPageOffer({
      tokenCount: 1,
      defaultMinutes: 20,
      rules: [
        { effect: "accept", ...rule, disabledReason: "a deny wins" },
        { effect: "deny", ...rule },
      ],
    });
    expect(offer.choices).toEqual(["deny", "once", "grant", "rule-deny"]);
  });

  test("the lease page's duration field is the lease offer's", () => {
    const offer = leasePageOffer(45);
    const html = renderLeasePage(
      { tool: "kubectl", target: "prod", active: [], tokens: ["get", "pods"], offer, expiresAt: "2026-01-01T00:00:00.000Z" },
      "/a/x",
      "csrf",
      0,
    );
    expect(offered(html).minutes).toEqual([1, 1440, 45]);
    expect(offer.choices).toEqual(["deny", "lease-replace", "lease-add"]);
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

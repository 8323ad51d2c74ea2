/**
 * The page's rendering of what the agent sent and of its offer, and the request checks.
 */
import { describe, expect, test } from "vitest";
import { renderLeasePage } from "../../../src/approval/lease-page-html.js";
import type { PageModel, RuleOffer } from "../../../src/approval/page-model.js";
import { callPageOffer, leasePageOffer, offerRefusal } from "../../../src/approval/page-offer.js";
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

/** What the page server and the approver hand a rendering. */
const FRAME = { base: "/a/x", csrf: "csrf", settleMs: 0, pageKey: "key-of-this-session" };

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
      const hold = minimumPrefix === undefined ? undefined : { minimumPrefix, access: "write" as const };
      const offer = callPageOffer({ tokens, hold, defaultMinutes: 20, rules: [] });
      expect(offered(renderPage(callModel(tokens, offer), FRAME))).toEqual({
        prefixCounts: minimumPrefix === undefined ? [1, 2, 3, 4, 5] : [3, 4, 5],
        minutes: [1, 1440, 20],
        prefixDisabled: false,
      });
      expect(offer.prefixCounts).toEqual(minimumPrefix === undefined ? [1, 2, 3, 4, 5] : [3, 4, 5]);
      const floor = /id="prefix-floor">([^<]*)</u.exec(renderPage(callModel(tokens, offer), FRAME))?.[1];
      expect(floor).toBe(
        minimumPrefix === undefined
          ? undefined
          : "No prefix shorter than 3 tokens: the call writes a local file, and a prefix grant of fewer tokens would not name its command, so it would not allow this call.",
      );
    }
  });

  test("a file write no prefix grant can name gets no prefix choice, and the offer holds none", () => {
    const offer = callPageOffer({ tokens: ["a", "b"], hold: { minimumPrefix: 3, access: "write" }, defaultMinutes: 20, rules: [] });
    expect(offer.prefixCounts).toEqual([]);
    expect(offered(renderPage(callModel(["a", "b"], offer), FRAME))).toMatchObject({ prefixCounts: [], prefixDisabled: true });
    expect(offer.noPrefixReason).toMatch(/writes a local file/);
  });

  test("a rule offered disabled is not among the offer's choices", () => {
    const rule = { rule: "x", scope: "", file: "rules.yaml", alsoAffects: [] };
    const offer = callPageOffer({
      tokens: ["x"],
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
    const html = renderLeasePage({ tool: "kubectl", target: "prod", active: [], tokens: ["get", "pods"], offer, expiresAt: "2026-01-01T00:00:00.000Z" }, FRAME);
    expect(offered(html).minutes).toEqual([1, 1440, 45]);
    expect(offer.choices).toEqual(["deny", "lease-replace", "lease-add"]);
  });
});

/** Both rules offered enabled, as the rule builder would for a call it could name. */
function enabledRules(rule: string): RuleOffer[] {
  return [
    { effect: "accept", rule, scope: "It allows exactly this call.", file: "rules.yaml", alsoAffects: [] },
    { effect: "deny", rule, scope: "It denies this call.", file: "rules.yaml", alsoAffects: [] },
  ];
}

describe("argv with characters that do not show on screen (red team F2)", () => {
  const CSRF = "csrf";
  const classes = {
    "a zero-width character": "\u200b",
    "a bidi control": "\u202e",
    "a format (Cf) character": "\u00ad",
    "a variation selector": "\ufe0f",
    "a tag character": "\u{e0041}",
    "a C0 control": "\u0007",
    "a C1 control": "\u009b",
    "an unusual space": "\u00a0",
  };

  for (const [name, character] of Object.entries(classes)) {
    test(`${name}: the offer is Deny and Allow once only, and the server's check refuses a grant or a rule even when rules were handed in`, () => {
      const tokens = ["get", `pods${character}`];
      const offer = callPageOffer({ tokens, defaultMinutes: 20, rules: enabledRules("/^get pods$/") });
      expect(offer.choices).toEqual(["deny", "once"]);
      expect(offer.prefixCounts).toEqual([]);
      expect(offer.noLastingReason).toMatch(/do not show on screen/);
      for (const answer of [
        { choice: "rule-accept", csrf: CSRF },
        { choice: "rule-deny", csrf: CSRF },
        { choice: "grant", mode: "exact", token_count: 2, minutes: 5, csrf: CSRF },
        { choice: "grant", mode: "prefix", token_count: 1, minutes: 5, csrf: CSRF },
      ] as const) {
        expect(offerRefusal(offer, answer), answer.choice).toMatch(/did not offer/);
      }
      expect(offerRefusal(offer, { choice: "once", csrf: CSRF })).toBeUndefined();
      expect(offerRefusal(offer, { choice: "deny", csrf: CSRF })).toBeUndefined();
    });
  }

  test("visible characters, accented or in another script, keep the grant and the rules", () => {
    for (const token of ["café", "pod\u0430", "東京"]) {
      expect(callPageOffer({ tokens: ["get", token], defaultMinutes: 20, rules: enabledRules("/^x$/") }).choices).toEqual([
        "deny",
        "once",
        "grant",
        "rule-accept",
        "rule-deny",
      ]);
    }
  });

  test("the page shows the character as an escape, renders no grant or rule button, and says why", () => {
    const tokens = ["get", "pods\u200b"];
    const offer = callPageOffer({ tokens, defaultMinutes: 20, rules: enabledRules("/^get pods$/") });
    const html = renderPage({ ...callModel(tokens, offer), rules: enabledRules("/^get pods$/") }, FRAME);
    expect(html).toContain('pods<span class="odd" title="U+200B">\\u{200b}</span>');
    expect(html).toContain('data-choice="once"');
    expect(html).toContain('data-choice="deny"');
    for (const choice of ["grant", "rule-accept", "rule-deny"]) expect(html).not.toContain(`data-choice="${choice}"`);
    expect(html).toMatch(/id="no-lasting">[^<]*not offered: the argv holds characters that do not show on screen/);
  });

  test("a rule's text and the scope and head of what it would also change show odd characters as escapes; Torii's own words and its … do not", () => {
    const rules: RuleOffer[] = [
      {
        effect: "accept",
        rule: "/^get p\u043eds$/",
        scope: "It allows exactly this call.",
        file: "rules.yaml",
        alsoAffects: [{ scope: "rec\u202e", head: ["get", "p\u043eds\u200b"], calls: 2, certain: false }],
      },
    ];
    const tokens = ["get", "p\u043eds"];
    const html = renderPage({ ...callModel(tokens, callPageOffer({ tokens, defaultMinutes: 20, rules })), rules }, FRAME);
    expect(html).toContain("<code>/^get p\\u{43e}ds$/</code>");
    expect(html).toContain("<li><code>rec\\u{202e}: get p\\u{43e}ds\\u{200b} … (2 calls, some of them)</code></li>");
    expect(html).not.toContain("\\u{2026}");
  });
});

describe("text mixing Torii's words with the agent's", () => {
  test("the policy's reason, the nearest rules and the description show characters that do not show on screen as escapes, Torii's … and — as they are", () => {
    const tokens = ["get", "pods"];
    const model = {
      ...callModel(tokens, callPageOffer({ tokens, defaultMinutes: 20, rules: [] })),
      reason: 'rec get\u202e reads a local file — only a rule that names "get\u202e" accepts it …',
      nearestRules: [{ list: "accept" as const, rule: "get\u200b" }],
      description: "list the pods\u{e0041}\u{e0042}",
    };
    const html = renderPage(model, FRAME);
    expect(html).toContain("<p>rec get\\u{202e} reads a local file — only a rule that names &#34;get\\u{202e}&#34; accepts it …</p>");
    expect(html).toContain("accept: <code>get\\u{200b}</code>");
    expect(html).toContain('<blockquote class="agent-words">list the pods\\u{e0041}\\u{e0042}</blockquote>');
    const lease = renderLeasePage(
      { tool: "kubectl", target: "prod", active: [], tokens, offer: leasePageOffer(45), expiresAt: "2026-01-01T00:00:00.000Z", description: "why\u2066" },
      FRAME,
    );
    expect(lease).toContain('<blockquote class="agent-words">why\\u{2066}</blockquote>');
  });
});

describe("the page key in the HTML", () => {
  test("the call page and the lease page carry the session's page key in a meta tag, escaped", () => {
    const tokens = ["a"];
    const frame = { ...FRAME, pageKey: 'k"<' };
    const call = renderPage(callModel(tokens, callPageOffer({ tokens, defaultMinutes: 20, rules: [] })), frame);
    const lease = renderLeasePage(
      { tool: "kubectl", target: "prod", active: [], tokens, offer: leasePageOffer(45), expiresAt: "2026-01-01T00:00:00.000Z" },
      frame,
    );
    for (const html of [call, lease]) expect(html).toContain('<meta name="torii-page-key" content="k&#34;&#60;">');
  });
});

describe("request checks", () => {
  test("Host must be the address listened on and its port exactly (or localhost:<port> on 127.0.0.1)", () => {
    expect(hostAllowed("127.0.0.1:8080", "127.0.0.1", 8080)).toBe(true);
    expect(hostAllowed("localhost:8080", "127.0.0.1", 8080)).toBe(true);
    for (const host of ["127.0.0.1:8081", "evil.test:8080", "127.0.0.1", "LOCALHOST:8080", undefined]) expect(hostAllowed(host, "127.0.0.1", 8080)).toBe(false);
    expect(hostAllowed("127.9.8.7:8080", "127.9.8.7", 8080)).toBe(true);
    // localhost leads to 127.0.0.1, not to the random address: another program may serve there.
    for (const host of ["localhost:8080", "127.0.0.1:8080", "127.9.8.6:8080"]) expect(hostAllowed(host, "127.9.8.7", 8080)).toBe(false);
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

describe("the prefix boundary list", () => {
  /** The label of each boundary the page lists, by token count. */
  function labels(tokens: string[]): Map<number, string> {
    const html = renderPage(callModel(tokens, callPageOffer({ tokens, defaultMinutes: 15, rules: [] })), FRAME);
    return new Map([...html.matchAll(/<option value="(\d+)"(?: selected)?>\d+: ([^<]*)<\/option>/g)].map((match) => [Number(match[1]), match[2] ?? ""]));
  }

  test("every boundary reads differently and shows where it ends, past a long token too (a cut end made 3 and 4 tokens read alike)", () => {
    const list = labels(["get", "secrets", `name-${"a".repeat(70)}`, "--all-namespaces"]);
    expect([...list.keys()]).toEqual([1, 2, 3, 4]);
    expect(new Set(list.values()).size).toBe(4);
    expect(list.get(3)).toMatch(/a$/u);
    expect(list.get(4)).toMatch(/ --all-namespaces$/u);
    expect(list.get(4)).toMatch(/^get … /u);
  });

  test("a shortened label splits no character: an astral character at the cut stays whole (one escape, no lone surrogate)", () => {
    const list = labels(["get", `${"b".repeat(40)}${"\u{1d5ba}".repeat(30)}`, "x"]);
    for (const label of list.values()) expect(label).not.toMatch(/\\u\{d[89a-f][0-9a-f]{2}\}/u);
    expect(list.get(3)).toMatch(/\\u\{1d5ba\} x$/u);
  });
});

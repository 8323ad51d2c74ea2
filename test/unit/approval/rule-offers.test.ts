/**
 * Always allow / Always deny are written only as the page showed them: a rule
 * the page did not show (its rules changed while it waited, or it offered no
 * rule of that effect) is not added, and the rules file is left as it was. A
 * call whose argv holds a character that does not show on screen gets no rule,
 * offered or added.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { fileRuleEditor } from "../../../src/approval/rule-offers.js";
import { loadRegistry } from "../../../src/config/registry.js";
import type { ApprovalRequest } from "../../../src/pipeline/gates.js";
import { suggestGrants } from "../../../src/policy/grant-suggestion.js";
import { makeConfigTree } from "../../support/config-tree.js";

const RULES = '# the operator\'s rules\nversion: "1"\ndeny: [push]\naccept: [status]\n';

function requestIn(root: string, tokens: string[]): ApprovalRequest {
  const provider = loadRegistry(root).providers.get("rec");
  if (provider === undefined) throw new Error("no provider rec");
  return {
    provider,
    target: undefined,
    canonicalTokens: tokens,
    description: undefined,
    reason: "no rule",
    grants: suggestGrants("rec", undefined, { positionals: tokens, options: [], hasTail: false, tail: [] }),
    signal: new AbortController().signal,
  };
}

/** A tree with provider `rec` and its rules RULES, the rules file's path and the rule editor over it. */
function recTree() {
  const root = makeConfigTree({
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
    "providers/rec/rules.yaml": RULES,
  });
  return { root, rulesFile: path.join(root, "providers/rec/rules.yaml"), editor: fileRuleEditor(path.join(root, "audit.jsonl")) };
}

describe("the rule the page showed is the rule written", () => {
  test("a rule among those shown is added; one the page did not show is refused and the file is unchanged", async () => {
    const { root, rulesFile, editor } = recTree();
    const request = requestIn(root, ["reflog", "show"]);
    const shown = editor.offers(request);
    expect(shown.map((offer) => offer.effect)).toEqual(["accept", "deny"]);
    await expect(editor.add(request, "accept", [])).rejects.toThrow(/no longer the one shown; nothing was added/);
    await expect(
      editor.add(
        request,
        "accept",
        shown.filter((offer) => offer.effect === "deny"),
      ),
    ).rejects.toThrow(/nothing was added/);
    expect(readFileSync(rulesFile, "utf8")).toBe(RULES);
    const added = await editor.add(request, "accept", shown);
    // With where it was written (file:line:col), for the audit's reference to it.
    expect(added).toEqual({ effect: "accept", rule: shown[0]?.rule, origin: expect.stringMatching(/rules\.yaml:\d+:\d+$/u) as unknown });
    expect(readFileSync(rulesFile, "utf8")).toContain(shown[0]?.rule ?? "?");
  });
});

describe("no rule from an argv with characters that do not show on screen (red team F2)", () => {
  test("the builder offers no rule, and adds none even when told the page showed one; the file is unchanged", async () => {
    const { root, rulesFile, editor } = recTree();
    const visible = editor.offers(requestIn(root, ["reflog", "show"]));
    for (const token of ["sh\u200bow", "show\u202e", "show\ufe0f", "show\u{e0041}", "sh\u00a0ow", "show\u0085"]) {
      const request = requestIn(root, ["reflog", token]);
      expect(editor.offers(request), JSON.stringify(token)).toEqual([]);
      // What a page showed for a look-alike visible call is no licence either.
      const shown = visible.map((offer) => ({ ...offer, rule: offer.rule.replace("show", token) }));
      for (const effect of ["accept", "deny"] as const) await expect(editor.add(request, effect, shown)).rejects.toThrow(/do not show on screen/);
    }
    expect(readFileSync(rulesFile, "utf8")).toBe(RULES);
  });
});

describe("a rules.yaml whose lists are one list through a YAML alias", () => {
  test("Always deny is not offered, and not written even when told the page showed it: the aliased deny list keeps every rule", async () => {
    // Every rule the two lists share is denied. Adding a deny used to replace `*shared` with the new rule alone.
    const shared = 'version: "1"\naccept: &shared [status, "reflog show"]\ndeny: *shared\n';
    const root = makeConfigTree({
      "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
      "providers/rec/rules.yaml": shared,
    });
    const rulesFile = path.join(root, "providers/rec/rules.yaml");
    const editor = fileRuleEditor(path.join(root, "audit.jsonl"));
    const request = requestIn(root, ["push", "origin"]);
    expect(editor.offers(request)).toEqual([]);
    const asShown = [{ effect: "deny" as const, rule: "push origin", scope: "", file: rulesFile, alsoAffects: [] }];
    await expect(editor.add(request, "deny", asShown)).rejects.toThrow(/shared through a YAML anchor/u);
    expect(readFileSync(rulesFile, "utf8")).toBe(shared);
  });
});

describe("a rules.yaml whose deny list comes through a YAML 1.1 merge key", () => {
  test("Always deny is not offered, and not written even when told the page showed it: the merged deny rule stays in force", async () => {
    // `push --force` is denied only through `<<:`. Adding a deny used to write a second, plain `deny:` key holding the
    // new rule alone, which won: `push --force` was then accepted by `/^push/`.
    const merged = '%YAML 1.1\n---\nversion: "1"\n<<: {deny: ["push --force"]}\naccept: ["/^push/"]\n';
    const root = makeConfigTree({
      "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
      "providers/rec/rules.yaml": merged,
    });
    const rulesFile = path.join(root, "providers/rec/rules.yaml");
    const editor = fileRuleEditor(path.join(root, "audit.jsonl"));
    const request = requestIn(root, ["reflog", "show"]);
    expect(editor.offers(request).map((offer) => offer.effect)).not.toContain("deny");
    const asShown = [{ effect: "deny" as const, rule: "reflog show", scope: "", file: rulesFile, alsoAffects: [] }];
    await expect(editor.add(request, "deny", asShown)).rejects.toThrow(/the deny list is not written as a plain `deny:` list/u);
    expect(readFileSync(rulesFile, "utf8")).toBe(merged);
  });
});

describe("a rule written to the shared rules.yaml says which other targets it decides for", () => {
  const KUBE =
    'version: "1"\nname: kube\ntool: kube\ncommand: recorder\ntargeting:\n  mode: kubectl_context\nargv:\n  parser: pflag\n  commands:\n    - path: [delete]\n';
  const IDP = 'version: "1"\nname: idp\ntool: idp\ncommand: echo\n';
  const target = (name: string) => `version: "1"\nname: ${name}\ncontext: ${name}-ctx\nidentity: {provider: idp}\n`;

  function kubeTree() {
    const root = makeConfigTree({
      "providers/idp/provider.yaml": IDP,
      "providers/kube/provider.yaml": KUBE,
      "providers/kube/rules.yaml": 'version: "1"\ndeny: []\naccept: []\n',
      "providers/kube/targets/dev/target.yaml": target("dev"),
      "providers/kube/targets/prod/target.yaml": target("prod"),
      "providers/kube/targets/staging/target.yaml": target("staging"),
      // staging decides by its own rules: a shared rule does not reach it.
      "providers/kube/targets/staging/rules.yaml": 'version: "1"\ndeny: []\naccept: []\n',
    });
    return { root, editor: fileRuleEditor(path.join(root, "audit.jsonl")) };
  }

  function requestOn(root: string, alias: string, tokens: string[]): ApprovalRequest {
    const provider = loadRegistry(root).providers.get("kube");
    const entry = provider?.targets.get(alias);
    if (provider === undefined || entry === undefined) throw new Error(`no kube target ${alias}`);
    return {
      provider,
      target: entry,
      canonicalTokens: tokens,
      description: undefined,
      reason: "no rule",
      grants: suggestGrants("kube", alias, { positionals: tokens, options: [], hasTail: false, tail: [] }),
      signal: new AbortController().signal,
    };
  }

  test("Always allow on dev names prod, which shares the file, not staging, which has its own; Always deny names both (a shared deny is every target's floor)", () => {
    const { root, editor } = kubeTree();
    const offers = editor.offers(requestOn(root, "dev", ["delete", "deployment", "api"]));
    expect(offers.map((offer) => offer.effect)).toEqual(["accept", "deny"]);
    const [accept, deny] = offers;
    for (const offer of offers) expect(offer.file).toBe(path.join(root, "providers/kube/rules.yaml"));
    expect(accept?.scope).toContain("allows the same call on every target of kube without a rules.yaml of its own, not only on dev: now also prod");
    expect(accept?.scope).not.toMatch(/staging/u);
    expect(deny?.scope).toContain(
      "denies the same call on every target of kube, those with a rules.yaml of their own too, not only on dev: now also prod, staging",
    );
  });

  test("a rule for a target with its own rules.yaml says nothing of other targets", () => {
    const { root, editor } = kubeTree();
    const offers = editor.offers(requestOn(root, "staging", ["delete", "deployment", "api"]));
    expect(offers.map((offer) => offer.file)).toEqual([0, 1].map(() => path.join(root, "providers/kube/targets/staging/rules.yaml")));
    for (const offer of offers) expect(offer.scope).not.toMatch(/other|prod|dev|shared/u);
  });
});

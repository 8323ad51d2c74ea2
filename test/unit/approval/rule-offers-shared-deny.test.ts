/**
 * Review finding (belongs in test/unit/approval/rule-offers.test.ts): a deny written to the shared rules.yaml is a
 * floor for EVERY target (policy/compile.ts: shared deny + target deny; docs/policy.md "Layering"), those with a
 * rules.yaml of their own included; the offer's words name only the targets without one.
 */
import path from "node:path";
import { describe, expect, test } from "vitest";
import { fileRuleEditor } from "../../../src/approval/rule-offers.js";
import { loadRegistry } from "../../../src/config/registry.js";
import type { ApprovalRequest } from "../../../src/pipeline/gates.js";
import { suggestGrants } from "../../../src/policy/grant-suggestion.js";
import { makeConfigTree } from "../../support/config-tree.js";

const KUBE =
  'version: "1"\nname: kube\ntool: kube\ncommand: recorder\ntargeting:\n  mode: kubectl_context\nargv:\n  parser: pflag\n  commands:\n    - path: [delete]\n';
const IDP = 'version: "1"\nname: idp\ntool: idp\ncommand: echo\n';
const target = (name: string) => `version: "1"\nname: ${name}\ncontext: ${name}-ctx\nidentity: {provider: idp}\n`;

describe("Always deny on a target without its own rules.yaml", () => {
  test("names staging too: the shared deny reaches a target with its own rules.yaml", () => {
    const root = makeConfigTree({
      "providers/idp/provider.yaml": IDP,
      "providers/kube/provider.yaml": KUBE,
      "providers/kube/rules.yaml": 'version: "1"\ndeny: []\naccept: []\n',
      "providers/kube/targets/dev/target.yaml": target("dev"),
      "providers/kube/targets/staging/target.yaml": target("staging"),
      "providers/kube/targets/staging/rules.yaml": 'version: "1"\ndeny: []\naccept: []\n',
    });
    const provider = loadRegistry(root).providers.get("kube")!;
    const tokens = ["delete", "deployment", "api"];
    const request: ApprovalRequest = {
      provider,
      target: provider.targets.get("dev")!,
      canonicalTokens: tokens,
      description: undefined,
      reason: "no rule",
      grants: suggestGrants("kube", "dev", { positionals: tokens, options: [], hasTail: false, tail: [] }),
      signal: new AbortController().signal,
    };
    const deny = fileRuleEditor(path.join(root, "audit.jsonl"))
      .offers(request)
      .find((offer) => offer.effect === "deny")!;
    expect(deny.file).toBe(path.join(root, "providers/kube/rules.yaml"));
    // actual: "... denies the same call on every target of kube without a rules.yaml of its own, not only on dev: no other target now, ..."
    expect(deny.scope).toContain("staging");
  });
});

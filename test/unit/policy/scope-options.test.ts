/**
 * Scope options (`policy.scope_options`, kubectl's `--namespace`): a deny rule
 * that names a namespace also denies a call that names none (the kubeconfig's
 * default namespace may be that one, and Torii does not read the kubeconfig
 * before an allow) and a call that reaches every namespace (`-A`). Accept
 * rules are not widened. Through the bundled kubectl provider's grammar.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList, withSettings } from "../../support/policy-helpers.js";

const kubectl = bundledPolicyContext("kubectl");
const DENY = ["delete pods -n prod", "get secrets --namespace=kube-system"];
const ACCEPT = ["delete pods", "get secrets", "get pods -n prod"];

function decide(argv: readonly string[], context = kubectl, deny = DENY, accept = ACCEPT) {
  return evaluatePolicy(compilePolicy(context, { shared: ruleList(deny, accept) }), argv).decision;
}

describe("a deny rule naming a namespace, read against calls that do not choose that namespace by name", () => {
  it.each(
    [
      ["delete", "pods", "web-0", "-n", "prod"],
      ["delete", "pods", "web-0", "--namespace=prod"],
      ["delete", "pods", "web-0", "-nprod"],
      ["delete", "pods", "web-0"],
      ["delete", "pods", "--all", "-A"],
      ["delete", "pods", "web-0", "--all-namespaces"],
      ["delete", "pods", "web-0", "-n", "dev", "-A"],
      ["get", "secrets", "-o", "yaml"],
      ["get", "secrets", "db", "--all-namespaces=true"],
      ["get", "secrets", "-A"],
      // An empty namespace names none: kubectl acts in the kubeconfig's default namespace.
      ["delete", "pods", "web-0", "-n", ""],
      ["delete", "pods", "web-0", "--namespace="],
      ["get", "secrets", "--namespace", ""],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("kubectl %s is denied", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "explicit-deny" });
  });

  it("a call that names another namespace is not denied by it", () => {
    expect(decide(["delete", "pods", "web-0", "-n", "dev"]).result).toBe("accept");
    expect(decide(["get", "secrets", "db", "--namespace", "default"]).result).toBe("accept");
  });

  it("accept rules are not widened: an accept naming a namespace accepts neither a call without one nor -A", () => {
    expect(decide(["get", "pods", "-n", "prod"], kubectl, [], ACCEPT).result).toBe("accept");
    expect(decide(["get", "pods"], kubectl, [], ["get pods -n prod"]).result).toBe("unresolved");
    expect(decide(["get", "pods", "-A"], kubectl, [], ["get pods -n prod"]).result).toBe("unresolved");
  });

  it("without scope_options a deny rule naming a namespace needs the option (the provider opts in)", () => {
    const plain = withSettings(kubectl, { scopeOptions: [] });
    expect(decide(["delete", "pods", "web-0"], plain).result).toBe("accept");
    expect(decide(["delete", "pods", "web-0", "-A"], plain).result).toBe("accept");
  });
});

/**
 * kubectl calls that reach objects without naming them (red-team F7): a
 * selector, `--all`, a manifest (`-f`, `-k`, `--raw`), a type with no name, or
 * a controller of a named command is read, for deny rules, as any object, so a
 * deny that names one object denies it; accept rules are not widened. Through
 * the bundled kubectl provider's grammar and resource table.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const kubectl = bundledPolicyContext("kubectl");

function decide(deny: string[], accept: string[], argv: readonly string[]) {
  return evaluatePolicy(compilePolicy(kubectl, { shared: ruleList(deny, accept) }), argv).decision;
}

/** The red team's rules (/tmp/rt-7): per-name denies under verb-wide accepts. */
const DENY = ["delete secrets prod-db", "get secrets prod-db", "logs db-0", "exec db-0"];
const ACCEPT = ["delete", "get", "logs", "exec"];

describe("a call that does not name its objects is read as any object of its types, for deny rules", () => {
  it.each(
    [
      ["delete", "secrets", "--field-selector=metadata.name=prod-db"],
      ["delete", "secret", "-l", "app=db"],
      ["delete", "secrets", "--selector", "app=db"],
      ["delete", "secrets", "--all"],
      ["delete", "secrets", "--all", "-A"],
      ["delete", "-f", "secret.yaml"],
      ["delete", "--filename=dir/", "-R"],
      ["delete", "-k", "overlay/"],
      ["delete", "--raw", "/api/v1/namespaces/prod/secrets/prod-db"],
      ["get", "secrets", "-o", "yaml"],
      ["get", "secrets", "-A", "-o", "yaml"],
      ["get", "secret,configmap", "-o", "json"],
      ["get", "-f", "secret.yaml", "-o", "yaml"],
      ["get", "--raw", "/api/v1/namespaces/prod/secrets/prod-db"],
      ["get", "secret/other", "-l", "app=db"],
      ["exec", "sts/db", "--", "env"],
      ["exec", "statefulset.apps/db", "-c", "app", "--", "env"],
      ["exec", "-f", "pod.yaml", "--", "env"],
      ["logs", "deploy/db"],
      ["logs", "-l", "app=db"],
      ["logs", "--selector=app=db", "--all-containers"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("kubectl %s is denied", (_, argv) => {
    expect(decide(DENY, ACCEPT, argv)).toMatchObject({ result: "deny", source: "explicit-deny" });
  });

  it("a literal name of another object is still read as that object", () => {
    expect(decide(DENY, ACCEPT, ["delete", "secrets", "other"]).result).toBe("accept");
    expect(decide(DENY, ACCEPT, ["get", "configmaps", "-o", "yaml"]).result).toBe("accept");
    expect(decide(DENY, ACCEPT, ["exec", "web-1", "--", "env"]).result).toBe("accept");
    expect(decide(DENY, ACCEPT, ["exec", "pod/web-1", "--", "env"]).result).toBe("accept");
    expect(decide(DENY, ACCEPT, ["logs", "web-1", "--follow"]).result).toBe("accept");
  });

  it("a selector reaches every type of the call, a manifest every type", () => {
    expect(decide(["delete pods web"], ["delete"], ["delete", "secrets,pods", "-l", "app=web"]).result).toBe("deny");
    expect(decide(["delete pods web"], ["delete"], ["delete", "secrets", "-l", "app=web"]).result).toBe("accept");
    expect(decide(["delete deployments web"], ["delete"], ["delete", "-f", "app.yaml"]).result).toBe("deny");
    expect(decide(["delete deployments"], ["delete"], ["delete", "-k", "overlay/"]).result).toBe("deny");
    expect(decide(["get secrets"], ["get"], ["get", "-f", "app.yaml"]).result).toBe("deny");
  });

  it("changes kept after the name still decide (label, set serviceaccount)", () => {
    expect(decide(["label pods web tier=x"], ["label"], ["label", "pods", "--all", "tier=x"]).result).toBe("deny");
    expect(decide(["label pods web tier=x"], ["label"], ["label", "pods", "--all", "tier=y"]).result).toBe("accept");
    expect(decide(["set serviceaccount deployments web robot"], ["set"], ["set", "sa", "deploy", "--all", "robot"]).result).toBe("deny");
  });

  it("a named command's own type decides: a pod name or a rule about another type is not widened", () => {
    expect(decide(["logs deployments api"], ["logs"], ["logs", "web"]).result).toBe("accept");
    expect(decide(["exec pods db-0"], ["exec"], ["exec", "deploy/web", "--", "sh"]).result).toBe("deny");
    expect(decide(["port-forward db-0"], ["port-forward"], ["port-forward", "svc/db", "5432"]).result).toBe("deny");
  });
});

describe("accept rules are not widened by the any-object reading", () => {
  it("an accept naming an object accepts neither a selector nor a manifest nor the whole type", () => {
    const accept = ["delete secrets other", "get secrets other", "exec db-0", "logs db-0"];
    for (const argv of [
      ["delete", "secrets", "-l", "app=db"],
      ["delete", "secrets", "--all"],
      ["delete", "-f", "secret.yaml"],
      ["get", "secrets", "-o", "yaml"],
      ["exec", "sts/db", "--", "env"],
      ["logs", "-l", "app=db"],
    ]) {
      expect(decide([], accept, argv).result, argv.join(" ")).toBe("unresolved");
    }
  });

  it("an accept of the whole type or verb still accepts the call", () => {
    expect(decide([], ["delete secrets"], ["delete", "secrets", "-l", "app=db"]).result).toBe("accept");
    expect(decide([], ["get secrets"], ["get", "secrets", "-o", "yaml"]).result).toBe("accept");
    expect(decide([], ["exec"], ["exec", "sts/db", "--", "env"]).result).toBe("accept");
    expect(decide([], ["exec statefulsets db"], ["exec", "sts/db", "--", "env"]).result).toBe("accept");
    expect(decide([], ["debug nodes"], ["debug", "node/n1", "--image=busybox"]).result).toBe("accept");
  });

  it("an ignore_args selector still selects for deny rules", () => {
    const ctx = { ...kubectl, settings: { ...kubectl.settings, ignoreArgs: { leading: [], flags: ["--selector"] } } };
    const policy = compilePolicy(ctx, { shared: ruleList(DENY, ACCEPT) });
    expect(evaluatePolicy(policy, ["delete", "secrets", "other", "-l", "app=db"]).decision.result).toBe("deny");
    expect(evaluatePolicy(policy, ["delete", "secrets", "other"]).decision.result).toBe("accept");
  });
});

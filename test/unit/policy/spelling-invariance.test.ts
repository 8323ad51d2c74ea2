/**
 * Spellings a real CLI reads as the same request decide alike, through the
 * bundled providers' own grammar and settings (providers/aws, providers/kubectl):
 * AWS parameter carriers (`--cli-input-json`) and kubectl resource type spellings.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { providerFileSchema } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const aws = bundledPolicyContext("aws");
const kubectl = bundledPolicyContext("kubectl");

function decide(ctx: ProviderPolicyContext, deny: string[], accept: string[], argv: readonly string[]) {
  return evaluatePolicy(compilePolicy(ctx, { shared: ruleList(deny, accept) }), argv).decision;
}

describe("aws: a parameter carrier matches every deny rule naming an option of its operation", () => {
  const deny = ["ec2 run-instances --user-data"];
  const json = '{"UserData":"eA==","ImageId":"ami-1"}';

  it.each(
    [
      ["--cli-input-json", json],
      ["--cli-input-js", json],
      ["--cli-i", json],
      [`--cli-input-json=${json}`],
      ["--cli-input-yaml", "UserData: eA==\nImageId: ami-1"],
    ].map((carrier) => [carrier[0], carrier] as const),
  )("ec2 run-instances %s is denied by the --user-data rule", (_, carrier) => {
    const decision = decide(aws, deny, ["ec2"], ["ec2", "run-instances", ...carrier]);
    expect(decision).toMatchObject({ result: "deny", source: "explicit-deny", rule: { text: "ec2 run-instances --user-data" } });
  });

  it("a deny rule naming an option value is matched too, and a rule of another operation is not", () => {
    expect(decide(aws, ["ec2 run-instances --instance-type p4d.24xlarge"], ["ec2"], ["ec2", "run-instances", "--cli-input-json", json]).result).toBe("deny");
    expect(decide(aws, ["ec2 create-image --no-reboot"], ["ec2"], ["ec2", "run-instances", "--cli-input-json", json]).result).toBe("accept");
  });

  it("a carrier listed in ignore_args.flags still carries", () => {
    const ctx = { ...aws, settings: { ...aws.settings, ignoreArgs: { leading: [], flags: ["--cli-input-json"] } } };
    expect(decide(ctx, deny, ["ec2"], ["ec2", "run-instances", "--cli-input-json", json]).result).toBe("deny");
  });

  it("without a carrier the call is read as written", () => {
    expect(decide(aws, deny, ["ec2"], ["ec2", "run-instances", "--image-id", "ami-1"]).result).toBe("accept");
    expect(decide(aws, deny, ["ec2"], ["ec2", "run-instances", "--count", "1"]).result).toBe("accept");
  });

  it("a forbidden argument of the operation counts as carried; a global one (--debug) does not", () => {
    const ctx = { ...aws, settings: { ...aws.settings, forbiddenArgs: ["--debug", "--user-data"] } };
    expect(decide(ctx, [], ["ec2"], ["ec2", "run-instances", "--cli-input-js", json])).toMatchObject({ result: "deny", forbidden: "--user-data" });
    expect(decide(aws, [], ["ec2"], ["ec2", "run-instances", "--cli-input-json", json]).result).toBe("accept");
  });
});

describe("kubectl: a literal rule about a resource type covers every spelling of it", () => {
  it.each(
    [
      ["get", "secrets"],
      ["get", "secret"],
      ["get", "SECRETS"],
      ["get", "Secret"],
      ["get", "secrets.v1."],
      ["get", "pods,secrets"],
      ["get", "po,SECRET"],
      ["get", "secret/x"],
      ["get", "pod/a", "Secret/x"],
      ["get", "-n", "prod", "secret", "x", "-o", "yaml"],
      ["get", "--", "secret"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("deny [get secrets] denies kubectl %s", (_, argv) => {
    const decision = decide(kubectl, ["get secrets"], ["get"], argv);
    expect(decision).toMatchObject({ result: "deny", source: "explicit-deny", rule: { text: "get secrets" } });
  });

  it("an operator's rule in any spelling is read in the plural; names are kept as written", () => {
    expect(decide(kubectl, ["get SECRET"], ["get"], ["get", "secrets"]).result).toBe("deny");
    expect(decide(kubectl, ["get secret/db"], ["get"], ["get", "secrets", "db"]).result).toBe("deny");
    expect(decide(kubectl, ["get secret/db"], ["get"], ["get", "secrets", "DB"]).result).toBe("accept");
    expect(decide(kubectl, ["delete deploy,sts"], ["delete"], ["delete", "statefulset", "web"]).result).toBe("deny");
  });

  it("a call naming several types is accepted only when every type is", () => {
    expect(decide(kubectl, [], ["get pods"], ["get", "po"]).result).toBe("accept");
    expect(decide(kubectl, [], ["get pods"], ["get", "pods,secrets"]).result).toBe("unresolved");
    expect(decide(kubectl, [], ["get pods", "get cm"], ["get", "pod,configmaps"]).result).toBe("accept");
    expect(decide(kubectl, [], ["get pods"], ["get", "pod/a", "secret/b"]).result).toBe("unresolved");
  });

  it("a group suffix widens a deny but not an accept", () => {
    expect(decide(kubectl, ["get pods"], ["get"], ["get", "pods.metrics.k8s.io"]).result).toBe("deny");
    expect(decide(kubectl, [], ["get pods"], ["get", "pods.metrics.k8s.io"]).result).toBe("unresolved");
  });

  it("commands that take no resource type and unknown types are read as written", () => {
    expect(decide(kubectl, ["cp secret"], ["cp"], ["cp", "secrets"]).result).toBe("accept");
    expect(decide(kubectl, ["get widgets"], ["get"], ["get", "Widgets"]).result).toBe("deny");
    expect(decide(kubectl, ["get widgets"], ["get"], ["get", "widget"]).result).toBe("accept");
  });
});

describe("kubectl: commands that take POD or TYPE/NAME, and commands whose first operand is a type", () => {
  it.each(
    [
      ["logs deployment/api", ["logs", "deploy/api"]],
      ["logs deployment/api", ["logs", "Deployment/api", "-c", "app"]],
      ["logs pods", ["logs", "api"]],
      ["exec deployment/api", ["exec", "deploy/api", "--", "sh"]],
      ["exec pod/api", ["exec", "api", "-c", "app", "--", "env"]],
      ["attach pods/api", ["attach", "po/api"]],
      ["port-forward services/db", ["port-forward", "svc/db", "5432:5432"]],
      ["debug pod/api", ["debug", "api", "--image=busybox"]],
      ["debug nodes", ["debug", "node/n1", "--image=busybox"]],
      ["top pods", ["top", "pod"]],
      ["top pods", ["top", "po", "api"]],
      ["top node", ["top", "nodes", "n1"]],
      ["taint nodes", ["taint", "node", "n1", "dedicated=gpu:NoSchedule"]],
      ["taint node n1", ["taint", "no/n1", "dedicated-"]],
      ["apply view-last-applied secrets", ["apply", "view-last-applied", "secret/db"]],
      ["explain secrets", ["explain", "Secret"]],
    ].map(([rule, argv]) => [rule as string, (argv as string[]).join(" "), argv as string[]] as const),
  )("deny [%s] denies kubectl %s", (rule, _, argv) => {
    expect(decide(kubectl, [rule], ["logs", "exec", "attach", "port-forward", "debug", "top", "taint", "apply", "explain"], argv)).toMatchObject({
      result: "deny",
      rule: { text: rule },
    });
  });

  it("a named command reads another name, type or container as another request", () => {
    expect(decide(kubectl, ["logs deployment/api"], ["logs"], ["logs", "deploy/web"]).result).toBe("accept");
    expect(decide(kubectl, ["logs deployment/api"], ["logs"], ["logs", "api"]).result).toBe("accept");
    expect(decide(kubectl, ["logs pods api"], ["logs"], ["logs", "pod/api", "sidecar"]).result).toBe("deny");
    expect(decide(kubectl, [], ["logs pod/api"], ["logs", "api"]).result).toBe("accept");
    expect(decide(kubectl, [], ["logs pod/api"], ["logs", "deploy/api"]).result).toBe("unresolved");
  });
});

describe("kubectl: each name of a call is read on its own, in any order", () => {
  it.each([
    [["delete", "secrets", "other", "prod-db"]],
    [["delete", "secret", "prod-db", "other"]],
    [["delete", "secret/other", "SECRET/prod-db"]],
    [["delete", "configmaps,secrets", "other", "prod-db", "--wait=false"]],
  ])("deny [delete secrets prod-db] denies kubectl %j", (argv) => {
    expect(decide(kubectl, ["delete secrets prod-db"], ["delete"], argv)).toMatchObject({ result: "deny", rule: { text: "delete secrets prod-db" } });
  });

  it("a rule naming several names is one rule per name", () => {
    expect(decide(kubectl, ["delete secrets a b"], ["delete"], ["delete", "secret", "b"]).result).toBe("deny");
    expect(decide(kubectl, [], ["delete secrets a b"], ["delete", "secret", "b", "a"]).result).toBe("accept");
  });

  it("a call is accepted only when every name is", () => {
    expect(decide(kubectl, [], ["delete secrets other"], ["delete", "secrets", "other", "prod-db"]).result).toBe("unresolved");
    expect(decide(kubectl, [], ["delete secrets other", "delete secrets prod-db"], ["delete", "secrets", "prod-db", "other"]).result).toBe("accept");
  });

  it("changes (label, annotate, taint, set env/image) follow each name", () => {
    expect(decide(kubectl, ["label pods web"], ["label"], ["label", "pods", "api", "web", "tier=front"]).result).toBe("deny");
    expect(decide(kubectl, ["label pods web team=x"], ["label"], ["label", "po", "api", "web", "team=x"]).result).toBe("deny");
    expect(decide(kubectl, ["label pods web team=x"], ["label"], ["label", "po", "api", "web", "team=y"]).result).toBe("accept");
    expect(decide(kubectl, [], ["set serviceaccount deployments web robot"], ["set", "serviceaccount", "deployment/web", "robot"]).result).toBe("accept");
    expect(decide(kubectl, [], ["set serviceaccount deployments web robot"], ["set", "serviceaccount", "deploy", "robot", "web"]).result).toBe("unresolved");
    expect(decide(kubectl, ["set serviceaccount deployments web"], ["set"], ["set", "serviceaccount", "deploy", "api", "web", "robot"]).result).toBe("deny");
    expect(decide(kubectl, ["set image deployments web"], ["set"], ["set", "image", "deploy/api", "deploy/web", "app=nginx:1.27"]).result).toBe("deny");
  });

  it("a call read more than 64 ways is denied (fail closed), 64 are read one by one", () => {
    const names = (count: number): string[] => Array.from({ length: count }, (_, i) => `pod-${i}`);
    expect(decide(kubectl, ["delete pods pod-63"], ["delete"], ["delete", "pods", ...names(64)])).toMatchObject({ result: "deny", source: "explicit-deny" });
    expect(decide(kubectl, [], ["delete pods"], ["delete", "pods", ...names(64)]).result).toBe("accept");
    expect(decide(kubectl, [], ["delete pods"], ["delete", "pods", ...names(65)])).toMatchObject({ result: "deny", source: "policy-error" });
    expect(decide(kubectl, [], ["delete"], ["delete", "pods,secrets", ...names(33)]).reason).toContain("split the call");
  });
});

describe("kubectl: a sub-command alias is read as the name kubectl lists first", () => {
  const rulesAlone = { ...kubectl, lockedCommands: [] };
  const yaml = readFileSync(fileURLToPath(new URL("../../../providers/kubectl/provider.yaml", import.meta.url)), "utf8");
  // The generated command table notes each alias path kubectl reports (`- path: [create, deploy]  # alias of create deployment`).
  const aliasPaths = [...yaml.matchAll(/- path: \[([^\]]+)\]\s+# alias of ([^\n]+)/gu)].map(([, path = "", canonical = ""]) => ({
    alias: path.split(", "),
    canonical: canonical.trim().split(" "),
  }));

  it("the generated table lists the aliases kubectl reports", () => {
    expect(aliasPaths.length).toBeGreaterThanOrEqual(20);
  });

  it.each(aliasPaths.map(({ alias, canonical }) => [alias.join(" "), canonical.join(" "), alias, canonical] as const))(
    "deny [%s] and deny [%s] each deny both spellings",
    (aliasText, canonicalText, alias, canonical) => {
      for (const [rule, argv] of [
        [canonicalText, [...alias, "x"]],
        [aliasText, [...canonical, "x"]],
      ] as const) {
        // The locked floor refuses `config use-context` before any rule is read: read the rules alone.
        expect(decide(rulesAlone, [rule], [canonical[0] as string], argv)).toMatchObject({ result: "deny", rule: { text: rule } });
        expect(decide(kubectl, [rule], [canonical[0] as string], argv).result).toBe("deny");
      }
    },
  );

  it("an accept covers the command it names in any spelling, and no other command", () => {
    expect(decide(kubectl, [], ["create cm"], ["create", "configmap", "app"]).result).toBe("accept");
    expect(decide(kubectl, [], ["create configmap"], ["create", "cm", "app"]).result).toBe("accept");
    expect(decide(kubectl, [], ["create cm"], ["create", "deploy", "app"]).result).toBe("unresolved");
    expect(decide(kubectl, [], ["create service clusterip"], ["create", "svc", "clusterip", "app"]).result).toBe("accept");
    expect(decide(kubectl, [], ["create svc clusterip"], ["create", "service", "nodeport", "app"]).result).toBe("unresolved");
    expect(decide(kubectl, [], ["set sa deployments web robot"], ["set", "serviceaccount", "deploy/web", "robot"]).result).toBe("accept");
  });

  it("operands keep their spelling: only the word after a parent command is a sub-command", () => {
    expect(decide(kubectl, ["create deployment ns"], ["create"], ["create", "deploy", "ns"]).result).toBe("deny");
    expect(decide(kubectl, ["create deployment ns"], ["create"], ["create", "deploy", "namespace"]).result).toBe("accept");
    expect(decide(kubectl, ["set serviceaccount deployments web sa"], ["set"], ["set", "sa", "deploy/web", "serviceaccount"]).result).toBe("accept");
  });

  it("a table that gives one alias two sub-commands is refused", () => {
    const file = parse(yaml) as { policy: { resource_types: { command_aliases: Record<string, Record<string, string[]>> } } };
    file.policy.resource_types.command_aliases["create"] = { deployment: ["deploy"], daemonset: ["deploy"] };
    expect(() => providerFileSchema.parse(file)).toThrow(/create deploy\\?" names more than one sub-command/);
    file.policy.resource_types.command_aliases["create"] = { deployment: ["deploy"], deploy: ["d"] };
    expect(() => providerFileSchema.parse(file)).toThrow(/create deploy\\?" names more than one sub-command/);
  });
});

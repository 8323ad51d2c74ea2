/**
 * Uploads of local files and directories in the bundled aws and kubectl tables
 * (`argv.file_reads`, generated): a call with one is held from broad accept
 * rules like a file write, so only a rule naming its command path (or the
 * operator) lets the CLI read the path and send it to the cloud or the cluster.
 */
import { describe, expect, it } from "vitest";
import { providerPolicyContext } from "../../../src/config/policy-context.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, bundledProviderConfig, ruleList } from "../../support/policy-helpers.js";

const contexts = { aws: bundledPolicyContext("aws"), kubectl: bundledPolicyContext("kubectl"), gcloud: bundledPolicyContext("gcloud") };

function decide(tool: keyof typeof contexts, accept: readonly string[], argv: readonly string[]) {
  return evaluatePolicy(compilePolicy(contexts[tool], { shared: ruleList([], accept) }), argv).decision;
}

/** Held under a broad accept, with a reason naming the command path and argument and no value. */
function expectHeld(tool: keyof typeof contexts, argv: readonly string[], path: string, argument: string, secret: string): void {
  // A literal shorter than the command path is broad too; for a one-word path the first word names it.
  for (const broad of path.includes(" ") ? ["/.*/", argv[0] as string] : ["/.*/"]) {
    const decision = decide(tool, [broad], argv);
    expect(decision.result, `${broad}: ${argv.join(" ")}`).toBe("unresolved");
    expect(decision.reason).toContain(`${tool} ${path} reads a local file or directory at the path given by ${argument}`);
    expect(decision.reason).not.toContain(secret);
  }
}

describe("aws uploads of local files", () => {
  it.each([
    ["ecs deploy --task-definition", ["ecs", "deploy", "--service", "a", "--task-definition", "notes-td.json"], "ecs deploy", "--task-definition"],
    ["ecs deploy --codedeploy-appspec", ["ecs", "deploy", "--service", "a", "--codedeploy-appspec=notes-as.yml"], "ecs deploy", "--codedeploy-appspec"],
    ["ecs deploy --task-def (a prefix)", ["ecs", "deploy", "--task-def", "notes-td.json"], "ecs deploy", "--task-definition"],
    [
      "servicecatalog generate product --file-path",
      ["servicecatalog", "generate", "product", "--product-name", "p", "--file-path", "notes.zip"],
      "servicecatalog generate product",
      "--file-path",
    ],
    [
      "servicecatalog generate provisioning-artifact --file-path",
      ["servicecatalog", "generate", "provisioning-artifact", "--file-path=notes.zip", "--product-id", "p"],
      "servicecatalog generate provisioning-artifact",
      "--file-path",
    ],
    [
      "cloudformation deploy ... push --source (CodeDeploy's push under every deploy)",
      [
        "cloudformation",
        "deploy",
        "--template-file=t.yaml",
        "--stack-name",
        "s",
        "push",
        "--application-name",
        "a",
        "--s3-location",
        "s3://b/k",
        "--source",
        "notes",
      ],
      "cloudformation deploy push",
      "--source",
    ],
    [
      "ecs deploy push --source",
      ["ecs", "deploy", "push", "--application-name", "a", "--s3-location", "s3://b/k", "--source", "notes"],
      "ecs deploy push",
      "--source",
    ],
  ])("%s is held from a broad accept", (_name, argv, path, argument) => {
    expectHeld("aws", argv, path, argument, "notes");
  });

  // CodeDeploy's push zips and uploads the working directory when --source is left out (its default is `.`).
  it.each([
    ["deploy push", ["deploy", "push", "--application-name", "a", "--s3-location", "s3://b/k"]],
    [
      "cloudformation deploy push",
      ["cloudformation", "deploy", "--template-file=t.yaml", "--stack-name", "s", "push", "--application-name", "a", "--s3-location", "s3://b/k"],
    ],
    ["ecs deploy push", ["ecs", "deploy", "push", "--application-name", "a", "--s3-location", "s3://b/k"]],
  ])("%s without --source (the working directory) is held from a broad accept", (path, argv) => {
    expectHeld("aws", argv, path, "--source, or at . when --source is left out", "s3://b/k");
  });

  it("a rule naming the command path accepts the upload", () => {
    expect(decide("aws", ["deploy push"], ["deploy", "push", "--application-name", "a", "--s3-location", "s3://b/k"]).result).toBe("accept");
    expect(decide("aws", ["ecs deploy"], ["ecs", "deploy", "--service", "a", "--task-definition", "td.json"]).result).toBe("accept");
    expect(decide("aws", ["servicecatalog generate product"], ["servicecatalog", "generate", "product", "--file-path", "p.zip"]).result).toBe("accept");
  });
});

describe("gcloud uploads of the working directory when the source flag is left out", () => {
  it.each([
    ["run deploy", ["run", "deploy", "svc"]],
    ["run deploy", ["beta", "run", "deploy", "svc", "--region", "r"]],
    ["run jobs deploy", ["run", "jobs", "deploy", "job"]],
    ["functions deploy", ["functions", "deploy", "fn", "--runtime", "python311", "--trigger-http"]],
    ["deploy releases create", ["deploy", "releases", "create", "rel", "--delivery-pipeline", "p", "--region", "r"]],
    ["artifacts go upload", ["artifacts", "go", "upload", "--repository", "r", "--module-path", "m", "--version", "v1.0.0"]],
  ])("%s %j is held from a broad accept", (path, argv) => {
    // gcloud's rows are folded across release tracks: the hold names the path without its track word.
    const decision = decide("gcloud", ["/.*/"], argv);
    expect(decision.result, argv.join(" ")).toBe("unresolved");
    expect(decision.reason).toMatch(
      new RegExp(`^gcloud (beta )?${path} reads a local file or directory at the path given by --source, or at \\. when --source is left out`, "u"),
    );
  });

  it("a rule naming the command path accepts the upload", () => {
    expect(decide("gcloud", ["run deploy"], ["run", "deploy", "svc"]).result).toBe("accept");
  });
});

describe("kubectl uploads of local files and directories", () => {
  it.each([
    ["create secret generic --from-file DIR", ["create", "secret", "generic", "s", "--from-file", "notes-dir"], "create secret generic", "--from-file"],
    ["create secret generic --from-file=key=PATH", ["create", "secret", "generic", "s", "--from-file=k=notes.txt"], "create secret generic", "--from-file"],
    ["create secret generic --from-env-file", ["create", "secret", "generic", "s", "--from-env-file=notes.txt"], "create secret generic", "--from-env-file"],
    ["create configmap --from-file", ["create", "configmap", "c", "--from-file=notes-dir"], "create configmap", "--from-file"],
    ["create configmap --from-env-file", ["create", "configmap", "c", "--from-env-file", "notes.txt"], "create configmap", "--from-env-file"],
    ["create secret tls --key", ["create", "secret", "tls", "t", "--key=notes.key"], "create secret tls", "--key"],
    ["apply -f DIR", ["apply", "-f", "notes-dir"], "apply", "--filename"],
    ["apply -R -f DIR", ["apply", "-R", "-fnotes-dir"], "apply", "--filename"],
    ["apply -k DIR", ["apply", "-k", "notes-dir"], "apply", "--kustomize"],
    ["apply --kustomize=DIR", ["apply", "--kustomize=notes-dir"], "apply", "--kustomize"],
    ["create -f", ["create", "-f", "notes.yaml"], "create", "--filename"],
    ["replace -f", ["replace", "--filename=notes.yaml"], "replace", "--filename"],
    ["diff -f", ["diff", "-f", "notes.yaml"], "diff", "--filename"],
    ["delete -f", ["delete", "-f", "notes.yaml"], "delete", "--filename"],
    ["delete -k", ["delete", "-k", "notes-dir"], "delete", "--kustomize"],
    ["kustomize DIR", ["kustomize", "notes-dir"], "kustomize", "its dir operand"],
  ])("%s is held from a broad accept", (_name, argv, path, argument) => {
    expectHeld("kubectl", argv, path, argument, "notes");
  });

  it("a rule naming the command path accepts it; stdin (-f -) reads nothing", () => {
    expect(decide("kubectl", ["apply"], ["apply", "-f", "deploy.yaml"]).result).toBe("accept");
    expect(decide("kubectl", ["create secret generic"], ["create", "secret", "generic", "s", "--from-file=dir"]).result).toBe("accept");
    expect(decide("kubectl", ["/.*/"], ["apply", "-f", "-"]).result).toBe("accept");
    expect(decide("kubectl", ["/.*/"], ["get", "pods"]).result).toBe("accept");
    expect(decide("kubectl", ["/.*/"], ["create", "secret", "generic", "s", "--from-literal=k=v"]).result).toBe("accept");
  });

  it("a credential store named by an upload is refused whatever the rules", () => {
    const decision = decide("kubectl", ["/.*/", "create secret generic"], ["create", "secret", "generic", "s", "--from-file=/root/.kube"]);
    expect(decision.result).toBe("deny");
  });
});

describe("a provider.yaml installed before these rows (the floor)", () => {
  /** The bundled provider without its file_reads block, as an operator tree installed earlier holds it. */
  function stale(name: "aws" | "kubectl") {
    const config = bundledProviderConfig(name); // a fresh object: the test may change it
    delete config.argv?.file_reads;
    return providerPolicyContext(config);
  }

  it.each([
    ["kubectl", ["apply", "-f", "notes-dir"], "apply --filename"],
    ["kubectl", ["delete", "-k", "notes-dir"], "delete --kustomize"],
    ["kubectl", ["create", "secret", "generic", "s", "--from-file=notes-dir"], "create secret generic --from-file"],
    ["kubectl", ["create", "cm", "c", "--from-env-file", "notes.txt"], "create cm --from-env-file"],
    ["aws", ["cloudformation", "deploy", "--template-file", "t", "--stack-name", "s", "push", "--source", "notes-dir"], "cloudformation deploy push --source"],
    ["aws", ["ecs", "deploy", "--service", "a", "--task-definition", "notes.json"], "ecs deploy --task-definition"],
    // Without --source, push uploads the working directory: the floor's row carries the default.
    ["aws", ["deploy", "push", "--application-name", "a", "--s3-location", "s3://b/k"], "deploy push --source"],
    ["aws", ["ecs", "deploy", "push", "--application-name", "a", "--s3-location", "s3://b/k"], "ecs deploy push --source"],
  ] as const)("%s %j is held from accept /.*/", (tool, argv, named) => {
    const decision = evaluatePolicy(compilePolicy(stale(tool), { shared: ruleList([], ["/.*/"]) }), argv).decision;
    expect(decision.result).toBe("unresolved");
    const [path, argument] = [named.slice(0, named.lastIndexOf(" ")), named.slice(named.lastIndexOf(" ") + 1)];
    expect(decision.reason).toContain(`${tool} ${path} reads a local file or directory at the path given by ${argument}`);
  });
});

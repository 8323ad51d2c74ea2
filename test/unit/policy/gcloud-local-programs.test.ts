/**
 * gcloud arguments that hand the caller's words to a local program (red team 9b
 * F2): `--ssh-flag`, `--scp-flag` and the `--` tail of every ssh/scp command of
 * every release track, and `gcloud docker`'s tail, are refused in every
 * spelling under rules that accept the command; a remote `--` tail
 * (`dataproc jobs submit spark -- ARG`) stays up to the rules. Through the
 * bundled gcloud provider as the server builds it.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadProviderDocument } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { expectConfigErrorAt, tempDir, writeTree, yaml } from "../config/temp-tree.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const gcloud = bundledPolicyContext("gcloud");
const ACCEPT = ["compute", "beta compute", "alpha compute", "cloud-shell", "workstations", "docker", "dataproc"];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(gcloud, { shared: ruleList([], ACCEPT) }), argv).decision;
const PROXY = "-oProxyCommand=touch /tmp/x";

describe("gcloud: words handed to a local ssh, scp or docker are refused whatever the rules", () => {
  it.each(
    [
      ["compute", "ssh", "vm1", "--zone=z", `--ssh-flag=${PROXY}`],
      ["compute", "ssh", "vm1", "--ssh-flag", PROXY],
      ["compute", "ssh", "--ssh-fl", PROXY, "vm1"],
      ["compute", "ssh", "vm1", "--zone=z", "--", PROXY],
      ["compute", "ssh", "--", "vm1"],
      ["compute", "scp", "a", "vm1:b", "--scp-flag", PROXY],
      ["compute", "scp", "a", "vm1:b", "--", PROXY],
      ["beta", "compute", "ssh", "vm1", `--ssh-flag=${PROXY}`],
      ["alpha", "compute", "tpus", "tpu-vm", "ssh", "tpu1", "--", PROXY],
      ["compute", "tpus", "queued-resources", "scp", "a", "q:b", "--scp-flag", PROXY],
      ["compute", "diagnose", "routes", "--ssh-flag", PROXY],
      ["cloud-shell", "ssh", "--ssh-flag", PROXY],
      ["workstations", "ssh", "ws", "--", PROXY],
      ["docker", "--", "run", "-v", "/:/host", "img"],
      ["docker", "--docker-host=tcp://10.0.0.1:2375"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("gcloud %s is refused", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it("the denial names the command and option, never the agent's value", () => {
    const decision = decide(["compute", "ssh", "vm1", "--", PROXY]);
    expect(decision.reason).toContain('starts the -- arguments of "compute ssh"');
    expect(decision.reason).not.toContain("touch /tmp/x");
  });

  it("the same commands without a pass-through, and a remote -- tail, stay up to the rules", () => {
    expect(decide(["compute", "ssh", "vm1", "--zone=z", "--command=uptime"]).result).toBe("accept");
    expect(decide(["compute", "scp", "vm1:a", "b", "--zone=z"]).result).not.toBe("deny");
    expect(decide(["dataproc", "jobs", "submit", "spark", "--class=x", "--", "arg"]).result).toBe("accept");
  });
});

describe("provider.yaml: locked_command_options rows with tail", () => {
  it("a row needs options, tail: true, or both", () => {
    const root = tempDir();
    const base = ['version: "1"', "name: g", "tool: g", "command: g", "argv:", "  parser: argparse", "  locked_command_options:"];
    writeTree(root, { "provider.yaml": yaml(...base, "    - {command: [compute, ssh]}") });
    const file = path.join(root, "provider.yaml");
    expectConfigErrorAt(() => loadProviderDocument(file), file, 8, 7, /needs options, tail: true, or both/);
    writeTree(root, { "provider.yaml": yaml(...base, "    - {command: [docker], tail: true}") });
    expect(loadProviderDocument(file).value.argv?.locked_command_options).toEqual([{ command: ["docker"], options: [], tail: true }]);
  });
});

describe("gcloud: commands that run a local program on the caller's code, a shell or the SDK's maintenance group are refused whatever the rules", () => {
  const decideBroad = (argv: readonly string[]) => evaluatePolicy(compilePolicy(gcloud, { shared: ruleList([], ["/.*/"]) }), argv).decision;

  it.each(
    [
      ["ai-platform", "local", "train", "--module-name=trainer.task", "--package-path=."],
      ["ai-platform", "local", "predict", "--model-dir=m", "--json-instances=i.json"],
      ["beta", "ml-engine", "local", "train", "--module-name=t", "--package-path=."],
      ["ai", "custom-jobs", "local-run", "--executor-image-uri=img", "--script=train.py"],
      ["beta", "code", "dev", "--dockerfile=Dockerfile"],
      ["alpha", "code", "clean-up"],
      ["alpha", "functions", "local", "deploy", "f", "--entry-point=main"],
      ["alpha", "interactive"],
      ["alpha", "spanner", "cli", "db", "--instance=i", "--system-command=ON", "--tee=/tmp/out"],
      ["meta", "debug"],
      ["meta", "list-commands"],
      ["init", "--console-only"],
      ["beta", "init"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("gcloud %s is refused", (_, argv) => {
    const decision = decideBroad(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-command" });
    expect(decision.reason).toMatch(/local program|shell|maintenance group|configuration/u);
  });

  it("their remote neighbours stay up to the rules", () => {
    expect(decideBroad(["ai-platform", "jobs", "list"]).result).toBe("accept");
    expect(decideBroad(["ai", "custom-jobs", "list", "--region=r"]).result).toBe("accept");
    expect(decideBroad(["functions", "list"]).result).toBe("accept");
  });
});

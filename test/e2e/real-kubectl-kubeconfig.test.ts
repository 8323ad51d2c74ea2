/**
 * A kubectl_context target that pins `kubeconfig:`: `torii target add
 * --kubeconfig` validates the context in that file, the real kubectl reads it
 * (through the built server and the MCP SDK's client) and reaches the local
 * API server it names, the identity check sees the same file, the server's own
 * KUBECONFIG is never used, the agent cannot pass its own, and changing the
 * path ends the lease.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { KUBECONFIG_IDENTITY_BIN, KUBECONFIG_IDENTITY_PROVIDER, startKubeApiStub, type KubeApiStub } from "../support/kube-api-stub.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

function kubeconfig(server: string, context: string, namespace: string): string {
  return `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${server}'}}]\ncontexts: [{name: ${context}, context: {cluster: c, user: u, namespace: ${namespace}}}]\nusers: [{name: u, user: {username: lab}}]\n`;
}

let api: KubeApiStub;
let hostile: KubeApiStub;
let root: string;
let pinned: string;
let session: McpSession;
const cli = (...args: string[]) =>
  runCli(args, { TORII_CONFIG_DIR: root, HOME: path.dirname(pinned), KUBECONFIG: path.join(path.dirname(pinned), "server-kubeconfig") });

beforeAll(async () => {
  api = await startKubeApiStub(["web-1", "web-2"]);
  hostile = await startKubeApiStub(["hostile-pod"]);
  const dir = tempDirectory("torii-kube-");
  pinned = path.join(dir, "lab-kubeconfig");
  writeFileSync(pinned, kubeconfig(api.url, "lab", "team"), { mode: 0o600 });
  // The server's (and the operator shell's) own KUBECONFIG: another server, no "lab" context.
  writeFileSync(path.join(dir, "server-kubeconfig"), kubeconfig(hostile.url, "other", "default"));
  // The default kubeconfig of that HOME: no "lab" context either.
  mkdirSync(path.join(dir, ".kube"));
  writeFileSync(path.join(dir, ".kube", "config"), kubeconfig(hostile.url, "other", "default"));
  const bin = makeFakeBin(KUBECONFIG_IDENTITY_BIN);
  root = makeConfigTree({
    ...bundledProviderFiles("kubectl"),
    "providers/kubectl/rules.yaml": 'version: "1"\naccept: [get pods]\n',
    "providers/kubeid/provider.yaml": KUBECONFIG_IDENTITY_PROVIDER,
    "providers/kubeid/rules.yaml": 'version: "1"\n',
  });
  const added = await cli("target", "add", "kubectl", "lab", "--context", "lab", "--kubeconfig", pinned, "--provider", "kubeid", "--expect", pinned);
  expect(added.stderr).toBe("");
  expect(added.status).toBe(0);
  expect((await cli("target", "activate", "kubectl", "lab")).status).toBe(0);
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, HOME: dir, KUBECONFIG: path.join(dir, "server-kubeconfig") });
});

afterAll(async () => {
  await session.close();
  await api.close();
  await hostile.close();
});

describe("kubeconfig: in target.yaml", () => {
  test("torii target add validates the context in the --kubeconfig file, and refuses a relative path", async () => {
    expect(readFileSync(path.join(root, "providers/kubectl/targets/lab/target.yaml"), "utf8")).toContain(`kubeconfig: ${pinned}`);
    const missing = await cli("target", "add", "kubectl", "nope", "--context", "lab", "--provider", "kubeid");
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('has no context "lab"');
    const relative = await cli("target", "add", "kubectl", "rel", "--context", "lab", "--kubeconfig", "kc", "--provider", "kubeid");
    expect(relative.stderr).toContain("--kubeconfig must be an absolute path");
  });

  test("the real kubectl get pods reads the pinned kubeconfig, after the identity check saw the same file", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods"], target: "lab" }, { timeout: 60_000 }));
    expect(outcome.decision).toMatchObject({ result: "allow" });
    expect(outcome.execution?.exit_code).toBe(0);
    expect(outcome.execution?.stdout).toMatch(/web-1[\s\S]*web-2/u);
    expect(api.requests.map((request) => request.path)).toContain("/api/v1/namespaces/team/pods");
    expect(hostile.requests).toEqual([]);
  });

  test("the agent cannot pass its own kubeconfig", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods", "--kubeconfig=/tmp/mine"], target: "lab" }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-option" });
  });

  test("changing the kubeconfig path in target.yaml ends the lease", async () => {
    const file = path.join(root, "providers/kubectl/targets/lab/target.yaml");
    const moved = `${pinned}.moved`;
    writeFileSync(moved, readFileSync(pinned));
    writeFileSync(file, readFileSync(file, "utf8").replace(`kubeconfig: ${pinned}`, `kubeconfig: ${moved}`));
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods"], target: "lab" }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "target-inactive" });
    expect(outcome.decision.reason).toContain("target.yaml changed");
  });
});

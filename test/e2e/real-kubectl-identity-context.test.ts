/**
 * The identity probe of a kubectl_context target checks the target's context,
 * not the kubeconfig's current-context. The kubeconfig holds two contexts; its
 * current-context is `dev`, the target's is `staging`. The identity provider
 * runs the real `kubectl config view --minify -o json` and reports
 * `current-context`: the call runs with `--context=staging`, so the probe must
 * see `staging` too (pipeline/child-kubeconfig.ts, withKubeContext).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { startKubeApiStub, type KubeApiStub } from "../support/kube-api-stub.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

/** An identity-only provider whose probe is the real kubectl reporting the context it resolved. */
const CONTEXT_IDENTITY_PROVIDER = `version: "1"
name: kubectx
tool: kubectx
expose: false
command: kubectl
auth:
  identity: {command: kubectl, args: [config, view, --minify, -o, json], field: current-context}
`;

let staging: KubeApiStub;
let dev: KubeApiStub;
let root: string;
let kubeconfig: string;
let session: McpSession;
const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root, HOME: path.dirname(kubeconfig) });

beforeAll(async () => {
  staging = await startKubeApiStub(["staging-pod"]);
  dev = await startKubeApiStub(["dev-pod"]);
  const dir = tempDirectory("torii-kube-ctx-");
  kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      `clusters: [{name: s, cluster: {server: '${staging.url}'}}, {name: d, cluster: {server: '${dev.url}'}}]`,
      "contexts: [{name: staging, context: {cluster: s, user: u, namespace: team}}, {name: dev, context: {cluster: d, user: u, namespace: team}}]",
      "users: [{name: u, user: {username: lab}}]",
      "current-context: dev",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  root = makeConfigTree({
    ...bundledProviderFiles("kubectl"),
    "providers/kubectl/rules.yaml": 'version: "1"\naccept: [get pods]\n',
    "providers/kubectx/provider.yaml": CONTEXT_IDENTITY_PROVIDER,
    "providers/kubectx/rules.yaml": 'version: "1"\n',
  });
  for (const [alias, expect_] of [
    ["staging", "staging"],
    ["pinned-dev", "dev"],
  ] as const) {
    const added = await cli(
      "target",
      "add",
      "kubectl",
      alias,
      "--context",
      "staging",
      "--kubeconfig",
      kubeconfig,
      "--provider",
      "kubectx",
      "--expect",
      expect_,
    );
    expect(added.stderr).toBe("");
    expect((await cli("target", "activate", "kubectl", alias, "--add")).status).toBe(0);
  }
  session = await startSession(root, { HOME: dir });
});

afterAll(async () => {
  await session.close();
  await staging.close();
  await dev.close();
});

describe("kubectl_context: the identity probe runs against the target's context", () => {
  test("a target on the kubeconfig's non-current context passes its identity check and reaches its own API server", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods"], target: "staging" }, { timeout: 60_000 }));
    expect(outcome.decision, JSON.stringify(outcome.decision)).toMatchObject({ result: "allow" });
    expect(outcome.execution?.stdout).toContain("staging-pod");
    expect(dev.requests).toEqual([]);
  });

  test("a target whose expected identity is the kubeconfig's current-context is refused: the probe saw the target's context", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods"], target: "pinned-dev" }, { timeout: 60_000 }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "identity-mismatch" });
    expect(dev.requests).toEqual([]);
    expect(staging.requests.filter((request) => request.path.includes("pods"))).toHaveLength(1);
  });
});

/**
 * An accept rule naming a namespace, through the built server and the real
 * kubectl against a 127.0.0.1 API stub: `--all-namespaces` wins over
 * `--namespace` (`get pods -A -n team` lists every namespace, GET
 * /api/v1/pods), so `accept: [get pods -n team]` runs `get pods -n team` and
 * nothing of `get pods -n team -A` in any spelling: headless, it is denied and
 * the API server receives no request.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { KUBECONFIG_IDENTITY_BIN, KUBECONFIG_IDENTITY_PROVIDER, startKubeApiStub, type KubeApiStub } from "../support/kube-api-stub.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const RULES = 'version: "1"\naccept: [get pods -n team]\n';

let api: KubeApiStub;
let session: McpSession;

beforeAll(async () => {
  api = await startKubeApiStub(["web-1"]);
  const dir = tempDirectory("torii-kube-accept-scope-");
  const pinned = path.join(dir, "lab-kubeconfig");
  writeFileSync(
    pinned,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${api.url}'}}]\ncontexts: [{name: lab, context: {cluster: c, user: u, namespace: team}}]\nusers: [{name: u, user: {token: lab-bearer-token-123}}]\n`,
    { mode: 0o600 },
  );
  const bin = makeFakeBin(KUBECONFIG_IDENTITY_BIN);
  const root = makeConfigTree({
    ...bundledProviderFiles("kubectl"),
    "providers/kubectl/rules.yaml": RULES,
    "providers/kubeid/provider.yaml": KUBECONFIG_IDENTITY_PROVIDER,
    "providers/kubeid/rules.yaml": 'version: "1"\n',
  });
  const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root, HOME: dir });
  expect((await cli("target", "add", "kubectl", "lab", "--context", "lab", "--kubeconfig", pinned, "--provider", "kubeid", "--expect", pinned)).status).toBe(0);
  expect((await cli("target", "activate", "kubectl", "lab")).status).toBe(0);
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, HOME: dir });
});

afterAll(async () => {
  await session.close();
  await api.close();
});

beforeEach(() => {
  api.requests.length = 0;
});

describe("kubectl: an accept rule naming a namespace does not accept --all-namespaces", () => {
  test("get pods -n team runs in team", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods", "-n", "team"], target: "lab" }, { timeout: 60_000 }));
    expect(outcome.decision).toMatchObject({ result: "allow", rule: "get pods -n team" });
    expect(outcome.execution?.stdout).toContain("web-1");
    expect(api.requests.map((request) => request.path)).toContain("/api/v1/namespaces/team/pods");
  });

  test.each([[["get", "pods", "-n", "team", "-A"]], [["get", "pods", "-A", "-n", "team"]], [["get", "pods", "--all-namespaces=true", "--namespace=team"]]])(
    "%j (kubectl lists every namespace) is not accepted: nothing reaches the API server",
    async (args) => {
      const outcome = outcomeOf(await session.call("kubectl", { args, target: "lab" }, { timeout: 60_000 }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "headless" });
      expect(outcome.execution).toBeUndefined();
      expect(api.requests).toEqual([]);
    },
    60_000,
  );
});

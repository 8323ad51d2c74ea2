/**
 * `kubectl create --raw URI -f FILE` POSTs FILE to any API path, and
 * `/api/v1/namespaces/NS/serviceaccounts/SA/token` is the TokenRequest subresource the
 * locked `create token` calls: the API server reads any JSON object there as a request
 * for a token. With rules that accept `create`, the built server refuses the raw POST
 * before the lease, the environment or kubectl, and the real kubectl never reaches the
 * API server; `create --raw` is a credential issuer of the bundled kubectl
 * (docs/policy.md, "Credential issuers"). A `create` the rules accept still runs.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { KUBECONFIG_IDENTITY_BIN, KUBECONFIG_IDENTITY_PROVIDER, startKubeApiStub, type KubeApiStub } from "../support/kube-api-stub.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const RULES = 'version: "1"\naccept: [create, get pods]\n';
const TOKEN_PATH = "/api/v1/namespaces/team/serviceaccounts/default/token";

let api: KubeApiStub;
let root: string;
let session: McpSession;

beforeAll(async () => {
  api = await startKubeApiStub(["web-1"]);
  const dir = tempDirectory("torii-kube-raw-token-");
  const pinned = path.join(dir, "lab-kubeconfig");
  writeFileSync(
    pinned,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${api.url}'}}]\ncontexts: [{name: lab, context: {cluster: c, user: u, namespace: team}}]\nusers: [{name: u, user: {token: lab-bearer-token-123}}]\n`,
    { mode: 0o600 },
  );
  // Any JSON object of the project would do as the body: the kind comes from the path.
  writeFileSync(path.join(dir, "package.json"), '{"name": "app"}\n');
  const bin = makeFakeBin(KUBECONFIG_IDENTITY_BIN);
  root = makeConfigTree({
    ...bundledProviderFiles("kubectl"),
    "providers/kubectl/rules.yaml": RULES,
    "providers/kubeid/provider.yaml": KUBECONFIG_IDENTITY_PROVIDER,
    "providers/kubeid/rules.yaml": 'version: "1"\n',
  });
  const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root, HOME: dir });
  expect((await cli("target", "add", "kubectl", "lab", "--context", "lab", "--kubeconfig", pinned, "--provider", "kubeid", "--expect", pinned)).status).toBe(0);
  expect((await cli("target", "activate", "kubectl", "lab")).status).toBe(0);
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, HOME: dir }, { cwd: dir });
});

afterAll(async () => {
  await session?.close();
  await api?.close();
});

describe("kubectl create --raw to a token subresource", () => {
  test.each([[["create", "--raw", TOKEN_PATH, "-f", "package.json"]], [["create", "-f", "-", `--raw=${TOKEN_PATH}`]]])(
    "%j is refused although a rule accepts create, and nothing reaches the API server",
    async (args) => {
      const outcome = outcomeOf(await session.call("kubectl", { args, target: "lab" }, { timeout: 60_000 }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-option" });
      expect(outcome.decision.reason).toContain("it prints a credential usable outside Torii");
      expect(outcome.execution).toBeUndefined();
      expect(api.requests.filter((request) => request.method === "POST")).toEqual([]);
    },
    60_000,
  );

  test("a read the rules accept still runs with the real kubectl", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods"], target: "lab" }, { timeout: 60_000 }));
    expect(outcome.decision).toMatchObject({ result: "allow" });
    expect(outcome.execution?.stdout).toContain("web-1");
  }, 60_000);
});

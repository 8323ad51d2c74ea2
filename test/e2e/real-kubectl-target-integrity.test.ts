/**
 * An allowed call can never rewrite what a kubectl target means: with rules that
 * accept `config set` (the red team's reproduction), the built server refuses it
 * before the lease, the environment or kubectl, the pinned kubeconfig is left
 * as it was, and the real kubectl's next `get pods` still reaches the target's
 * API server, never the one the agent named. Read-only `config get-contexts` stays up to
 * the rules and runs. `torii policy check` gives the same answer.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { KUBECONFIG_IDENTITY_BIN, KUBECONFIG_IDENTITY_PROVIDER, startKubeApiStub, type KubeApiStub } from "../support/kube-api-stub.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

/** What the red team's rules accepted, plus a read-only view. */
const RULES = 'version: "1"\naccept: [get pods, config set, config set-cluster, config use-context, config get-contexts, config view]\n';

let api: KubeApiStub;
let hostile: KubeApiStub;
let root: string;
let pinned: string;
let original: string;
let session: McpSession;
const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root, HOME: path.dirname(pinned) });

beforeAll(async () => {
  api = await startKubeApiStub(["web-1"]);
  hostile = await startKubeApiStub(["hostile-pod"]);
  const dir = tempDirectory("torii-kube-integrity-");
  pinned = path.join(dir, "lab-kubeconfig");
  original = `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${api.url}'}}]\ncontexts: [{name: lab, context: {cluster: c, user: u, namespace: team}}]\nusers: [{name: u, user: {token: lab-bearer-token-123}}]\n`;
  writeFileSync(pinned, original, { mode: 0o600 });
  const bin = makeFakeBin(KUBECONFIG_IDENTITY_BIN);
  root = makeConfigTree({
    ...bundledProviderFiles("kubectl"),
    "providers/kubectl/rules.yaml": RULES,
    "providers/kubeid/provider.yaml": KUBECONFIG_IDENTITY_PROVIDER,
    "providers/kubeid/rules.yaml": 'version: "1"\n',
  });
  expect((await cli("target", "add", "kubectl", "lab", "--context", "lab", "--kubeconfig", pinned, "--provider", "kubeid", "--expect", pinned)).status).toBe(0);
  expect((await cli("target", "activate", "kubectl", "lab")).status).toBe(0);
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, HOME: dir });
});

afterAll(async () => {
  await session.close();
  await api.close();
  await hostile.close();
});

describe("kubectl_context: config writers are the broker's", () => {
  test.each([
    [["config", "set", "clusters.c.server", "HOSTILE"]],
    [["config", "set-cluster", "c"]],
    [["config", "use-context", "lab"]],
    [["config", "use", "lab"]],
  ])(
    "%j is refused although a rule accepts it, and the kubeconfig is unchanged",
    async (args) => {
      const withUrl = args.map((word) => (word === "HOSTILE" ? hostile.url : word));
      const outcome = outcomeOf(await session.call("kubectl", { args: withUrl, target: "lab" }, { timeout: 60_000 }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-command" });
      expect(outcome.decision.reason).toContain("No rule, grant or approval can allow them");
      expect(outcome.decision.reason).not.toContain(hostile.url);
      expect(outcome.execution).toBeUndefined();
      expect(readFileSync(pinned, "utf8")).toBe(original);
    },
    60_000,
  );

  test("the next get pods still reaches the target's API server with the real kubectl", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods"], target: "lab" }, { timeout: 60_000 }));
    expect(outcome.decision).toMatchObject({ result: "allow" });
    expect(outcome.execution?.stdout).toContain("web-1");
    expect(hostile.requests).toEqual([]);
  });

  test("config get-contexts stays up to the rules and runs", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["config", "get-contexts", "-o", "name"], target: "lab" }, { timeout: 60_000 }));
    expect(outcome.decision).toMatchObject({ result: "allow" });
    expect(outcome.execution?.stdout.trim()).toBe("lab");
  });

  test("config view is refused even when a rule accepts it: kubectl prints OIDC and exec secrets unredacted", async () => {
    const outcome = outcomeOf(
      await session.call("kubectl", { args: ["config", "view", "-o", "jsonpath={.clusters[0].name}"], target: "lab" }, { timeout: 60_000 }),
    );
    expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-command" });
    expect(outcome.execution).toBeUndefined();
  });

  test("the audit names the floor's command, never the agent's words", () => {
    const log = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    expect(log).toContain('"denied-locked-command"');
    expect(log).not.toContain(hostile.url);
  });

  test("torii policy check refuses it alike", async () => {
    const result = await cli("policy", "check", "kubectl", "--", "config", "set", "clusters.c.server", hostile.url);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: "deny", source: "locked-command" });
  });
});

/**
 * The real kubectl and `kustomize --helm-command`, which runs a program the agent
 * names. Control, without Torii: `kubectl kustomize DIR --enable-helm
 * --helm-command=SCRIPT` runs SCRIPT (it writes a marker file). Through the built
 * server, with rules accepting every kustomize call and a provider.yaml installed
 * before kubectl's table listed these options (the kubectl_context floor locks
 * them), the call is refused in both spellings, the script never runs and the
 * reason does not quote its path.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { KUBECONFIG_IDENTITY_BIN, KUBECONFIG_IDENTITY_PROVIDER, startKubeApiStub, type KubeApiStub } from "../support/kube-api-stub.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const KUBECTL = readFileSync(fileURLToPath(new URL("../../providers/kubectl/provider.yaml", import.meta.url)), "utf8");
/** The bundled definition as installed before it locked these kustomize options. */
const STALE_KUBECTL = KUBECTL.replace(/\n {2}# Options with which kubectl runs a local program[\s\S]*?(?=\n {2}# `kubectl options`)/u, "");

let api: KubeApiStub;
let home: string;
let app: string;
let helm: string;
let marker: string;
let bin: FakeBin;
let session: McpSession;

const childEnv = (): Record<string, string> => ({ PATH: `${bin.dir}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: home });

beforeAll(async () => {
  expect(STALE_KUBECTL).not.toContain("locked_command_options");
  api = await startKubeApiStub([]);
  home = tempDirectory("torii-kube-programs-");
  mkdirSync(path.join(home, ".kube"));
  const pinned = path.join(home, ".kube", "config");
  writeFileSync(
    pinned,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${api.url}'}}]\ncontexts: [{name: lab, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: lab-bearer-token-123}}]\n`,
    { mode: 0o600 },
  );
  app = path.join(home, "app");
  mkdirSync(app);
  // Kustomize runs the helm command (`version` first) for any helmCharts entry.
  writeFileSync(path.join(app, "kustomization.yaml"), "helmCharts:\n  - name: web\n    version: 1.0.0\n    repo: http://127.0.0.1:9/charts\n");
  marker = path.join(home, "helm-ran");
  helm = path.join(home, "helm-command.sh");
  writeFileSync(helm, `#!/bin/sh\necho ran > '${marker}'\nexit 1\n`);
  chmodSync(helm, 0o755);
  bin = makeFakeBin(KUBECONFIG_IDENTITY_BIN, []);
  const root = makeConfigTree({
    "providers/kubectl/provider.yaml": STALE_KUBECTL,
    "providers/kubectl/rules.yaml": `version: "1"\naccept: ['/^kustomize( |$)/', kustomize]\n`,
    "providers/kubeid/provider.yaml": KUBECONFIG_IDENTITY_PROVIDER,
    "providers/kubeid/rules.yaml": 'version: "1"\n',
  });
  const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root, HOME: home });
  expect((await cli("target", "add", "kubectl", "lab", "--context", "lab", "--kubeconfig", pinned, "--provider", "kubeid", "--expect", pinned)).status).toBe(0);
  expect((await cli("target", "activate", "kubectl", "lab")).status).toBe(0);
  session = await startSession(root, childEnv());
});

afterAll(async () => {
  await session.close();
  await api.close();
});

describe("kubectl kustomize --helm-command", () => {
  test("control: the real kubectl runs the program --helm-command names", () => {
    const run = spawnSync("kubectl", ["kustomize", app, "--enable-helm", `--helm-command=${helm}`], { env: childEnv(), shell: false });
    expect(run.status).not.toBe(0);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });

  test.each([
    ["--helm-command=PATH", (): string[] => ["kustomize", app, "--enable-helm", `--helm-command=${helm}`]],
    ["--helm-command PATH", (): string[] => ["kustomize", "--helm-command", helm, app]],
  ])(
    "%s is refused through the server whatever the rules say: the program never runs",
    async (_name, args) => {
      const outcome = outcomeOf(await session.call("kubectl", { args: args(), target: "lab" }, { timeout: 60_000 }));
      expect(outcome.decision.result).toBe("deny");
      expect(outcome.decision.reason).toMatch(/sets --(enable-helm|helm-command) of "kustomize"/u);
      expect(outcome.decision.reason).not.toContain(helm);
      expect(outcome.execution).toBeUndefined();
      expect(existsSync(marker)).toBe(false);
    },
    60_000,
  );
});

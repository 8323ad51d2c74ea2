/**
 * The real kubectl and calls that write a local file at a path the agent names.
 * Control, without Torii: `kubectl kustomize DIR -o FILE` overwrites FILE, and
 * `kubectl foo` runs the plugin `kubectl-foo` from PATH. Through the built server,
 * with broad rules (`/^(cp|kustomize|foo)( |$)/`) and a provider.yaml installed
 * before kubectl had `file_writes` (the kubectl_context floor lists them), none of
 * them runs: the target's kubeconfig stays byte-identical, the API server gets no
 * request and the plugin never starts. A rule that names `kustomize` accepts a
 * harmless write into a temporary directory.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
/** The bundled definition as installed before it listed file writes and plugins. */
const STALE_KUBECTL = KUBECTL.replace(/\n {2}# Arguments with which kubectl writes[\s\S]*?\n {2}plugins: true/u, "");

const BROAD = `version: "1"\naccept: ['/^(cp|kustomize|foo)( |$)/']\n`;
const NAMED = 'version: "1"\naccept: [kustomize]\n';

let api: KubeApiStub;
let home: string;
let pinned: string;
let original: string;
let kustomization: string;
let bin: FakeBin;
let broad: McpSession;
let named: McpSession;
let broadRoot: string;

/** A configuration tree whose kubectl target `lab` (active) pins `pinned`. */
async function labTree(providerYaml: string, rules: string): Promise<string> {
  const root = makeConfigTree({
    "providers/kubectl/provider.yaml": providerYaml,
    "providers/kubectl/rules.yaml": rules,
    "providers/kubeid/provider.yaml": KUBECONFIG_IDENTITY_PROVIDER,
    "providers/kubeid/rules.yaml": 'version: "1"\n',
  });
  const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root, HOME: home });
  expect((await cli("target", "add", "kubectl", "lab", "--context", "lab", "--kubeconfig", pinned, "--provider", "kubeid", "--expect", pinned)).status).toBe(0);
  expect((await cli("target", "activate", "kubectl", "lab")).status).toBe(0);
  return root;
}

const childEnv = (): Record<string, string> => ({ PATH: `${bin.dir}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: home });
const call = async (session: McpSession, args: readonly string[]) =>
  outcomeOf(await session.call("kubectl", { args: [...args], target: "lab" }, { timeout: 60_000 }));

beforeAll(async () => {
  expect(STALE_KUBECTL).not.toContain("file_writes");
  api = await startKubeApiStub(["web-1"]);
  home = tempDirectory("torii-kube-writes-");
  mkdirSync(path.join(home, ".kube"));
  pinned = path.join(home, ".kube", "config");
  original = `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${api.url}'}}]\ncontexts: [{name: lab, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: lab-bearer-token-123}}]\n`;
  writeFileSync(pinned, original, { mode: 0o600 });
  kustomization = path.join(home, "app");
  mkdirSync(kustomization);
  writeFileSync(path.join(kustomization, "kustomization.yaml"), "configMapGenerator:\n  - name: planted\n    literals: [server=http://hostile.invalid]\n");
  bin = makeFakeBin(KUBECONFIG_IDENTITY_BIN, ["kubectl-foo"]);
  broadRoot = await labTree(STALE_KUBECTL, BROAD);
  const namedRoot = await labTree(KUBECTL, NAMED);
  [broad, named] = await Promise.all([startSession(broadRoot, childEnv()), startSession(namedRoot, childEnv())]);
});

afterAll(async () => {
  await Promise.all([broad.close(), named.close()]);
  await api.close();
});

describe("kubectl calls that write a local file", () => {
  test("control: the real kubectl overwrites the file kustomize -o names, and runs a plugin from PATH", () => {
    const copy = path.join(home, "control-kubeconfig");
    writeFileSync(copy, original);
    const run = spawnSync("kubectl", ["kustomize", kustomization, "-o", copy], { env: childEnv(), shell: false });
    expect(run.status).toBe(0);
    expect(readFileSync(copy, "utf8")).toContain("hostile.invalid");
    const plugin = spawnSync("kubectl", ["foo"], { env: childEnv(), shell: false });
    expect(plugin.status).toBe(0);
    expect(bin.ran("kubectl-foo")).toBe(true);
    writeFileSync(bin.markerOf("kubectl-foo"), "");
  });

  test.each([
    ["kustomize -o", (): string[] => ["kustomize", kustomization, "-o", pinned]],
    ["kustomize --output=", (): string[] => ["kustomize", kustomization, `--output=${pinned}`]],
    ["cp to a local destination", (): string[] => ["cp", "web-1:/etc/hostname", pinned]],
  ])(
    "%s is not accepted by a broad rule (a pre-file_writes provider.yaml): nothing runs, the kubeconfig is byte-identical",
    async (_name, args) => {
      const before = api.requests.length;
      const outcome = await call(broad, args());
      expect(outcome.decision.result).toBe("deny");
      expect(outcome.execution).toBeUndefined();
      expect(readFileSync(pinned, "utf8")).toBe(original);
      expect(api.requests.length).toBe(before);
    },
    60_000,
  );

  test("a plugin is not run on a broad rule", async () => {
    writeFileSync(bin.markerOf("kubectl-foo"), "");
    const outcome = await call(broad, ["foo", "bar"]);
    expect(outcome.decision.result).toBe("deny");
    expect(readFileSync(bin.markerOf("kubectl-foo"), "utf8")).toBe("");
  });

  test("torii policy check says why, without the path", async () => {
    // A path into ~/.kube is refused outright (credential-paths.ts); the hold is shown with a path elsewhere.
    const elsewhere = path.join(home, "hostname");
    const result = await runCli(["policy", "check", "kubectl", "--", "cp", "web-1:/etc/hostname", elsewhere], { TORII_CONFIG_DIR: broadRoot, HOME: home });
    const report = JSON.parse(result.stdout) as { decision: string; reason: string };
    expect(report.decision).toBe("unresolved");
    expect(report.reason).toContain("kubectl cp can write a local file at the path given by its file-spec-dest operand");
    expect(report.reason).not.toContain(elsewhere);
  });

  test("a rule naming kustomize accepts a harmless write into a temporary directory", async () => {
    const target = path.join(tempDirectory("torii-kustomize-out-"), "out.yaml");
    const outcome = await call(named, ["kustomize", kustomization, "-o", target]);
    expect(outcome.decision.result).toBe("allow");
    expect(outcome.execution?.exit_code).toBe(0);
    expect(readFileSync(target, "utf8")).toContain("name: planted");
    expect(readFileSync(pinned, "utf8")).toBe(original);
  });
});

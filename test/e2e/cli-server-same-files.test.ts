/**
 * The operator's CLI and the MCP server must read the same kubeconfig, find
 * the same program and read the same AWS files for a call: `torii target add`
 * and `torii doctor` compute them with the server's own function
 * (pipeline/child-files.ts), never from the shell's KUBECONFIG,
 * AWS_CONFIG_FILE or PATH where the server would not. A kubeconfig the
 * configuration pins is held to the trust rule of `.env` files, by target add,
 * by doctor and by the server before any process starts.
 *
 * Real parts: doctor as a real process of the built CLI (target add in-process),
 * the built server over the MCP SDK's client, the real kubectl against local API stubs.
 * The shell's environment (KUBECONFIG, AWS_CONFIG_FILE, a PATH with a decoy
 * program first) is the same for the CLI and the server, as when an operator
 * starts both from one terminal.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { startKubeApiStub, type KubeApiStub } from "../support/kube-api-stub.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli, runCliProcess, type CliResult } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const KUBECTL = readFileSync(fileURLToPath(new URL("../../providers/kubectl/provider.yaml", import.meta.url)), "utf8");
const KUBE_ID = 'version: "1"\nname: kubeid\ntool: kubeid\nexpose: false\ncommand: "true"\n';
const FK = 'version: "1"\nname: fk\ntool: fk\ncommand: fk3\n';
const AWSISH = `version: "1"
name: awsish
tool: awsish
command: fk3
targeting:
  mode: aws_profile
  locked_options: [--profile, --region]
auth:
  identity: {command: fk3, args: [sts, get-caller-identity], field: Account}
`;

function kubeconfig(server: string, ...contexts: string[]): string {
  const entries = contexts.map((name) => `{name: ${name}, context: {cluster: c, user: u, namespace: team}}`).join(", ");
  return `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${server}'}}]\ncontexts: [${entries}]\nusers: [{name: u, user: {username: lab}}]\n`;
}

interface Check {
  readonly subject: string;
  readonly status: string;
  readonly message: string;
  readonly fix?: string;
}

let homeApi: KubeApiStub;
let shellApi: KubeApiStub;
let writableApi: KubeApiStub;
let dir: string;
let homeKubeconfig: string;
let shellKubeconfig: string;
let pinnedKubeconfig: string;
let missingKubeconfig: string;
let writableDir: string;
let writableKubeconfig: string;
let envBin: string;
let awsEnvConfig: string;
let writableAwsConfig: string;
let awsBin: FakeBin;
let root: string;
let env: Record<string, string>;
let session: McpSession;
let addedOnlyInShell: CliResult;
let addedInBoth: CliResult;
let addedWritable: CliResult;
let addedMissing: CliResult;
let doctor: Check[];

/** In-process; doctor runs as a real process (the comparison with the server's process is the point). */
const cli = (...args: string[]): Promise<CliResult> => runCli(args, env);

beforeAll(async () => {
  homeApi = await startKubeApiStub(["home-pod"]);
  shellApi = await startKubeApiStub(["shell-pod"]);
  writableApi = await startKubeApiStub(["writable-pod"]);
  dir = tempDirectory("torii-same-files-");
  const home = path.join(dir, "home");
  mkdirSync(path.join(home, ".kube"), { recursive: true });
  // What the server's kubectl reads: the default kubeconfig of its HOME.
  homeKubeconfig = path.join(home, ".kube", "config");
  writeFileSync(homeKubeconfig, kubeconfig(homeApi.url, "prod-ctx"), { mode: 0o600 });
  // The shell's KUBECONFIG: the same context name on another cluster, and a context only it has.
  shellKubeconfig = path.join(dir, "kc-alt");
  writeFileSync(shellKubeconfig, kubeconfig(shellApi.url, "prod-ctx", "alt-only"), { mode: 0o600 });
  missingKubeconfig = path.join(dir, "not-yet-kc");
  pinnedKubeconfig = path.join(dir, "pinned-kc");
  writeFileSync(pinnedKubeconfig, kubeconfig(homeApi.url, "lab"), { mode: 0o600 });
  // A kubeconfig anyone can rewrite (with an exec plugin, say), in a directory anyone can write to.
  writableDir = path.join(dir, "ww");
  mkdirSync(writableDir);
  writableKubeconfig = path.join(writableDir, "kc");
  writeFileSync(writableKubeconfig, kubeconfig(writableApi.url, "lab"));
  writableAwsConfig = path.join(writableDir, "aws-config");
  writeFileSync(writableAwsConfig, "[profile lab]\nregion = eu-west-1\n");
  chmodSync(writableDir, 0o777);
  chmodSync(writableKubeconfig, 0o666);
  chmodSync(writableAwsConfig, 0o666);

  // fk3 twice: first on the shell's PATH, and in the directory the provider's .env puts on the child's PATH.
  const shellBin = makeFakeBin({ fk3: 'process.stdout.write("fk3 from the shell PATH")' });
  envBin = makeFakeBin({ fk3: 'process.stdout.write("fk3 from the .env PATH")' }).dir;
  // An fk3 that leaves a marker when anything (identity probe or call) runs it.
  awsBin = makeFakeBin({}, ["fk3"]);
  awsEnvConfig = path.join(dir, "aws-env-config");
  writeFileSync(awsEnvConfig, "[profile env-profile]\nregion = eu-west-1\n", { mode: 0o600 });
  const awsShellConfig = path.join(dir, "aws-shell-config");
  writeFileSync(awsShellConfig, "[profile shell-profile]\n", { mode: 0o600 });

  root = makeConfigTree({
    // With its generated JSON, as installed: each load reads JSON instead of parsing 67 KB of YAML.
    ...bundledProviderFiles("kubectl"),
    "providers/kubectl/rules.yaml": 'version: "1"\naccept: [get pods]\n',
    "providers/kubectl/targets/writable/target.yaml": `version: "1"\nname: writable\ncontext: lab\nkubeconfig: ${writableKubeconfig}\nidentity: {provider: kubeid}\n`,
    "providers/kubem/provider.yaml": KUBECTL.replace("name: kubectl\ntool: kubectl", "name: kubem\ntool: kubem"),
    "providers/kubem/rules.yaml": 'version: "1"\naccept: [get pods]\n',
    "providers/kubem/.env": `KUBECONFIG=${pinnedKubeconfig}:${missingKubeconfig}\n`,
    "providers/kubem/targets/lab/target.yaml": 'version: "1"\nname: lab\ncontext: lab\nidentity: {provider: kubeid}\n',
    "providers/kubeid/provider.yaml": KUBE_ID,
    "providers/kubeid/rules.yaml": 'version: "1"\n',
    "providers/fk/provider.yaml": FK,
    "providers/fk/rules.yaml": 'version: "1"\naccept: [run]\n',
    "providers/fk/.env": `PATH=${envBin}\n`,
    "providers/fkw/provider.yaml": FK.replace("name: fk\ntool: fk", "name: fkw\ntool: fkw"),
    "providers/fkw/rules.yaml": 'version: "1"\naccept: [run]\n',
    "providers/fkw/.env": `PATH=${envBin}\nKUBECONFIG=${writableKubeconfig}\n`,
    "providers/fkm/provider.yaml": FK.replace("name: fk\ntool: fk", "name: fkm\ntool: fkm"),
    "providers/fkm/rules.yaml": 'version: "1"\naccept: [run]\n',
    "providers/fkm/.env": `PATH=${envBin}\nKUBECONFIG=${pinnedKubeconfig}:${missingKubeconfig}\n`,
    "providers/awsish/provider.yaml": AWSISH,
    "providers/awsish/rules.yaml": 'version: "1"\n',
    "providers/awsish/.env": `AWS_CONFIG_FILE=${awsEnvConfig}\n`,
    "providers/awsish/targets/env/target.yaml": 'version: "1"\nname: env\nidentity: {provider: awsish, profile: env-profile, expect: "123456789012"}\n',
    "providers/awsw/provider.yaml": AWSISH.replace("name: awsish\ntool: awsish", "name: awsw\ntool: awsw"),
    "providers/awsw/rules.yaml": 'version: "1"\naccept: [run]\n',
    "providers/awsw/.env": `PATH=${awsBin.dir}\nAWS_CONFIG_FILE=${writableAwsConfig}\n`,
    "providers/awsw/targets/ww/target.yaml": 'version: "1"\nname: ww\nidentity: {provider: awsw, profile: lab, expect: "123456789012"}\n',
  });
  env = {
    PATH: [shellBin.dir, "/usr/bin", "/bin", path.dirname(process.execPath)].join(path.delimiter),
    HOME: home,
    KUBECONFIG: shellKubeconfig,
    AWS_CONFIG_FILE: awsShellConfig,
    TORII_CONFIG_DIR: root,
  };
  addedOnlyInShell = await cli("target", "add", "kubectl", "alt", "--context", "alt-only", "--provider", "kubeid");
  addedInBoth = await cli("target", "add", "kubectl", "staging", "--context", "prod-ctx", "--provider", "kubeid");
  addedWritable = await cli("target", "add", "kubectl", "ww", "--context", "lab", "--kubeconfig", writableKubeconfig, "--provider", "kubeid");
  addedMissing = await cli("target", "add", "kubem", "lab2", "--context", "lab", "--provider", "kubeid");
  const addedLab = await cli("target", "add", "kubectl", "lab", "--context", "lab", "--kubeconfig", pinnedKubeconfig, "--provider", "kubeid");
  expect(addedLab.stderr).toBe("");
  doctor = (JSON.parse(runCliProcess(["doctor", "--json"], env).stdout) as { checks: Check[] }).checks;
  session = await startSession(root, env);
}, 120_000);

afterAll(async () => {
  await session.close();
  await Promise.all([homeApi.close(), shellApi.close(), writableApi.close()]);
});

const finding = (subject: string): Check | undefined => doctor.find((check) => check.subject === subject);

describe("kubeconfig", () => {
  test("target add refuses a context found only in the shell's KUBECONFIG, naming both files and the flag that pins the shell's", () => {
    expect(addedOnlyInShell.status).not.toBe(0);
    expect(addedOnlyInShell.stderr).toContain(`"alt-only" is in ${shellKubeconfig} (your shell's KUBECONFIG)`);
    expect(addedOnlyInShell.stderr).toContain(`reads ${homeKubeconfig}`);
    expect(addedOnlyInShell.stderr).toContain(`--kubeconfig ${shellKubeconfig}`);
  });

  test("target add, doctor and the server's real kubectl all use the kubeconfig the server reads, not the shell's", async () => {
    expect(addedInBoth.status).toBe(0);
    expect(addedInBoth.stdout).toContain(`note: the target uses ${homeKubeconfig}`);
    expect(finding("target kubectl/staging")).toMatchObject({ status: "ok", message: `context prod-ctx exists in ${homeKubeconfig}` });
    expect((await cli("target", "activate", "kubectl", "staging")).status).toBe(0);
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods"], target: "staging" }, { timeout: 60_000 }));
    expect(outcome.execution?.exit_code).toBe(0);
    expect(outcome.execution?.stdout).toContain("home-pod");
    expect(shellApi.requests).toEqual([]);
  });

  test("doctor checks a pinned kubeconfig, and never tells the operator to set KUBECONFIG", () => {
    expect(finding("target kubectl/lab")).toMatchObject({ status: "ok", message: `context lab exists in ${pinnedKubeconfig}` });
    expect(JSON.stringify(doctor)).not.toContain("set KUBECONFIG");
  });

  test("a pinned kubeconfig others can write is refused by target add, failed by doctor, and stops the call before kubectl starts", async () => {
    expect(addedWritable.status).not.toBe(0);
    expect(addedWritable.stderr).toContain(`${writableDir}: is writable by group or others`);
    expect(finding("target kubectl/writable")).toMatchObject({ status: "fail", fix: "run the fix named above" });
    expect(finding("target kubectl/writable")?.message).toContain(`${writableDir}: is writable by group or others`);
    expect((await cli("target", "activate", "kubectl", "writable")).status).toBe(0);
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods"], target: "writable" }));
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toContain(`${writableDir}: is writable by group or others`);
    expect(writableApi.requests).toEqual([]);
  });

  test("so is one a provider's .env names: doctor fails it with the fix, the call runs nothing and its error names no .env value", async () => {
    expect(finding("kubeconfig fkw")).toMatchObject({ status: "fail", fix: "run the fix named above" });
    expect(finding("kubeconfig fkw")?.message).toContain(`${writableDir}: is writable by group or others`);
    const outcome = outcomeOf(await session.call("fkw", { args: ["run"] }));
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toContain("refused by the trust rule; torii doctor names it and the fix");
    expect(outcome.error).not.toContain(writableDir);
  });

  test("a missing entry of a .env KUBECONFIG (which kubectl would skip, and anyone could create later) fails closed too", async () => {
    expect(finding("kubeconfig fkm")).toMatchObject({ status: "fail" });
    expect(finding("kubeconfig fkm")?.message).toContain(`${missingKubeconfig}: does not exist (KUBECONFIG in a .env names it)`);
    const outcome = outcomeOf(await session.call("fkm", { args: ["run"] }));
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toContain("is missing or refused by the trust rule; torii doctor names it and the fix");
    expect(outcome.error).not.toContain(missingKubeconfig);
  });

  test("for a kubectl target, target add and doctor refuse that missing entry in the call's own words, and the call runs nothing", async () => {
    const words = `${missingKubeconfig}: does not exist (KUBECONFIG in a .env names it); fix: create it, or take it out of the KUBECONFIG of that .env`;
    expect(addedMissing.status).not.toBe(0);
    expect(addedMissing.stderr).toContain(words);
    expect(finding("target kubem/lab")).toMatchObject({ status: "fail", fix: "run the fix named above" });
    expect(finding("target kubem/lab")?.message).toContain(words);
    expect((await cli("target", "activate", "kubem", "lab")).status).toBe(0);
    const outcome = outcomeOf(await session.call("kubem", { args: ["get", "pods"], target: "lab" }));
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toContain("is missing or refused by the trust rule");
  });
});

describe("PATH and AWS files from a provider's .env", () => {
  test("doctor names the program the server runs, found through the PATH the provider's .env sets", async () => {
    const outcome = outcomeOf(await session.call("fk", { args: ["run"] }));
    expect(outcome.execution?.stdout).toBe("fk3 from the .env PATH");
    expect(finding("cli fk")?.message).toBe(path.join(envBin, "fk3"));
  });

  test("doctor looks for the AWS profile in the AWS_CONFIG_FILE the provider's .env gives the call", () => {
    expect(finding("target awsish/env")).toMatchObject({ status: "ok", message: expect.stringContaining(awsEnvConfig) as unknown });
  });

  test("an AWS_CONFIG_FILE others can write (a credential_process runs as the operator): doctor fails it, the call runs nothing and names no path", async () => {
    expect(finding("target awsw/ww")).toMatchObject({ status: "fail", fix: "run the fix named above" });
    expect(finding("target awsw/ww")?.message).toContain(`${writableDir}: is writable by group or others`);
    expect((await cli("target", "activate", "awsw", "ww")).status).toBe(0);
    const outcome = outcomeOf(await session.call("awsw", { args: ["run"], target: "ww" }));
    expect(outcome.execution).toBeUndefined();
    expect(awsBin.ran("fk3")).toBe(false);
    expect(outcome.error).toContain("refused by the trust rule; torii doctor names it and the fix");
    expect(outcome.error).not.toContain(writableDir);
  });
});

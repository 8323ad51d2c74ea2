/**
 * An identity-only provider (`expose: false`) holds the identity of another
 * provider's targets but is no MCP tool: it is not listed, a call to it is an
 * unknown tool, torii_policy does not know it, and the targets that name it as
 * `identity.provider` still get its `.env` and identity check.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const IDENTITY_ONLY = `version: "1"
name: kubeid
tool: kubeid
description: "Holds the cluster credentials of the kube targets"
expose: false
command: recorder
auth:
  strategy: inherited
  identity: {command: whoami-json, args: [], field: user}
`;

let bin: FakeBin;
let root: string;
let session: McpSession;

beforeAll(async () => {
  bin = makeFakeBin({ "whoami-json": `process.stdout.write(JSON.stringify({ user: process.env.KUBE_USER ?? "" }));` });
  root = makeConfigTree({
    "providers/kube/provider.yaml": kubeContextProvider("recorder"),
    "providers/kube/rules.yaml": 'version: "1"\naccept: [get pods]\n',
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: kubeid, expect: ops}\n',
    "providers/kubeid/provider.yaml": IDENTITY_ONLY,
    "providers/kubeid/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    "providers/kubeid/.env": "KUBE_USER=ops\n",
    // The pinned identity is also a value of the identity provider's .env (AZURE_SUBSCRIPTION_ID, CLOUDSDK_CORE_ACCOUNT…).
    "providers/kube/targets/team/target.yaml": 'version: "1"\nname: team\ncontext: team-ctx\nidentity: {provider: teamid, expect: ops-admin@corp.example}\n',
    "providers/teamid/provider.yaml": IDENTITY_ONLY.replaceAll("kubeid", "teamid"),
    "providers/teamid/rules.yaml": 'version: "1"\n',
    "providers/teamid/.env": "KUBE_USER=ops-admin@corp.example\n",
  });
  expect((await runCli(["target", "activate", "kube", "prod"], { TORII_CONFIG_DIR: root })).status).toBe(0);
  expect((await runCli(["target", "activate", "kube", "team", "--add"], { TORII_CONFIG_DIR: root })).status).toBe(0);
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
});

afterAll(async () => {
  await session.close();
});

describe("expose: false", () => {
  test("the identity-only provider is not in tools/list, nor a provider torii_policy accepts", async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["kube", "torii_policy"]);
    const policy = tools.find((tool) => tool.name === "torii_policy");
    expect(JSON.stringify(policy?.inputSchema)).not.toContain("kubeid");
  });

  test("a tools/call to it is an unknown tool, and nothing runs", async () => {
    await expect(session.call("kubeid", { args: ["anything"] })).rejects.toThrow(/unknown tool "kubeid"/u);
    await expect(session.call("torii_policy", { provider: "kubeid" })).rejects.toThrow(/provider/u);
  });

  test("a target that names it as identity.provider gets its .env and passes its identity check", async () => {
    const outcome = outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" }));
    expect(outcome.decision).toMatchObject({ result: "allow" });
    const seen = JSON.parse(outcome.execution?.stdout ?? "{}") as { argv: string[]; env: Record<string, string> };
    expect(seen.argv).toEqual(["--context=prod-ctx", "get", "pods"]);
    expect(seen.env.KUBE_USER).toBe("ops");
  });

  test("the identity check reads the probe's own output: an identity that is also a .env value is not masked into a mismatch (red team atk-secrets-18)", async () => {
    const outcome = outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "team" }));
    expect(outcome.decision).toMatchObject({ result: "allow" });
    expect(outcome.execution?.exit_code).toBe(0);
    // What reaches the agent is still redacted.
    expect(outcome.execution?.stdout).not.toContain("ops-admin@corp.example");
  });

  test("torii policy show explains the pattern", async () => {
    const hidden = await runCli(["policy", "show", "kubeid"], { TORII_CONFIG_DIR: root });
    expect(hidden.stdout).toContain("kubeid is an identity-only provider (expose: false)");
    expect(hidden.stdout).toContain("kube/prod");
    const target = await runCli(["policy", "show", "kube", "prod"], { TORII_CONFIG_DIR: root });
    expect(target.stdout).toContain("target prod takes its identity (.env, session, identity check) from provider kubeid (identity-only, expose: false)");
    const json = JSON.parse((await runCli(["policy", "show", "kube", "prod", "--json"], { TORII_CONFIG_DIR: root })).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ exposed: true, identity_provider: "kubeid" });
  });
});

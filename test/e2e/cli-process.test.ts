/**
 * The operator CLI as a real process, a few runs per command group: what only
 * the built binary shows — its bin entry, exit codes reaching the shell,
 * stdout holding just the command's output, usage errors on stderr. Every
 * other CLI assertion runs in-process (test/support/run-cli.ts).
 */
import path from "node:path";
import { describe, expect, test } from "vitest";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { runCliProcess, runCliProcessAsync } from "../support/run-cli.js";

const DEMO = `version: "1"
name: demo
tool: demo
command: echo
argv:
  parser: plain
`;

const KUBE = kubeContextProvider("echo");

function tree(): { root: string; env: Record<string, string> } {
  const root = makeConfigTree({
    "providers/demo/provider.yaml": DEMO,
    "providers/demo/rules.yaml": 'version: "1"\ndeny: [push]\naccept: [status]\n',
    "providers/kube/provider.yaml": KUBE,
    "providers/kube/rules.yaml": 'version: "1"\ndeny: []\naccept: []\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: demo}\n',
  });
  return { root, env: { TORII_CONFIG_DIR: root } };
}

describe("the torii binary", () => {
  test("policy check: the decision is the process exit code (0 accept, 1 deny, 2 unresolved), JSON on stdout", async () => {
    const { env } = tree();
    const results = await Promise.all([["status"], ["push"], ["fetch"]].map((argv) => runCliProcessAsync(["policy", "check", "demo", "--", ...argv], env)));
    for (const result of results) {
      expect(result.stderr).toBe("");
      expect(JSON.parse(result.stdout)).toHaveProperty("decision");
    }
    expect(results.map((result) => result.status)).toEqual([0, 1, 2]);
  });

  test("target activate and status: the lease written by one process is read by the next", () => {
    const { env } = tree();
    expect(runCliProcess(["target", "activate", "kube", "dev", "--for", "5"], env).status).toBe(0);
    const status = runCliProcess(["target", "status", "kube", "--json"], env);
    expect(status.status).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ leases: [expect.objectContaining({ target: "dev" })] });
  });

  test("target activate: a plain command line takes the direct path, anything else reaches commander (help, usage errors)", async () => {
    const { env } = tree();
    const [direct, help, unknown] = await Promise.all([
      runCliProcessAsync(["target", "activate", "kube", "dev", "--for=5", "--json"], env),
      runCliProcessAsync(["target", "activate", "kube", "dev", "--help"], env),
      runCliProcessAsync(["target", "activate", "kube", "dev", "--forever"], env),
    ]);
    expect(direct.status).toBe(0);
    expect(JSON.parse(direct.stdout)).toMatchObject({ action: "target-activated", target: "dev", minutes: 5 });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: torii target activate");
    expect(unknown.status).toBe(3);
    expect(unknown.stderr).toContain("unknown option '--forever'");
  });

  test("grant add and list, then audit verify over the records both wrote", () => {
    const { root, env } = tree();
    expect(runCliProcess(["grant", "add", "demo", "--exact", "--for", "5", "--", "fetch", "origin"], env).status).toBe(0);
    const list = runCliProcess(["grant", "list", "demo", "--json"], env);
    expect(list.status).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ grants: [expect.objectContaining({ mode: "exact", token_count: 2 })] });
    const verify = runCliProcess(["audit", "verify"], env);
    expect(verify.status).toBe(0);
    expect(verify.stdout).toContain(path.join(root, "audit.jsonl"));
  });

  test("a usage error exits 3 with one torii: line on stderr and nothing on stdout", () => {
    const { env } = tree();
    const result = runCliProcess(["target", "activate", "kube"], env);
    expect(result.status).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^torii: /u);
    expect(result.stderr).not.toMatch(/\n\s+at /u);
  });
});

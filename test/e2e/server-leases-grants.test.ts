/**
 * Leases and grants through the built server and the operator CLI, as separate
 * processes: a target-aware call is denied until `torii target activate`,
 * allowed while the lease lives, and denied again after expiry, `target clear`
 * or an edit of target.yaml; a corrupted lease file denies without crashing the
 * server. Grants allow exactly what they cover, for their provider or target only.
 */
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadRegistry } from "../../src/config/registry.js";
import { grantEvidence, targetBinding } from "../../src/state/fingerprints.js";
import { GrantStore } from "../../src/state/grant-store.js";
import { LeaseStore } from "../../src/state/lease-store.js";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { CLI_PATH, runCli } from "../support/run-cli.js";

const KUBE = kubeContextProvider("recorder");

let bin: FakeBin;
let root: string;
let session: McpSession;
const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root });

function argvSeen(result: Awaited<ReturnType<McpSession["call"]>>): string[] {
  return (JSON.parse(outcomeOf(result).execution?.stdout ?? "{}") as { argv: string[] }).argv;
}

beforeAll(async () => {
  bin = makeFakeBin();
  root = makeConfigTree({
    "providers/kube/provider.yaml": KUBE,
    "providers/kube/rules.yaml": 'version: "1"\ndeny: [delete]\naccept: [get]\n',
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: idp}\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n',
    "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: recorder\n',
    "providers/idp/rules.yaml": 'version: "1"\n',
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
    "providers/rec/rules.yaml": 'version: "1"\ndeny: [push]\n',
  });
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
});

afterAll(async () => {
  await session.close();
});

describe("leases", () => {
  test("a target-aware call is denied until the operator activates the target, then runs with the leased context", async () => {
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision).toMatchObject({ source: "target-inactive" });
    expect((await cli("target", "activate", "kube", "prod", "--for", "5")).status).toBe(0);
    const allowed = await session.call("kube", { args: ["get", "pods", "-n", "web"], target: "prod" });
    expect(outcomeOf(allowed).decision).toMatchObject({ result: "allow", source: "rules" });
    expect(argvSeen(allowed)).toEqual(["--context=prod-ctx", "get", "pods", "--namespace=web"]);
  });

  test("a lease for one alias never allows another; activating replaces unless --add", async () => {
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "dev" })).decision).toMatchObject({ source: "target-inactive" });
    expect((await cli("target", "activate", "kube", "dev")).status).toBe(0);
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "dev" })).decision.result).toBe("allow");
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision).toMatchObject({ source: "target-inactive" });
    expect((await cli("target", "activate", "kube", "prod", "--add")).status).toBe(0);
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision.result).toBe("allow");
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "dev" })).decision.result).toBe("allow");
  });

  test("an explicit deny wins over an active lease", async () => {
    expect(outcomeOf(await session.call("kube", { args: ["delete", "pod", "x"], target: "prod" })).decision).toMatchObject({ source: "explicit-deny" });
  });

  test("target clear revokes: the next call is denied", async () => {
    expect((await cli("target", "clear", "kube")).status).toBe(0);
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision).toMatchObject({ source: "target-inactive" });
  });

  test("a lease expires", async () => {
    // The shortest lease the CLI grants is a minute: rather than wait for one to run out, the real
    // store writes the same one-minute lease twice, once now and once as if granted 61 s ago.
    const provider = loadRegistry(root).providers.get("kube")!;
    const target = provider.targets.get("prod")!;
    const binding = targetBinding({ provider: provider.name, alias: "prod", config: target.config, fileIdentity: target.fileIdentity });
    await new LeaseStore(provider.dir).activate("prod", binding, 1, "replace");
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision.result).toBe("allow");
    await new LeaseStore(provider.dir, { clock: () => new Date(Date.now() - 61_000) }).activate("prod", binding, 1, "replace");
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision).toMatchObject({ source: "target-inactive" });
  });

  test("a corrupted lease file denies without crashing the server, and stays on disk", async () => {
    const file = path.join(root, "providers/kube/.target-authorizations.yaml");
    writeFileSync(file, 'version: "1"\nrevision: 3\nauthorizations: [\0\0\0');
    const before = readFileSync(file);
    const outcome = outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "target-inactive" });
    expect(outcome.decision.reason).toContain("invalid");
    expect(readFileSync(file)).toEqual(before);
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision.source).toBe("target-inactive");
    expect((await cli("target", "clear", "kube")).status).toBe(0);
  });
});

describe("grants", () => {
  test("an exact grant allows exactly its canonical argv", async () => {
    expect(outcomeOf(await session.call("rec", { args: ["fetch", "origin"] })).decision.source).toBe("headless");
    const added = await cli("grant", "add", "rec", "--exact", "--", "fetch", "origin");
    expect(added.status, added.stderr).toBe(0);
    expect(outcomeOf(await session.call("rec", { args: ["fetch", "origin"] })).decision).toMatchObject({ result: "allow", source: "grant" });
    expect(outcomeOf(await session.call("rec", { args: ["fetch", "origin", "--prune"] })).decision.source).toBe("headless");
    expect(outcomeOf(await session.call("rec", { args: ["fetch"] })).decision.source).toBe("headless");
  });

  test("a prefix grant allows its suffixes, but never past a deny", async () => {
    expect((await cli("grant", "add", "rec", "--prefix", "1", "--", "log")).status).toBe(0);
    expect(outcomeOf(await session.call("rec", { args: ["log", "--oneline", "-5"] })).decision.source).toBe("grant");
    // The CLI refuses a grant for a denied argv; one written before the deny rule (here: by the store) still allows nothing.
    expect((await cli("grant", "add", "rec", "--prefix", "1", "--", "push")).status).toBe(3);
    const planted = await new GrantStore(path.join(root, "providers", "rec", "grants")).add("prefix", ["push"], 5);
    const listed = JSON.parse((await cli("grant", "list", "rec", "--json")).stdout) as { grants: { evidence: string }[] };
    expect(listed.grants.map((grant) => grant.evidence)).toContain(grantEvidence(planted.matcher));
    expect(outcomeOf(await session.call("rec", { args: ["push", "origin"] })).decision.source).toBe("explicit-deny");
  });

  test("a grant for one target does not allow another target", async () => {
    expect((await cli("target", "activate", "kube", "prod")).status).toBe(0);
    expect((await cli("target", "activate", "kube", "dev", "--add")).status).toBe(0);
    expect((await cli("grant", "add", "kube", "dev", "--exact", "--", "logs", "web-1")).status).toBe(0);
    expect(outcomeOf(await session.call("kube", { args: ["logs", "web-1"], target: "dev" })).decision.source).toBe("grant");
    expect(outcomeOf(await session.call("kube", { args: ["logs", "web-1"], target: "prod" })).decision.source).toBe("headless");
    expect(outcomeOf(await session.call("rec", { args: ["logs", "web-1"] })).decision.source).toBe("headless");
  });

  test("an invalid grants file allows nothing, stays on disk and is reported once in the audit log", async () => {
    const file = path.join(root, "providers/rec/grants");
    writeFileSync(file, "fetch\torigin\t9999999999\n");
    const before = readFileSync(file);
    expect(outcomeOf(await session.call("rec", { args: ["fetch", "origin"] })).decision.source).toBe("headless");
    expect(outcomeOf(await session.call("rec", { args: ["fetch", "origin"] })).decision.source).toBe("headless");
    expect(readFileSync(file)).toEqual(before);
    // The report is written after the call's answer: wait for it (an event), not a fixed 300 ms.
    const reports = (): number | undefined => readFileSync(path.join(root, "audit.jsonl"), "utf8").match(/(legacy|invalid)-grants-ignored/gu)?.length;
    await expect.poll(reports).toBe(1);
  });
});

describe("target.yaml edits (last: the server keeps the configuration it loaded)", () => {
  test("editing target.yaml invalidates the lease", async () => {
    expect((await cli("target", "activate", "kube", "prod")).status).toBe(0);
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision.result).toBe("allow");
    appendFileSync(path.join(root, "providers/kube/targets/prod/target.yaml"), "description: edited\n");
    const outcome = outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "target-inactive" });
    expect(outcome.decision.reason).toContain("target.yaml changed");
  });
});

describe("concurrency across processes", () => {
  test("concurrent activations from separate processes, while calls run, lose no update", async () => {
    const aliases = ["t1", "t2", "t3"];
    const files: Record<string, string> = {
      "providers/kube/provider.yaml": KUBE,
      "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
      "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: recorder\n',
      "providers/idp/rules.yaml": 'version: "1"\n',
    };
    for (const alias of aliases) {
      files[`providers/kube/targets/${alias}/target.yaml`] = `version: "1"\nname: ${alias}\ncontext: ${alias}-ctx\nidentity: {provider: idp}\n`;
    }
    const tree = makeConfigTree(files);
    const server = await startSession(tree, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    try {
      const activations = aliases.map(
        (alias) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, [CLI_PATH, "target", "activate", "kube", alias, "--add"], {
              env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", TORII_CONFIG_DIR: tree },
              stdio: "ignore",
            });
            child.on("exit", resolve);
          }),
      );
      const calls = aliases.map((alias) => server.call("kube", { args: ["get", "pods"], target: alias }));
      expect(await Promise.all(activations)).toEqual(aliases.map(() => 0));
      await Promise.all(calls);
      const read = new LeaseStore(path.join(tree, "providers/kube")).read();
      if (!read.ok) throw read.error;
      expect(read.state.authorizations.map((lease) => lease.target).sort()).toEqual(aliases);
      expect(read.state.revision).toBe(aliases.length);
      for (const alias of aliases) {
        expect(outcomeOf(await server.call("kube", { args: ["get", "pods"], target: alias })).decision.result).toBe("allow");
      }
    } finally {
      await server.close();
    }
  });
});

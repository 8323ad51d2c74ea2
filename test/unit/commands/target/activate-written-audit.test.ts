/**
 * `torii target activate` (and `torii target clear`, `torii target remove`) when a step after the lease file's rename fails (here
 * the directory's fsync): the lease is in force, so its audit record is written
 * all the same, and the failure is reported as in force and audited, never as
 * "nothing was changed" and never without a record.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { nodeAtomicFs } from "../../../../src/state/atomic-write.js";
import { LeaseStore } from "../../../../src/state/lease-store.js";
import { kubeContextProvider, makeConfigTree } from "../../../support/config-tree.js";
import { runCli } from "../../../support/run-cli.js";

function tree(): string {
  return makeConfigTree({
    "providers/demo/provider.yaml": 'version: "1"\nname: demo\ntool: demo\ncommand: echo\nargv:\n  parser: plain\n',
    "providers/demo/rules.yaml": 'version: "1"\naccept: []\n',
    "providers/kube/provider.yaml": kubeContextProvider("echo"),
    "providers/kube/rules.yaml": 'version: "1"\naccept: []\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: demo}\n',
  });
}

/** Fails the fsync of `dir` (after the rename into it); every other directory is synced as usual. */
function failDirectorySync(dir: string): void {
  const original = nodeAtomicFs.openDirectory.bind(nodeAtomicFs);
  vi.spyOn(nodeAtomicFs, "openDirectory").mockImplementation(async (target) => {
    if (path.resolve(target) !== path.resolve(dir)) return original(target);
    const handle = await original(target);
    return { ...handle, sync: () => Promise.reject(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" })) };
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("target activate: a failure after the lease file's rename", () => {
  test("the lease in force is audited, and reported as in force and audited", async () => {
    const root = tree();
    const providerDir = path.join(root, "providers/kube");
    failDirectorySync(providerDir);
    const result = await runCli(["target", "activate", "kube", "dev", "--for", "20"], { TORII_CONFIG_DIR: root });
    vi.restoreAllMocks();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("the change was written and is in force");
    expect(result.stderr).toContain("the activation is audited");
    const read = new LeaseStore(providerDir).read();
    expect(read.ok && read.state.authorizations.map((entry) => entry.target)).toEqual(["dev"]);
    const records = readFileSync(path.join(root, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; scope?: unknown; detail?: string });
    expect(records.filter((record) => record.event === "target-access-replaced")).toEqual([
      expect.objectContaining({
        scope: expect.stringContaining("dev") as unknown,
        detail: expect.stringMatching(/^20min; replaced: none; in force, but /u) as unknown,
      }),
    ]);
    // The tree is intact: the chain still verifies with the new record in it.
    const verified = await runCli(["audit", "verify"], { TORII_CONFIG_DIR: root });
    expect(verified.status).toBe(0);
  });
});

describe("target clear: a failure after the lease file's rename", () => {
  test("the revocation in force is audited as target-access-cleared, and reported as in force and audited", async () => {
    const root = tree();
    const providerDir = path.join(root, "providers/kube");
    expect((await runCli(["target", "activate", "kube", "dev", "--for", "20"], { TORII_CONFIG_DIR: root })).status).toBe(0);
    failDirectorySync(providerDir);
    const result = await runCli(["target", "clear", "kube"], { TORII_CONFIG_DIR: root });
    vi.restoreAllMocks();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("the change was written and is in force");
    expect(result.stderr).toContain("the clear is audited");
    const read = new LeaseStore(providerDir).read();
    expect(read.ok && read.state.authorizations).toEqual([]);
    const records = readFileSync(path.join(root, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; scope?: unknown; detail?: string });
    expect(records.filter((record) => record.event === "target-access-cleared")).toEqual([
      expect.objectContaining({ detail: expect.stringMatching(/^cleared 1 lease\(s\); in force, but /u) as unknown }),
    ]);
    const verified = await runCli(["audit", "verify"], { TORII_CONFIG_DIR: root });
    expect(verified.status).toBe(0);
  });
});

describe("target remove: a failure after the lease file's rename", () => {
  test("the revocation in force is audited as target-access-revoked, the directory is kept, and the failure is reported", async () => {
    const root = tree();
    const providerDir = path.join(root, "providers/kube");
    expect((await runCli(["target", "activate", "kube", "dev", "--for", "20"], { TORII_CONFIG_DIR: root })).status).toBe(0);
    failDirectorySync(providerDir);
    const result = await runCli(["target", "remove", "kube", "dev", "--force"], { TORII_CONFIG_DIR: root });
    vi.restoreAllMocks();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("the change was written and is in force");
    expect(result.stderr).toContain("the revocation is audited");
    const read = new LeaseStore(providerDir).read();
    expect(read.ok && read.state.authorizations).toEqual([]);
    expect(existsSync(path.join(providerDir, "targets/dev/target.yaml"))).toBe(true);
    const records = readFileSync(path.join(root, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; scope?: unknown; detail?: string });
    expect(records.filter((record) => record.event === "target-access-revoked")).toEqual([
      expect.objectContaining({ detail: expect.stringMatching(/^target remove; in force, but /u) as unknown }),
    ]);
    expect(records.some((record) => record.event === "target-removed")).toBe(false);
    const verified = await runCli(["audit", "verify"], { TORII_CONFIG_DIR: root });
    expect(verified.status).toBe(0);
  });
});

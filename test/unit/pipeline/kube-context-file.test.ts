/**
 * The file that selects a kubectl_context target's context for its identity
 * provider's commands (pipeline/child-kubeconfig.ts, withKubeContext): first in
 * KUBECONFIG, before the files the child reads anyway; private, removed when the
 * command ends; and held to the trust rule of a configured kubeconfig, so a
 * temporary directory others could rename or replace fails closed.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { currentTrustPolicy } from "../../../src/config/file-trust.js";
import { withKubeContext } from "../../../src/pipeline/child-kubeconfig.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const savedTmp = process.env.TMPDIR;

afterEach(() => {
  if (savedTmp === undefined) Reflect.deleteProperty(process.env, "TMPDIR");
  else process.env.TMPDIR = savedTmp;
});

describe.skipIf(process.platform === "win32")("withKubeContext", () => {
  test("puts a file naming the context first in KUBECONFIG, before the configured files or the default one, and removes it after", async () => {
    const seen: { kubeconfig: string; text: string }[] = [];
    const look = (env: Readonly<Record<string, string>>) => {
      const first = (env.KUBECONFIG ?? "").split(":")[0] ?? "";
      seen.push({ kubeconfig: env.KUBECONFIG ?? "", text: readFileSync(first, "utf8") });
      return Promise.resolve(first);
    };
    const first = await withKubeContext({ KUBECONFIG: "/a/one:/a/two", HOME: "/h" }, 'lab "x"', "linux", currentTrustPolicy(), look);
    expect(seen[0]?.kubeconfig).toBe(`${first}:/a/one:/a/two`);
    expect(seen[0]?.text).toBe('apiVersion: v1\nkind: Config\ncurrent-context: "lab \\"x\\""\n');
    expect(existsSync(first)).toBe(false);
    const second = await withKubeContext({ HOME: "/h" }, "lab", "linux", currentTrustPolicy(), look);
    expect(seen[1]?.kubeconfig).toBe(`${second}:/h/.kube/config`);
  });

  test("a temporary directory writable by others and not sticky fails closed, and nothing runs", async () => {
    const open = path.join(tempDirectory("torii-open-tmp-"), "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    process.env.TMPDIR = open;
    let ran = false;
    await expect(
      withKubeContext({ HOME: "/h" }, "lab", "linux", currentTrustPolicy(), () => {
        ran = true;
        return Promise.resolve();
      }),
    ).rejects.toThrow(/writable/u);
    expect(ran).toBe(false);
  });
});

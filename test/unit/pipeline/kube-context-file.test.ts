/**
 * The file that selects a kubectl_context target's context for its identity
 * provider's commands (pipeline/child-kubeconfig.ts, withKubeContext): first in
 * KUBECONFIG, before the files the child reads anyway; private, removed when the
 * command ends; and held to the trust rule of a configured kubeconfig, so a
 * temporary directory others could rename or replace fails closed.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

  test("a temporary directory whose path holds the KUBECONFIG delimiter fails closed, and nothing runs", async () => {
    const base = tempDirectory("torii-delim-tmp-");
    mkdirSync(path.join(base, "a:b"), { mode: 0o700 });
    // What "<base>/a" would be read as if the path split at ":": a planted kubeconfig.
    writeFileSync(path.join(base, "a"), "apiVersion: v1\nkind: Config\n", { mode: 0o600 });
    process.env.TMPDIR = path.join(base, "a:b");
    let ran = false;
    await expect(
      withKubeContext({ HOME: "/h" }, "lab", "linux", currentTrustPolicy(), () => {
        ran = true;
        return Promise.resolve();
      }),
    ).rejects.toThrow(/KUBECONFIG list separator/u);
    expect(ran).toBe(false);
  });

  // Names a YAML reader would change if written raw: NEL, LS and PS are line breaks that fold into a space, and
  // "lab x" exists too, so a folded name selects another context.
  const hasKubectl = (() => {
    try {
      execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();
  const escapeBreaks = (text: string) => text.replace(/[\u0085\u2028\u2029]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  test.skipIf(!hasKubectl).each([
    ["NEL U+0085", "lab\u0085x"],
    ["LS U+2028", "lab\u2028x"],
    ["PS U+2029", "lab\u2029x"],
    ["non-ASCII, astral and a tab", "läb\t\u{1F600}x\u00a0"],
  ])("the identity provider's real kubectl selects the target's context with %s, as --context would", async (_label, target) => {
    const dir = tempDirectory("torii-kube-nel-");
    const kubeconfig = path.join(dir, "config");
    const context = { cluster: "c", user: "u" };
    const config = {
      apiVersion: "v1",
      kind: "Config",
      "current-context": "other",
      clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
      users: [{ name: "u", user: {} }],
      contexts: [
        { name: target, context },
        { name: "lab x", context },
        { name: "other", context },
      ],
    };
    writeFileSync(kubeconfig, escapeBreaks(JSON.stringify(config)), { mode: 0o600 });
    const names = execFileSync("kubectl", ["config", "view", "-o", "jsonpath={.contexts[*].name}"], {
      env: { KUBECONFIG: kubeconfig, HOME: dir },
      encoding: "utf8",
    });
    expect(names.split(" ")).toContain(target.split(" ")[0]);
    const seen = await withKubeContext({ KUBECONFIG: kubeconfig, HOME: dir, PATH: process.env.PATH ?? "" }, target, "linux", currentTrustPolicy(), (env) =>
      Promise.resolve(execFileSync("kubectl", ["config", "current-context"], { env: { ...env }, encoding: "utf8" }).replace(/\n$/u, "")),
    );
    expect(JSON.stringify(seen)).toBe(JSON.stringify(target));
  });
});

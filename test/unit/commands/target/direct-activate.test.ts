/**
 * The direct `target activate` (src/commands/target/direct-activate.ts), which
 * the binary runs without commander: it takes only plain argv and declines the
 * rest (commander then answers), and for every argv it takes, its exit code,
 * output and lease file are those of the commander path.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { directActivateArgs } from "../../../../src/commands/target/direct-activate.js";
import { LeaseStore } from "../../../../src/state/lease-store.js";
import { kubeContextProvider, makeConfigTree } from "../../../support/config-tree.js";
import { runCli, runDirectActivateCli, type CliResult } from "../../../support/run-cli.js";

function tree(): string {
  return makeConfigTree({
    "providers/demo/provider.yaml": 'version: "1"\nname: demo\ntool: demo\ncommand: echo\nargv:\n  parser: plain\n',
    "providers/demo/rules.yaml": 'version: "1"\naccept: []\n',
    "providers/kube/provider.yaml": kubeContextProvider("echo"),
    "providers/kube/rules.yaml": 'version: "1"\naccept: []\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: demo}\n',
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: demo}\n',
  });
}

/** A run's output with the config root and the clock taken out, the leased targets, and the audit records' events. */
function comparable(result: CliResult, root: string) {
  const clean = (text: string): string => text.replaceAll(root, "<root>").replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/gu, "<time>");
  const read = new LeaseStore(path.join(root, "providers/kube")).read();
  const leased = read.ok ? read.state.authorizations.map((entry) => entry.target).sort() : [];
  const auditFile = path.join(root, "audit.jsonl");
  const audited = existsSync(auditFile)
    ? readFileSync(auditFile, "utf8")
        .trim()
        .split("\n")
        .map((line) => {
          const record = JSON.parse(line) as { event: string; scope?: unknown; detail?: unknown };
          return [record.event, record.scope, record.detail];
        })
    : [];
  return { status: result.status, stdout: clean(result.stdout), stderr: clean(result.stderr), leased, audited };
}

describe("directActivateArgs", () => {
  test("takes plain argv, options before, between or after the two words", () => {
    expect(directActivateArgs(["target", "activate", "kube", "dev"])).toEqual({ tool: "kube", name: "dev", options: {} });
    expect(directActivateArgs(["target", "activate", "--add", "kube", "--for", "30", "dev", "--json"])).toEqual({
      tool: "kube",
      name: "dev",
      options: { add: true, for: "30", json: true },
    });
    expect(directActivateArgs(["target", "activate", "kube", "dev", "--for=5"])).toEqual({ tool: "kube", name: "dev", options: { for: "5" } });
  });

  test("declines help, unknown, repeated or valueless options, a non-numeric --for, `--`, and a wrong word count", () => {
    for (const rest of [
      ["kube", "dev", "--help"],
      ["kube", "dev", "-h"],
      ["kube", "dev", "--forever"],
      ["kube", "dev", "--add", "--add"],
      ["kube", "dev", "--for", "5", "--for", "6"],
      ["kube", "dev", "--for"],
      ["kube", "dev", "--for", "-5"],
      ["kube", "dev", "--for", "5m"],
      ["kube", "dev", "--for="],
      ["kube", "--", "dev"],
      ["kube"],
      ["kube", "dev", "extra"],
    ]) {
      expect(directActivateArgs(["target", "activate", ...rest]), rest.join(" ")).toBeUndefined();
    }
    expect(directActivateArgs(["target", "show", "kube", "dev"])).toBeUndefined();
  });
});

describe("the direct path and commander agree", () => {
  test.each([
    [["kube", "dev"]],
    [["kube", "dev", "--for", "5", "--json"]],
    [["--add", "kube", "prod", "--for=7"]],
    [["kube", "dev", "--for", "0"]],
    [["kube", "dev", "--for", "99999"]],
    [["kube", "nope"]],
    [["nope", "dev"]],
    [["demo", "dev"]],
  ])("target activate %j", async (rest) => {
    const args = ["target", "activate", ...rest];
    const [viaCommander, direct] = [tree(), tree()];
    const expected = comparable(await runCli(args, { TORII_CONFIG_DIR: viaCommander }), viaCommander);
    const actual = comparable(await runDirectActivateCli(args, { TORII_CONFIG_DIR: direct }), direct);
    expect(actual).toEqual(expected);
    if (expected.status === 0) expect(expected.leased.length).toBeGreaterThan(0);
  });
});

/**
 * scripts/providers/kubectl-local-programs.mjs reads the kustomize options that
 * run a program or widen local reads, and the proxy and port-forward options
 * that serve beyond the call, from the real kubectl's help, and fails
 * when one is no longer found (a reworded help text is reviewed, never dropped)
 * or when a global option so described is not locked.
 */
import { describe, expect, test } from "vitest";
import { localProgramRows } from "../../../scripts/providers/kubectl-local-programs.mjs";
import { kubectlHelp } from "../../support/kubectl-help.js";

const help = kubectlHelp;
const kustomize = (): { path: string[]; optionLines: string[] } => ({ path: ["kustomize"], optionLines: help("kustomize", "--help") });

describe("localProgramRows", () => {
  test("the real kubectl's help yields the five kustomize options and the six that serve beyond the call, grouped by why", () => {
    const scopes = ["kustomize", "get", "proxy", "port-forward"].map((command) => ({ path: [command], optionLines: help(command, "--help") }));
    const rows = localProgramRows(scopes, help("options"), []);
    expect(rows.map((row) => [row.command.join(" "), row.options])).toEqual([
      ["kustomize", ["--enable-alpha-plugins", "--enable-helm", "--helm-command"]],
      ["kustomize", ["--load-restrictor", "--mount"]],
      ["proxy", ["--accept-hosts", "--address", "--disable-filter", "--reject-paths", "--www"]],
      ["port-forward", ["--address"]],
    ]);
    expect(rows[0]?.why).toContain("run a local program");
    expect(rows[2]?.why).toContain("beyond this machine's loopback");
  });

  test("a reworded description fails the generator, naming the option", () => {
    const scope = kustomize();
    const reworded = { ...scope, optionLines: scope.optionLines.map((line) => line.replace("path to executable", "helm binary")) };
    const others = ["proxy", "port-forward"].map((command) => ({ path: [command], optionLines: help(command, "--help") }));
    expect(() => localProgramRows([reworded, ...others], [], [])).toThrow("kustomize --helm-command is no longer found");
  });

  test("a global option described as running a program must be locked", () => {
    const globals = ["    --exec-helper='':", "\tpath to executable run before each request"];
    const scopes = ["kustomize", "proxy", "port-forward"].map((command) => ({ path: [command], optionLines: help(command, "--help") }));
    expect(() => localProgramRows(scopes, globals, [])).toThrow("global --exec-helper runs a program");
    expect(localProgramRows(scopes, globals, ["--exec-helper"])).toHaveLength(4);
  });
});

/**
 * scripts/providers/kubectl-file-reads.mjs reads the arguments with which
 * kubectl reads a local file or directory from the real kubectl's help, and
 * fails when a known reader is no longer found (a reworded help text is
 * reviewed, never dropped) or when a global option so described is not locked.
 */
import { describe, expect, test } from "vitest";
import { fileReadRows, readingOptions } from "../../../scripts/providers/kubectl-file-reads.mjs";
import { kubectlHelp } from "../../support/kubectl-help.js";

const help = kubectlHelp;
const scope = (words: string): { path: string[]; optionLines: string[]; usage: string } => {
  const lines = help(...words.split(" "), "--help");
  return { path: words.split(" "), optionLines: lines, usage: lines.join("\n") };
};
const KNOWN_COMMANDS = ["apply", "create", "replace", "diff", "delete", "create secret generic", "create configmap", "create secret tls", "cp", "kustomize"];
const GLOBAL_READERS = ["--certificate-authority", "--client-certificate", "--client-key", "--kubeconfig"];

describe("fileReadRows", () => {
  test("the real kubectl's help yields the uploads: -f, -k, --from-file, --from-env-file, tls keys, cp's source, kustomize DIR", () => {
    const rows = fileReadRows(KNOWN_COMMANDS.map(scope), help("options"), GLOBAL_READERS);
    const named = rows.map((row) => `${row.command.join(" ")} ${row.option ?? row.operand ?? ""}`);
    for (const expected of [
      "apply --filename",
      "apply --kustomize",
      "delete --kustomize",
      "create secret generic --from-file",
      "create configmap --from-env-file",
      "cp file-spec-src",
      "kustomize dir",
    ]) {
      expect(named).toContain(expected);
    }
    // A switch that only widens -f is not a row; nor is --template (a template text unless -o names a locked *-file format).
    expect(named).not.toContain("apply --recursive");
    expect(readingOptions(help("get", "--help"))).toEqual(["--filename", "--kustomize"]);
  });

  test("a reworded description fails the generator, naming the argument", () => {
    const scopes = KNOWN_COMMANDS.map(scope).map((found) =>
      found.path.join(" ") === "create configmap"
        ? { ...found, optionLines: found.optionLines.map((line) => line.replace("the path to a file to read lines of", "a source of")) }
        : found,
    );
    expect(() => fileReadRows(scopes, help("options"), GLOBAL_READERS)).toThrow("create configmap --from-env-file is no longer found");
  });

  test("a global option that reads a file must be locked", () => {
    expect(() => fileReadRows(KNOWN_COMMANDS.map(scope), help("options"), ["--kubeconfig"])).toThrow("global --certificate-authority reads a local file");
  });
});

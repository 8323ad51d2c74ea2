/**
 * The README's "Install and register" path as data: its shell block read from
 * README.md itself (so the test follows the README, and drift fails it), a
 * copy of this checkout to run it in, and a sandbox machine for the operator
 * (own HOME, a kubeconfig whose only context points at a local API stub, and a
 * PATH with nothing but the real kubectl and node).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findOnPath } from "../../../src/commands/shared/cli-on-path.js";
import { testRunsDirectory } from "../../support/temp-dirs.js";
import { codeScratch } from "./real-clients.js";

export const REPO = fileURLToPath(new URL("../../..", import.meta.url));

/** One shell command of the block, as words (the block uses no quoting). */
export type ReadmeCommand = readonly string[];

/** The README's install block: its commands in order (comments dropped, `&&` splits), and what to ask the client for. */
export function readmeInstallPath(readme = readFileSync(path.join(REPO, "README.md"), "utf8")): { commands: ReadmeCommand[]; ask: ReadmeCommand } {
  const section = readme.slice(readme.indexOf("## Install and register"));
  const block = /```sh\n([\s\S]*?)```/u.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md has no ```sh block under "## Install and register"');
  const commands = block
    .split("\n")
    .map((line) => line.replace(/#.*$/u, "").trim())
    .filter((line) => line !== "")
    .flatMap((line) => line.split("&&"))
    .map((command) => command.trim().split(/\s+/u));
  const ask = /ask for `([^`]+)`/u.exec(section.slice(section.indexOf("```", section.indexOf("```sh") + 5)))?.[1];
  if (ask === undefined) throw new Error("README.md does not say what to ask the client for after the install block");
  return { commands, ask: ask.split(/\s+/u) };
}

/** A copy of this checkout's files (tracked and new, not ignored): what a clone with these changes holds, without node_modules or dist. */
export function copyOfCheckout(): string {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO, encoding: "utf8", shell: false });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const copy = codeScratch("torii-readme-clone-");
  for (const file of new Set(listed.stdout.split("\0").filter((name) => name !== ""))) {
    const from = path.join(REPO, file);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    copyFileSync(from, path.join(copy, file));
    chmodSync(path.join(copy, file), statSync(from).mode & 0o777);
  }
  return copy;
}

export interface OperatorSandbox {
  readonly home: string;
  /** The environment every operator command runs with. */
  readonly env: Record<string, string>;
}

/** A fresh HOME whose ~/.kube/config has one context, `context`, on `server`; PATH holds only kubectl and node. */
export function operatorSandbox(server: string, context: string): OperatorSandbox {
  // Not below the system temp directory: its bin/ is the operator's PATH, which Torii never searches there.
  const home = mkdtempSync(path.join(testRunsDirectory(), "torii-readme-home-"));
  mkdirSync(path.join(home, ".kube"), { mode: 0o700 });
  writeFileSync(
    path.join(home, ".kube", "config"),
    `apiVersion: v1\nkind: Config\nclusters: [{name: stub, cluster: {server: '${server}'}}]\ncontexts: [{name: ${context}, context: {cluster: stub, user: lab, namespace: default}}]\ncurrent-context: ${context}\nusers: [{name: lab, user: {username: lab}}]\n`,
    { mode: 0o600 },
  );
  const bin = path.join(home, "bin");
  mkdirSync(bin);
  const kubectl = findOnPath("kubectl");
  if (kubectl === undefined) throw new Error("the real kubectl is not on PATH");
  symlinkSync(kubectl, path.join(bin, "kubectl"));
  symlinkSync(process.execPath, path.join(bin, "node"));
  return { home, env: { HOME: home, PATH: bin, TERM: "xterm" } };
}

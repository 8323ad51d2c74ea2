/**
 * The entries of the built binary as real processes: the package's `bin`,
 * dist/cli.cjs (CommonJS, run through a link named `torii` as npm links it),
 * and dist/cli.js, what `torii agent install` registered with clients. A
 * one-line answer and a plain `target activate` load no ES module, so Node's
 * ES module loader never starts for them: that is counted in the internal
 * modules the process loaded (`process.moduleLoadList`), against an empty
 * CommonJS script run by the same node.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { startSession } from "../support/mcp-session.js";
import { BIN_PATH, CLI_PATH } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

function tree(): string {
  return makeConfigTree({
    "providers/demo/provider.yaml": 'version: "1"\nname: demo\ntool: demo\ncommand: echo\nargv:\n  parser: plain\n',
    "providers/demo/rules.yaml": 'version: "1"\naccept: [hello]\n',
    "providers/kube/provider.yaml": kubeContextProvider("echo"),
    "providers/kube/rules.yaml": 'version: "1"\naccept: []\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: demo}\n',
  });
}

/** A bin directory with `torii` linked to the package's bin, as `npm install -g` leaves it. */
function linkedTorii(): string {
  const link = path.join(tempDirectory("torii-prefix-bin-"), "torii");
  symlinkSync(BIN_PATH, link);
  return link;
}

/** Runs `node <script> ...args` as a real process; `stdout`, `stderr` and the exit status. */
function run(script: string, args: readonly string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [script, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/", ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Preloaded (`--require`): writes the internal modules the process loaded, one a line, to the file `$TORII_TEST_MODULES` at exit. */
const MODULE_PROBE = `process.on("exit", () => require("node:fs").writeFileSync(process.env.TORII_TEST_MODULES, process.moduleLoadList.join("\\n")));`;

/** The internal modules of Node's ES module loader (`internal/modules/esm/*`) that `node --require probe <args>` loaded. */
function esmLoaderModules(args: readonly string[], env: Record<string, string> = {}): string[] {
  const dir = tempDirectory("torii-modules-");
  const probe = path.join(dir, "probe.cjs");
  writeFileSync(probe, MODULE_PROBE);
  const modules = path.join(dir, "modules.txt");
  const result = spawnSync(process.execPath, ["--require", probe, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", TORII_TEST_MODULES: modules, ...env },
  });
  expect(result.status, result.stderr).toBe(0);
  return readFileSync(modules, "utf8")
    .split("\n")
    .filter((name) => name.includes("internal/modules/esm/"));
}

describe("the torii binary's entries", () => {
  test("package.json's bin is dist/cli.cjs; through npm's kind of link it answers --version, runs commander and serves MCP", async () => {
    expect(path.basename(BIN_PATH)).toBe("cli.cjs");
    const torii = linkedTorii();
    expect(run(torii, ["--version"])).toEqual({ status: 0, stdout: `${VERSION}\n`, stderr: "" });
    const help = run(torii, ["target", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: torii target/mu);
    const session = await startSession(tree(), {}, { entry: torii });
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("demo");
    } finally {
      await session.close();
    }
  });

  test("dist/cli.js, the entry of existing client registrations, runs the same commands", () => {
    const root = tree();
    expect(run(CLI_PATH, ["--version"])).toEqual({ status: 0, stdout: `${VERSION}\n`, stderr: "" });
    const activated = run(CLI_PATH, ["target", "activate", "kube", "dev", "--for", "5", "--json"], { TORII_CONFIG_DIR: root });
    expect(activated.status, activated.stderr).toBe(0);
    expect(JSON.parse(activated.stdout)).toMatchObject({ action: "target-activated", target: "dev", minutes: 5 });
  });

  test("--version and a plain target activate load no more of Node's ES module loader than an empty CommonJS script", () => {
    const empty = path.join(tempDirectory("torii-empty-"), "empty.cjs");
    writeFileSync(empty, "");
    const baseline = esmLoaderModules([empty]);
    const root = tree();
    // Twice: the first run compiles the activate bundle and stores its code cache, the second runs from it.
    for (const args of [["--version"], ["target", "activate", "kube", "dev"], ["target", "activate", "kube", "dev"]]) {
      expect(esmLoaderModules([BIN_PATH, ...args], { TORII_CONFIG_DIR: root }), args.join(" ")).toEqual(baseline);
    }
    // The control: an operator command through commander imports the ES module chunks, and the loader comes with them.
    expect(esmLoaderModules([BIN_PATH, "target", "list", "kube"], { TORII_CONFIG_DIR: root }).length).toBeGreaterThan(baseline.length);
  });
});

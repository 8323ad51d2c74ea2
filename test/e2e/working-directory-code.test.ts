/**
 * A Python-based CLI does not run code planted in the agent's working directory
 * (docs/environment.md, "Code and configuration in the working directory"),
 * through the real server whose working directory holds a `pip.py` that writes
 * a marker: a Python started with `-m` puts its working directory first on
 * `sys.path`, and the real az installs an extension with `python -m pip`
 * (verified by hand with `az extension add`, which the bundled provider locks).
 * The real kubectl starts the operator's exec credential plugin
 * `python3 -m json.tool` there too, beside a planted `json` package.
 * The provider's `runtime.fixed_env` sets `PYTHONSAFEPATH=1`
 * in the child; the bundled az also fixes `AZURE_EXTENSION_USE_DYNAMIC_INSTALL=no`,
 * so the operator's `extension.use_dynamic_install` never makes a call install
 * an extension. A `.azure/config` whose `[defaults]` would fill in the
 * resource group of a call that left it out (az reads it in its working
 * directory and every parent) makes Torii refuse the call
 * (`runtime.working_directory_config`). The real az of this machine runs with
 * a throw-away HOME (its configuration and extension directory); nothing
 * leaves 127.0.0.1.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { bundledProviderFilesWithout, makeConfigTree } from "../support/config-tree.js";
import { writeExecutable } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { tempDirectory } from "../support/temp-dirs.js";

const SYSTEM_PYTHON = "/usr/bin/python3";
const AZ = "/usr/bin/az";

/** True when `python` is 3.11 or later, the first version that reads PYTHONSAFEPATH. */
function readsSafePath(python: string): boolean {
  if (!existsSync(python)) return false;
  const version = execFileSync(python, ["-c", "import sys; print(sys.version_info >= (3, 11))"], { encoding: "utf8" });
  return version.trim() === "True";
}

const safePathPython = readsSafePath(SYSTEM_PYTHON);
const realAz = safePathPython && existsSync(AZ);
const ACCEPT_ALL = 'version: "1"\naccept: ["/.*/"]\n';

let base: string;
let work: string;
let marker: string;
let azHome: string;
let jsonMarker: string;
let session: McpSession;

beforeAll(async () => {
  base = tempDirectory("torii-workdir-code-");
  // The project lies under the child's HOME, as usual: az's search for .azure/config stops there (and so does Torii's check).
  azHome = path.join(base, "home");
  work = path.join(azHome, "project");
  marker = path.join(base, "planted-pip-ran");
  mkdirSync(work, { recursive: true });
  writeFileSync(path.join(work, "pip.py"), `open(${JSON.stringify(marker)}, "w").write("planted")\nraise SystemExit(3)\n`);
  // A package named like the standard library's json, which `python3 -m json.tool` would import from a working directory on sys.path.
  jsonMarker = path.join(base, "planted-json-ran");
  mkdirSync(path.join(work, "json"));
  writeFileSync(path.join(work, "json", "__init__.py"), `open(${JSON.stringify(jsonMarker)}, "w").write("planted")\n`);
  writeFileSync(path.join(work, "json", "tool.py"), "raise SystemExit(3)\n");
  // The operator's kubeconfig: an exec credential plugin run as a Python module, a cluster on a closed loopback port.
  const credential = path.join(base, "credential.json");
  writeFileSync(credential, JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "t" } }));
  const kubeconfig = path.join(base, "kubeconfig");
  writeFileSync(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:9'}}]",
      "contexts: [{name: c, context: {cluster: c, user: u}}]",
      "current-context: c",
      `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never, command: ${SYSTEM_PYTHON}, args: [-m, json.tool, ${JSON.stringify(credential)}]}}}]`,
      "",
    ].join("\n"),
  );
  // The operator's az configuration: installs extensions on demand, from an index on a closed loopback port.
  mkdirSync(path.join(azHome, ".azure"), { recursive: true });
  writeFileSync(path.join(azHome, ".azure", "config"), "[extension]\nuse_dynamic_install = yes_without_prompt\nindex_url = http://127.0.0.1:9/index.json\n");
  // az's cache of which extension owns which command (downloaded otherwise).
  writeFileSync(path.join(azHome, ".azure", "extensionCommandTree.json"), JSON.stringify({ frobnicate: { list: "other-ext" } }));
  const tools = path.join(base, "tools");
  // A CLI that runs a Python module, as az runs `python -m pip`.
  writeExecutable(path.join(tools, "py-module"), `#!/bin/sh\nexec ${SYSTEM_PYTHON} -m pip "$@"\n`);
  const pythonProvider = (name: string, runtime: string): string =>
    `version: "1"\nname: ${name}\ntool: ${name}\ncommand: ${path.join(tools, "py-module")}\n${runtime}`;
  const root = makeConfigTree({
    ...bundledProviderFilesWithout("az", [
      ["targeting", "mode"],
      ["auth", "identity"],
    ]),
    "providers/az/rules.yaml": ACCEPT_ALL,
    ...bundledProviderFilesWithout("kubectl", [["targeting", "mode"]]),
    "providers/kubectl/rules.yaml": ACCEPT_ALL,
    "providers/kubectl/.env": `KUBECONFIG=${kubeconfig}\n`,
    "providers/pysafe/provider.yaml": pythonProvider("pysafe", 'runtime:\n  fixed_env: {PYTHONSAFEPATH: "1"}\n'),
    "providers/pysafe/rules.yaml": ACCEPT_ALL,
    "providers/pysafe/.env": "PYTHONSAFEPATH=\n",
    "providers/pybare/provider.yaml": pythonProvider("pybare", ""),
    "providers/pybare/rules.yaml": ACCEPT_ALL,
  });
  session = await startSession(root, { PATH: "/usr/bin:/bin", HOME: azHome }, { cwd: work });
});

afterAll(async () => {
  await session.close();
});

beforeEach(() => {
  rmSync(marker, { force: true });
  rmSync(jsonMarker, { force: true });
});

describe.skipIf(!safePathPython)("a Python module the CLI starts with -m", () => {
  test("does not import a pip.py planted in the working directory when fixed_env sets PYTHONSAFEPATH, over a .env that clears it", async () => {
    const outcome = outcomeOf(await session.call("pysafe", { args: ["--version"] }));
    expect(outcome.execution).toBeDefined();
    expect(existsSync(marker)).toBe(false);
  });

  test("imports it without the fixed value (the planted file is live, so the test above means something)", async () => {
    const outcome = outcomeOf(await session.call("pybare", { args: ["--version"] }));
    expect(outcome.execution?.exit_code).toBe(3);
    expect(existsSync(marker)).toBe(true);
  });
});

describe.skipIf(!safePathPython || !existsSync("/usr/bin/kubectl"))("the real kubectl, bundled provider", () => {
  test("an exec credential plugin run as a Python module does not import a json package planted in the working directory", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["get", "pods", "--request-timeout=20s"] }, { timeout: 120_000 }));
    expect(outcome.execution, JSON.stringify(outcome)).toBeDefined();
    // The plugin ran (kubectl got its token and then found the port closed), with the real json.tool.
    expect(outcome.execution?.stderr).toMatch(/127\.0\.0\.1:9/u);
    expect(existsSync(jsonMarker)).toBe(false);
  });
});

describe.skipIf(!realAz)("the real az, bundled provider", () => {
  test("a .azure/config planted in the working directory, whose defaults az would take, refuses the call before az starts", async () => {
    mkdirSync(path.join(work, ".azure"), { recursive: true });
    writeFileSync(path.join(work, ".azure", "config"), "[defaults]\ngroup = planted-rg\n");
    try {
      const outcome = outcomeOf(await session.call("az", { args: ["group", "show"] }, { timeout: 120_000 }));
      expect(outcome.execution, JSON.stringify(outcome)).toBeUndefined();
      expect(outcome.error).toContain(path.join(work, ".azure", "config"));
    } finally {
      rmSync(path.join(work, ".azure"), { recursive: true, force: true });
    }
    // Without the file az runs, and asks for the group the call left out.
    const outcome = outcomeOf(await session.call("az", { args: ["group", "show"] }, { timeout: 120_000 }));
    expect(`${outcome.execution?.stderr ?? ""}`).toMatch(/the following arguments are required: --name\/-n\/--resource-group\/-g/u);
  });

  test("a command of an uninstalled extension is not installed on demand, whatever the operator's az configuration says", async () => {
    const outcome = outcomeOf(await session.call("az", { args: ["frobnicate", "list"] }, { timeout: 120_000 }));
    const output = `${outcome.execution?.stdout ?? ""}${outcome.execution?.stderr ?? ""}`;
    expect(outcome.execution?.exit_code).not.toBe(0);
    expect(output).not.toMatch(/requires the extension other-ext/u);
    expect(output).toMatch(/'frobnicate' is misspelled or not recognized/u);
  });
});

/**
 * az local file writes and the extension floor through the real server, with a
 * fake `az` at the boundary (the real one is not on every machine): like az, it
 * writes to the path after `-f`/`--file`, and records every run. Red team 8 F3:
 * `az storage blob download -f ~/.azure/config` under the rule `storage`; F5:
 * `az extension add --source` installs code every later az call loads. Commands that
 * install or start local programs (`aks install-cli --base-src-url`, the serviceconnector
 * commands that run `sh -c` lines) are refused; default-place writes (`vm create
 * --generate-ssh-keys`, `webapp up`) are held like any file write.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { bundledProviderFilesWithout, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { underRules, type CallView } from "../support/rules-views.js";

const ORIGINAL = "[core]\noutput = json\n";

/**
 * A fake az: appends its argv to RUNS and writes PLANTED where the call's writing
 * option points, read as argparse reads it (red team 9 F1): `storage blob download`
 * writes the file of `-f`/`--file`; the directory downloads and `storage copy`
 * write `config` into the directory of `-d`/`--destination-path`, also when `-d`
 * ends a cluster of switches (`-rd DIR`, `-rdDIR`, `-rd=DIR` are `-r -d DIR`).
 */
const FAKE_AZ = `
const fs = require("node:fs");
const args = process.argv.slice(2);
fs.appendFileSync(process.env.HOME + "/runs.log", JSON.stringify(args) + "\\n");
const letter = args[1] === "blob" && args[2] === "download" ? "f" : "d";
const long = letter === "f" ? "--file" : "--destination-path";
const cluster = new RegExp("^-[a-z]*?" + letter + "=?(.*)$");
for (let i = 0; i < args.length; i += 1) {
  const match = args[i].startsWith("--") ? null : cluster.exec(args[i]);
  const target = args[i] === long ? args[i + 1] : match ? match[1] || args[i + 1] : undefined;
  if (target !== undefined) fs.writeFileSync(letter === "f" ? target : target + "/config", "PLANTED\\n");
}
`;

/** The bundled provider without targets and identity check, its file_writes and floor as shipped. */
const PROVIDER = bundledProviderFilesWithout("az", [
  ["targeting", "mode"],
  ["auth", "identity"],
]);

const BROAD = `version: "1"\naccept:\n  - storage\n  - /^extension /\n  - aks\n  - vm\n  - webapp\n  - connection\n`;
const NAMED = `version: "1"\naccept:\n  - storage blob download\n  - storage fs directory download\n`;

let home: string;
let session: McpSession;
/** The one server under the broad rules, and under the rules naming the downloads (each call writes its rules first). */
let broad: CallView;
let named: CallView;
const configFile = (): string => path.join(home, ".azure", "config");
const runsLog = (): string => path.join(home, "runs.log");
const downloadInto = (file: string): string[] => ["storage", "blob", "download", "-c", "c", "-n", "b", "-f", file];

beforeAll(async () => {
  const bin = makeFakeBin({ az: FAKE_AZ });
  home = makeConfigTree({});
  mkdirSync(path.join(home, ".azure"));
  const root = makeConfigTree({ ...PROVIDER, "providers/az/rules.yaml": BROAD });
  session = await startSession(root, { HOME: home, PATH: `${bin.dir}${path.delimiter}/usr/bin:/bin` });
  const rulesFile = path.join(root, "providers", "az", "rules.yaml");
  broad = underRules(session, rulesFile, BROAD);
  named = underRules(session, rulesFile, NAMED);
});

afterAll(async () => {
  await session.close();
});

beforeEach(() => {
  writeFileSync(configFile(), ORIGINAL);
  writeFileSync(runsLog(), "");
});

describe("az calls that write a local file or install code, through Torii", () => {
  test.each(["-f", "--file", "--fi"])("the rule `storage` does not accept a download with %j: az never runs, the config is byte-identical", async (flag) => {
    const args = downloadInto(configFile()).map((token) => (token === "-f" ? flag : token));
    const outcome = outcomeOf(await broad.call("az", { args }));
    expect(outcome.decision.result).toBe("deny");
    expect(outcome.execution).toBeUndefined();
    expect(readFileSync(configFile(), "utf8")).toBe(ORIGINAL);
    expect(readFileSync(runsLog(), "utf8")).toBe("");
  });

  test.each(["-rd DIR", "-rdDIR", "-rd=DIR", "-r -d DIR"])(
    "the rule `storage` does not accept a directory download into ~/.azure with %j (-d ending a cluster of switches): az never runs",
    async (write) => {
      const spelled = write.split(" ").map((token) => token.replace("DIR", path.dirname(configFile())));
      for (const args of [
        ["storage", "fs", "directory", "download", "-f", "fs", "-s", "src", ...spelled],
        ["storage", "copy", "-s", "src", ...spelled],
      ]) {
        const outcome = outcomeOf(await broad.call("az", { args }));
        expect(outcome.decision.result, args.join(" ")).toBe("deny");
        expect(outcome.execution).toBeUndefined();
      }
      expect(readFileSync(configFile(), "utf8")).toBe(ORIGINAL);
      expect(readFileSync(runsLog(), "utf8")).toBe("");
    },
  );

  test("a rule naming storage fs directory download accepts `-rd DIR`, and az writes into DIR (the fake reads the cluster as az does)", async () => {
    const into = path.join(home, "downloads");
    mkdirSync(into, { recursive: true });
    const outcome = outcomeOf(await named.call("az", { args: ["storage", "fs", "directory", "download", "-f", "fs", "-s", "src", "-rd", into] }));
    expect(outcome.decision.result).toBe("allow");
    expect(readFileSync(path.join(into, "config"), "utf8")).toBe("PLANTED\n");
    expect(readFileSync(configFile(), "utf8")).toBe(ORIGINAL);
  });

  test("extension add --source is refused whatever the rules", async () => {
    const outcome = outcomeOf(await broad.call("az", { args: ["extension", "add", "--source", path.join(home, "x-0.1-py3-none-any.whl"), "-y"] }));
    expect(outcome.decision).toMatchObject({ result: "deny" });
    expect(outcome.execution).toBeUndefined();
    expect(readFileSync(runsLog(), "utf8")).toBe("");
  });

  test.each([
    ["aks", "install-cli", "--base-src-url", "http://127.0.0.1:9/kubectl", "--install-location", "BIN/kubectl"],
    ["aks", "install-cli", "--kubelogin-base-src-url", "http://127.0.0.1:9/kubelogin"],
    ["upgrade", "--yes"],
    ["webapp", "connection", "list", "-g", "x;touch PWNED;", "-n", "app"],
  ])("%s … (a command that installs or starts local programs) is refused whatever the rules: az never runs", async (...argv) => {
    const args = argv.map((token) => token.replace("BIN", home).replace("PWNED", path.join(home, "pwned")));
    const outcome = outcomeOf(await broad.call("az", { args }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-command" });
    expect(outcome.execution).toBeUndefined();
    expect(readFileSync(runsLog(), "utf8")).toBe("");
    expect(existsSync(path.join(home, "kubectl"))).toBe(false);
  });

  test.each([
    [["vm", "create", "-g", "g", "-n", "v", "--image", "Ubuntu2204", "--generate-ssh-keys"], "~/.ssh/id_rsa"],
    [["webapp", "up", "-n", "app"], ".azure/config"],
    [["webapp", "log", "download", "-g", "g", "-n", "app"], "webapp_logs.zip"],
  ])("a broad rule does not accept %j, which writes at a default place (%s) with no argument naming it: az never runs", async (args) => {
    const outcome = outcomeOf(await broad.call("az", { args }));
    expect(outcome.decision.result).toBe("deny");
    // Held, not denied by a rule: headless, the operator's approval is unavailable.
    expect(outcome.decision.reason).toContain("no operator approval is available");
    expect(outcome.execution).toBeUndefined();
    expect(readFileSync(runsLog(), "utf8")).toBe("");
  });

  test("the same broad rules run the commands' calls that write nothing locally (the hold above is the file write)", async () => {
    for (const args of [
      ["vm", "list"],
      ["webapp", "list"],
    ]) {
      expect(outcomeOf(await broad.call("az", { args })).decision.result, args.join(" ")).toBe("allow");
    }
    expect(readFileSync(runsLog(), "utf8")).toContain('["vm","list"]');
  });

  test("a rule that names storage blob download accepts it, and az writes the file it was given", async () => {
    const target = path.join(home, "blob.txt");
    const outcome = outcomeOf(await named.call("az", { args: downloadInto(target) }));
    expect(outcome.decision.result).toBe("allow");
    expect(existsSync(target) && readFileSync(target, "utf8")).toBe("PLANTED\n");
    expect(readFileSync(runsLog(), "utf8")).toContain("blob.txt");
    expect(readFileSync(configFile(), "utf8")).toBe(ORIGINAL);
  });
});

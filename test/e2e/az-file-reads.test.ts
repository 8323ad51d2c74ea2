/**
 * az reads a local file named by a bare path (no `@`), through the real server,
 * with a fake `az` at the boundary: like azure-cli's AAZ compound arguments, it
 * loads the value of `--tags` from the file when the path exists (`~` expanded)
 * and echoes what it loaded in its error (red team 10 F1). A broad rule no longer
 * accepts the call; a rule naming the command does; a path into a credential
 * store is refused whatever the rules.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { bundledProviderFilesWithout, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { underRules, type CallView } from "../support/rules-views.js";

/** A fake az: records its argv, and loads `--tags`/`--tags=` from an existing path, echoing it as az's parse error does. */
const FAKE_AZ = `
const fs = require("node:fs");
const args = process.argv.slice(2);
fs.appendFileSync(process.env.HOME + "/runs.log", JSON.stringify(args) + "\\n");
for (let i = 0; i < args.length; i += 1) {
  const value = args[i] === "--tags" ? args[i + 1] : args[i].startsWith("--tags=") ? args[i].slice(7) : undefined;
  const file = value === undefined ? undefined : value.replace(/^~(?=\\/)/, process.env.HOME);
  if (file !== undefined && fs.existsSync(file)) {
    process.stderr.write("Failed to parse file: " + fs.readFileSync(file, "utf8"));
    process.exit(1);
  }
}
process.stdout.write("[]\\n");
`;

const PROVIDER = bundledProviderFilesWithout("az", [
  ["targeting", "mode"],
  ["auth", "identity"],
]);

const SEARCH = ["monitor", "log-analytics", "query-pack", "query", "search", "-g", "g", "--query-pack-name", "q"];

const BROAD = `version: "1"\naccept:\n  - /.*/\n  - monitor\n`;
const NAMED = `version: "1"\naccept:\n  - monitor log-analytics query-pack query search\n`;

let home: string;
let session: McpSession;
/** The one server under the broad rules, and under the rule naming the command (each call writes its rules first). */
let broad: CallView;
let named: CallView;
const runsLog = (): string => path.join(home, "runs.log");

beforeAll(async () => {
  const bin = makeFakeBin({ az: FAKE_AZ });
  home = makeConfigTree({});
  mkdirSync(path.join(home, ".azure"));
  writeFileSync(path.join(home, ".azure", "msal_token_cache.json"), '{"secret": "SECRET-TOKEN-CACHE"}\n');
  writeFileSync(path.join(home, "notes.json"), '{"note": "LOCAL-NOTES"}\n');
  const root = makeConfigTree({ ...PROVIDER, "providers/az/rules.yaml": BROAD });
  session = await startSession(root, { HOME: home, PATH: `${bin.dir}${path.delimiter}/usr/bin:/bin` });
  const rulesFile = path.join(root, "providers", "az", "rules.yaml");
  broad = underRules(session, rulesFile, BROAD);
  named = underRules(session, rulesFile, NAMED);
}, 30_000);

afterAll(async () => {
  await session.close();
});

beforeEach(() => {
  writeFileSync(runsLog(), "");
});

describe("az arguments that read a bare local path, through Torii", () => {
  test.each([
    ["--tags PATH", (file: string) => ["--tags", file]],
    ["--tags=PATH", (file: string) => [`--tags=${file}`]],
    ["--ta PATH", (file: string) => ["--ta", file]],
  ])("a broad rule does not accept %s: az never runs, nothing is echoed", async (_name, spell) => {
    const outcome = outcomeOf(await broad.call("az", { args: [...SEARCH, ...spell(path.join(home, "notes.json"))] }));
    expect(outcome.decision.result).toBe("deny");
    // Held, not denied by a rule: headless, the operator's approval is unavailable, so the call is denied.
    expect(outcome.decision.reason).toContain("no operator approval is available");
    expect(outcome.execution).toBeUndefined();
    expect(readFileSync(runsLog(), "utf8")).toBe("");
  });

  test("the same broad rule still accepts the command without a path-taking argument", async () => {
    const outcome = outcomeOf(await broad.call("az", { args: SEARCH }));
    expect(outcome.decision.result).toBe("allow");
    expect(readFileSync(runsLog(), "utf8")).not.toBe("");
  });

  test("a rule naming the command accepts it, and az reads the file it was given (the fake is what the hold stops)", async () => {
    const result = await named.call("az", { args: [...SEARCH, "--tags", path.join(home, "notes.json")] });
    expect(outcomeOf(result).decision.result).toBe("allow");
    expect(JSON.stringify(result)).toContain("LOCAL-NOTES");
  });

  test.each([
    ["acr", "build", "-r", "r", "-t", "img:1", "HOME/project"],
    ["storage", "blob", "upload-batch", "-d", "c", "--account-name", "a", "-s", "HOME/project"],
    ["webapp", "up", "-n", "app"],
  ])("a broad rule does not accept the upload %s …: az never runs, nothing leaves the machine", async (...argv) => {
    const outcome = outcomeOf(await broad.call("az", { args: argv.map((token) => token.replace("HOME", home)) }));
    expect(outcome.decision.result).toBe("deny");
    expect(outcome.decision.reason).toContain("no operator approval is available");
    expect(outcome.execution).toBeUndefined();
    expect(readFileSync(runsLog(), "utf8")).toBe("");
  });

  test.each(["~/.azure/msal_token_cache.json", "HOME/.azure/msal_token_cache.json", "k=~/.azure/msal_token_cache.json"])(
    "%s is refused even under the rule naming the command: az never runs, the token cache never reaches the agent",
    async (value) => {
      const result = await named.call("az", { args: [...SEARCH, "--tags", value.replace("HOME", home)] });
      expect(outcomeOf(result)).toMatchObject({ decision: { result: "deny", source: "forbidden-value" } });
      expect(outcomeOf(result).execution).toBeUndefined();
      expect(JSON.stringify(result)).not.toContain("SECRET-TOKEN-CACHE");
      expect(readFileSync(runsLog(), "utf8")).toBe("");
    },
  );
});

/**
 * The real gcloud and `secrets versions access --out-file`, with a local HTTP
 * server on 127.0.0.1 as the Secret Manager endpoint (api_endpoint_overrides) and
 * a token file as the credential. Control, without Torii: gcloud writes the secret
 * over its own properties file (red team 8 F3: the planted configuration then sends
 * the token elsewhere). Through Torii, the rule `secrets` does not accept it: nothing
 * runs, the properties file stays byte-identical and the server receives nothing;
 * a rule that names `secrets versions access` accepts it.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { GCLOUD_CHILD_PATH, gcloudProviderWithoutTargets, runGcloudDirectly } from "../support/real-gcloud.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const PLANTED = "[api_endpoint_overrides]\ncompute = http://127.0.0.1:1/\n";
const PROVIDER = gcloudProviderWithoutTargets();
const CHILD_PATH = GCLOUD_CHILD_PATH;

let server: Server;
let requests = 0;
let home: string;
let original: string;
let broad: McpSession;
let named: McpSession;
let broadRoot: string;

const propertiesFile = (): string => path.join(home, ".config", "gcloud", "properties");
const accessInto = (file: string): string[] => ["secrets", "versions", "access", "1", "--secret=s", `--out-file=${file}`];

beforeAll(async () => {
  server = createServer((request, response) => {
    requests += 1;
    request.resume();
    const payload = { name: "projects/p/secrets/s/versions/1", payload: { data: Buffer.from(PLANTED).toString("base64") } };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
  home = makeConfigTree({ token: "test-token\n" });
  mkdirSync(path.join(home, ".config", "gcloud"), { recursive: true });
  original =
    `[core]\nproject = p\ndisable_usage_reporting = true\n[auth]\naccess_token_file = ${path.join(home, "token")}\n` +
    `[api_endpoint_overrides]\nsecretmanager = ${base}\n`;
  const tree = (rules: string): string => makeConfigTree({ ...PROVIDER, "providers/gcloud/rules.yaml": rules });
  broadRoot = tree(`version: "1"\naccept:\n  - secrets\n`);
  [broad, named] = await Promise.all([
    startSession(broadRoot, { HOME: home, PATH: CHILD_PATH }),
    startSession(tree(`version: "1"\naccept:\n  - secrets versions access\n`), { HOME: home, PATH: CHILD_PATH }),
  ]);
});

afterAll(async () => {
  await Promise.all([broad.close(), named.close()]);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  writeFileSync(propertiesFile(), original);
  requests = 0;
});

describe("gcloud calls that write a local file, through Torii", () => {
  test("control: gcloud itself writes the secret over its own properties file", async () => {
    expect(await runGcloudDirectly(accessInto(propertiesFile()), home)).toBe(0);
    expect(readFileSync(propertiesFile(), "utf8")).toBe(PLANTED);
  }, 90_000);

  test("the rule `secrets` does not accept it: nothing runs and the properties file is byte-identical", async () => {
    const outcome = outcomeOf(await broad.call("gcloud", { args: accessInto(propertiesFile()) }));
    expect(outcome.decision.result).toBe("deny");
    expect(outcome.execution).toBeUndefined();
    expect(readFileSync(propertiesFile(), "utf8")).toBe(original);
    expect(requests).toBe(0);
  });

  test("torii policy check says why (the command writes a local file) without quoting the path", async () => {
    // A path into ~/.config/gcloud is refused outright (credential-paths.ts); the hold is shown with a path elsewhere.
    const result = await runCli(["policy", "check", "gcloud", "--", ...accessInto(path.join(home, "properties"))], { TORII_CONFIG_DIR: broadRoot, HOME: home });
    const report = JSON.parse(result.stdout) as { decision: string; reason: string };
    expect(report.decision).toBe("unresolved");
    expect(report.reason).toContain("gcloud secrets versions access can write a local file at the path given by --out-file");
    expect(report.reason).not.toContain("properties");
  });

  test("a rule that names secrets versions access accepts it, and gcloud writes the file", async () => {
    const target = path.join(home, "secret.txt");
    const outcome = outcomeOf(await named.call("gcloud", { args: accessInto(target) }, { timeout: 90_000 }));
    expect(outcome.decision.result).toBe("allow");
    expect(readFileSync(target, "utf8")).toBe(PLANTED);
    expect(readFileSync(propertiesFile(), "utf8")).toBe(original);
  }, 90_000);
});

/**
 * Red team 9 F3 with the real gcloud: `core/project` pins the project and
 * `--project` is locked, but a full resource name (`projects/OTHER/…`) sends
 * the request to the project it names. A local Secret Manager endpoint
 * (test/support/secretmanager-stub.ts) records which project gcloud asks for.
 * Control, without Torii: gcloud asks for the other project. Through Torii with
 * the broad rule `secrets`: refused as --project before anything runs, the
 * endpoint receives nothing; the short name still runs in the pinned project.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { GCLOUD_CHILD_PATH, gcloudProviderWithoutTargets, runGcloudDirectly } from "../support/real-gcloud.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { secretPayloadOf, startSecretManagerStub, type SecretManagerStub } from "../support/secretmanager-stub.js";

const PINNED = "pinned-proj-1";
const OTHER = "other-proj-9";
const CHILD_PATH = GCLOUD_CHILD_PATH;
const PROVIDER = gcloudProviderWithoutTargets();

let stub: SecretManagerStub;
let home: string;
let session: McpSession;

beforeAll(async () => {
  stub = await startSecretManagerStub();
  home = makeConfigTree({ token: "test-token\n" });
  mkdirSync(path.join(home, ".config", "gcloud"), { recursive: true });
  writeFileSync(
    path.join(home, ".config", "gcloud", "properties"),
    `[core]\nproject = ${PINNED}\ndisable_usage_reporting = true\n[auth]\naccess_token_file = ${path.join(home, "token")}\n` +
      `[api_endpoint_overrides]\nsecretmanager = ${stub.endpoint}\n`,
  );
  const root = makeConfigTree({ ...PROVIDER, "providers/gcloud/rules.yaml": `version: "1"\naccept:\n  - secrets\n` });
  session = await startSession(root, { HOME: home, PATH: CHILD_PATH });
});

afterAll(async () => {
  await session.close();
  await stub.close();
});

beforeEach(() => {
  stub.paths.length = 0;
});

const otherProjectsSecret = ["secrets", "versions", "access", `projects/${OTHER}/secrets/s/versions/latest`];

describe("gcloud: a full resource name naming another project, through Torii", () => {
  test("control: gcloud itself asks the other project, although core/project pins another", async () => {
    expect(await runGcloudDirectly(otherProjectsSecret, home)).toBe(0);
    expect(stub.paths).toEqual([`/v1/projects/${OTHER}/secrets/s/versions/latest:access`]);
  }, 90_000);

  test.each([
    ["a resource name", otherProjectsSecret],
    ["a URL-encoded resource name", ["secrets", "versions", "access", `projects%2F${OTHER}%2Fsecrets%2Fs%2Fversions%2Flatest`]],
    ["a googleapis URI", ["secrets", "describe", `https://secretmanager.googleapis.com/v1/projects/${OTHER}/secrets/s`]],
    ["a value after --", ["secrets", "versions", "access", "--", `projects/${OTHER}/secrets/s/versions/latest`]],
  ])("%s is refused as --project under the rule `secrets`: nothing runs, the endpoint hears nothing", async (_what, args) => {
    const result = await session.call("gcloud", { args });
    const outcome = outcomeOf(result);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(outcome.execution).toBeUndefined();
    expect(stub.paths).toEqual([]);
    expect(JSON.stringify(result)).not.toContain(OTHER);
  });

  test("the short name runs in the pinned project", async () => {
    const outcome = outcomeOf(await session.call("gcloud", { args: ["secrets", "versions", "access", "latest", "--secret=s"] }, { timeout: 90_000 }));
    expect(outcome.decision.result).toBe("allow");
    expect(outcome.execution?.stdout).toContain(secretPayloadOf(PINNED));
    expect(stub.paths).toEqual([`/v1/projects/${PINNED}/secrets/s/versions/latest:access`]);
  }, 90_000);
});

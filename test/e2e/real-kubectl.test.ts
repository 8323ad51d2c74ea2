/**
 * The real kubectl through Torii, with the bundled provider's option table and
 * locked options. (Target leases arrive with the lease store, so this suite uses
 * the bundled provider without `targeting.mode`; its locked options stay.)
 * kubectl needs no cluster for `version --client` and `config get-contexts`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";

const bundled = readFileSync(fileURLToPath(new URL("../../providers/kubectl/provider.yaml", import.meta.url)), "utf8");

function untargetedKubectl(): string {
  const doc = parseDocument(bundled);
  doc.deleteIn(["targeting", "mode"]);
  return String(doc);
}

const RULES = `version: "1"
deny:
  - get --raw
accept:
  - version --client
  - config get-contexts
  - config view
`;

let session: McpSession;
let home: string;

beforeAll(async () => {
  const root = makeConfigTree({ "providers/kubectl/provider.yaml": untargetedKubectl(), "providers/kubectl/rules.yaml": RULES });
  // The server's own KUBECONFIG names a cluster the agent must never reach.
  home = makeConfigTree({});
  const evil = path.join(home, "evil-kubeconfig");
  writeFileSync(
    evil,
    "apiVersion: v1\nkind: Config\nclusters: [{name: evil, cluster: {server: 'https://evil.invalid'}}]\ncontexts: [{name: evil, context: {cluster: evil, user: evil}}]\ncurrent-context: evil\nusers: [{name: evil, user: {token: server-secret-token}}]\n",
  );
  mkdirSync(path.join(home, ".kube"));
  session = await startSession(root, { HOME: home, KUBECONFIG: evil });
});

afterAll(async () => {
  await session.close();
});

describe("kubectl through Torii", () => {
  test("an accepted call runs the real kubectl and returns its output", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["version", "--client", "-o", "json"] }));
    expect(outcome.decision).toMatchObject({ result: "allow", rule: "version --client" });
    expect(outcome.execution?.exit_code).toBe(0);
    const version = JSON.parse(outcome.execution?.stdout ?? "") as { clientVersion?: { major?: string } };
    expect(version.clientVersion?.major).toBe("1");
  });

  test("every spelling of the same call is decided and run alike", async () => {
    const spellings = [
      ["version", "--client", "-o", "json"],
      ["version", "--client", "-ojson"],
      ["version", "--client=true", "--output=json"],
      ["version", "-o=json", "--client"],
    ];
    const stdouts = new Set<string>();
    for (const args of spellings) {
      const outcome = outcomeOf(await session.call("kubectl", { args }));
      expect(outcome.decision.result, args.join(" ")).toBe("allow");
      stdouts.add(outcome.execution?.stdout ?? "");
    }
    expect(stdouts.size).toBe(1);
  });

  test("the server's KUBECONFIG never reaches kubectl", async () => {
    const outcome = outcomeOf(await session.call("kubectl", { args: ["config", "get-contexts", "-o", "name"] }));
    expect(outcome.decision.result).toBe("allow");
    expect(outcome.execution?.exit_code).toBe(0);
    expect(outcome.execution?.stdout).not.toContain("evil");
  });

  test("config view is a locked command in every form, a rule accepting it notwithstanding", async () => {
    for (const args of [
      ["config", "view"],
      ["config", "view", "-o", "json"],
      ["config", "view", "--raw"],
      ["config", "--raw", "view"],
    ]) {
      const outcome = outcomeOf(await session.call("kubectl", { args }));
      expect(outcome.decision, args.join(" ")).toMatchObject({ result: "deny" });
      expect(outcome.execution, args.join(" ")).toBeUndefined();
    }
  });

  test("deny rules match every spelling: get --raw", async () => {
    for (const args of [
      ["get", "--raw", "/api/v1/secrets"],
      ["get", "--raw=/api/v1/secrets"],
      ["get", "-o", "json", "--raw", "/api"],
    ]) {
      const outcome = outcomeOf(await session.call("kubectl", { args }));
      expect(outcome.decision, args.join(" ")).toMatchObject({ result: "deny", source: "explicit-deny", rule: "get --raw" });
    }
  });

  test.each([
    [["--kubeconfig=/tmp/k", "version", "--client"]],
    [["version", "--client", "--context", "prod"]],
    [["version", "--client", "-shttps://evil.invalid"]],
    [["version", "--client", "-s", "https://evil.invalid"]],
    [["version", "--client", "--insecure_skip_tls_verify"]],
    [["version", "--client", "--as=system:admin"]],
    [["version", "--client", "--as-group", "system:masters"]],
    [["version", "--client", "--token=abc"]],
    [["version", "--client", "--cache-dir=/tmp/x"]],
  ])("locked option %j is refused", async (args) => {
    const outcome = outcomeOf(await session.call("kubectl", { args }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(outcome.execution).toBeUndefined();
  });
});

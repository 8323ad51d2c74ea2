/**
 * A configuration that fails to load starts nothing that runs commands, but the
 * operator sees why from the client: through the MCP SDK's real Client over a
 * real stdio process, a broken rules.yaml, provider.yaml, an untrusted file or
 * an unknown identity provider each yields a server whose only tool is
 * torii_config_error, whose call returns the message with file:line:column; a
 * logging notification (level error) carries it, the instructions hold it, and
 * `<root>/torii-server.log` (0600) keeps it. The provider's command is a
 * sentinel that must never run.
 */
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { startSession, type McpSession } from "../support/mcp-session.js";

const PROVIDER = 'version: "1"\nname: rec\ntool: rec\ncommand: must-not-run\n';
const RULES = 'version: "1"\naccept: ["/.*/"]\n';

let bin: FakeBin;
let session: McpSession | undefined;

beforeAll(() => {
  bin = makeFakeBin();
});

afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** Starts the server on `root` and resolves the first logging notification alongside the session. */
async function start(root: string): Promise<{ session: McpSession; logged: Promise<LoggingMessageNotification["params"]> }> {
  let resolveLogged: (params: LoggingMessageNotification["params"]) => void = () => undefined;
  const logged = new Promise<LoggingMessageNotification["params"]>((resolve) => {
    resolveLogged = resolve;
  });
  const started = await startSession(
    root,
    { PATH: `${bin.dir}:/usr/bin:/bin` },
    {
      onClient: (client) => {
        client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
          resolveLogged(notification.params);
        });
      },
    },
  );
  session = started;
  return { session: started, logged };
}

const cases: readonly { what: string; files: Record<string, string>; chmod?: [string, number]; expected: (root: string) => string }[] = [
  {
    what: "a rules.yaml that is not YAML",
    files: { "providers/rec/provider.yaml": PROVIDER, "providers/rec/rules.yaml": 'version: "1"\naccept: [\n  - get\n' },
    expected: (root) => `${path.join(root, "providers/rec/rules.yaml")}:3:3: YAML syntax`,
  },
  {
    what: "a rules.yaml whose rule does not compile",
    files: { "providers/rec/provider.yaml": PROVIDER, "providers/rec/rules.yaml": 'version: "1"\naccept:\n  - "get"\n  - "/(unclosed/"\n' },
    expected: (root) => `${path.join(root, "providers/rec/rules.yaml")}:4:5: accept rule: invalid regular expression: Unterminated group`,
  },
  {
    what: "a provider.yaml with an unknown field",
    files: { "providers/rec/provider.yaml": `${PROVIDER}toool: x\n`, "providers/rec/rules.yaml": RULES },
    expected: (root) => `${path.join(root, "providers/rec/provider.yaml")}:5:1:`,
  },
  {
    what: "a world-writable rules.yaml",
    files: { "providers/rec/provider.yaml": PROVIDER, "providers/rec/rules.yaml": RULES },
    chmod: ["providers/rec/rules.yaml", 0o666],
    expected: (root) =>
      `${path.join(root, "providers/rec/rules.yaml")}: is writable by group or others (mode 666); fix: chmod go-w ${path.join(root, "providers/rec/rules.yaml")}`,
  },
  {
    what: "a target naming an identity provider that is not installed",
    files: {
      "providers/kube/provider.yaml": kubeContextProvider("must-not-run"),
      "providers/kube/rules.yaml": RULES,
      "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: nowhere}\n',
    },
    expected: (root) => `${path.join(root, "providers/kube/targets/dev/target.yaml")}:4:`,
  },
];

describe("a configuration that fails to load", () => {
  test.each(cases)("$what: only torii_config_error, its message says where, logged to the client and the server log", async (scenario) => {
    const root = makeConfigTree(scenario.files);
    if (scenario.chmod !== undefined) chmodSync(path.join(root, scenario.chmod[0]), scenario.chmod[1]);
    const expected = scenario.expected(root);
    const { session: server, logged } = await start(root);

    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["torii_config_error"]);
    expect(tools[0]?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    expect(server.client.getServerCapabilities()?.logging).toEqual({});
    expect(server.client.getInstructions()).toContain(expected);

    const result = await server.call("torii_config_error", {});
    expect(result.isError).toBe(true);
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
    expect(text).toContain(expected);
    expect(result.structuredContent).toMatchObject({ status: "failing", root, restart_required: true });

    const notification = await logged;
    expect(notification.level).toBe("error");
    expect(String(notification.data)).toContain(expected);

    // Stderr and the server log under the root keep it too (the log is the operator's only: 0600).
    expect(server.stderr()).toContain(expected);
    const log = path.join(root, "torii-server.log");
    expect(readFileSync(log, "utf8").replaceAll("\n  ", "\n")).toContain(expected);
    expect(statSync(log).mode & 0o777).toBe(0o600);

    // No provider tool exists, so nothing can run.
    const tool = scenario.files["providers/kube/provider.yaml"] === undefined ? "rec" : "kube";
    await expect(server.call(tool, { args: ["get"] })).rejects.toThrow(`unknown tool "${tool}"`);
    expect(bin.ran("must-not-run")).toBe(false);
  });

  test("each call loads again: a fixed configuration is reported as loading, and is served only after a restart", async () => {
    const root = makeConfigTree({ "providers/rec/provider.yaml": PROVIDER, "providers/rec/rules.yaml": 'version: "1"\naccept: [\n' });
    const { session: broken } = await start(root);
    writeFileSync(path.join(root, "providers/rec/rules.yaml"), RULES);
    const result = await broken.call("torii_config_error", {});
    expect(result.structuredContent).toMatchObject({ status: "loads-after-restart", restart_required: true });
    expect((await broken.client.listTools()).tools.map((tool) => tool.name)).toEqual(["torii_config_error"]);
    await broken.close();
    session = undefined;

    const { session: restarted } = await start(root);
    expect((await restarted.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["rec", "torii_policy"]);
  });
});

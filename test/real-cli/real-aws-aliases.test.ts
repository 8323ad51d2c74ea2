/**
 * The real AWS CLI expands the command aliases of `~/.aws/cli/alias` before it
 * parses a call (awscli/alias.py): `aws hello` may run a shell line (`!…`),
 * `aws setr` the locked `configure set`, and an alias may even take a built-in
 * name (`s3`). Torii decides on the words the agent sent, so through the built
 * server (rules accepting everything) a call is refused while the file exists
 * in the child's HOME (`runtime.home_config` of the bundled aws), before the
 * CLI starts; the same call outside Torii runs the alias (the file is live);
 * without the file the call reaches the CLI (red team 22, policy F2).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { awsChildPath, untargetedAws } from "../support/real-aws.js";
import { tempDirectory } from "../support/temp-dirs.js";

const run = promisify(execFile);

let home: string;
let aliases: string;
let marker: string;
let session: McpSession;

function writeAliases(): void {
  mkdirSync(path.dirname(aliases), { recursive: true });
  writeFileSync(aliases, `[toplevel]\nhello = !f() { touch ${JSON.stringify(marker)}; }; f\nsetr = configure set region eu-west-9\n`);
}

beforeAll(async () => {
  home = tempDirectory("torii-aws-aliases-");
  aliases = path.join(home, ".aws", "cli", "alias");
  marker = path.join(home, "alias-shell-ran");
  const root = makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n' });
  session = await startSession(root, { HOME: home, PATH: awsChildPath() }, { cwd: home });
});

afterAll(async () => {
  await session.close();
});

describe("aws command aliases", () => {
  test("outside Torii the alias runs its shell line (the file is live)", async () => {
    writeAliases();
    await run("aws", ["hello"], { env: { HOME: home, PATH: awsChildPath() } });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });

  test.each([[["hello"]], [["setr"]]])("%j is refused while ~/.aws/cli/alias exists; the CLI does not start", async (args) => {
    writeAliases();
    const outcome = outcomeOf(await session.call("aws", { args }, { timeout: 60_000 }));
    expect(outcome.execution, JSON.stringify(outcome)).toBeUndefined();
    expect(outcome.error).toContain(aliases);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(path.join(home, ".aws", "config"))).toBe(false);
  });

  test("without the file the call reaches the CLI, which knows no such command", async () => {
    rmSync(path.join(home, ".aws"), { recursive: true, force: true });
    const outcome = outcomeOf(await session.call("aws", { args: ["hello"] }, { timeout: 60_000 }));
    expect(outcome.execution, JSON.stringify(outcome)).toBeDefined();
    expect(outcome.execution?.exit_code).not.toBe(0);
    expect(outcome.execution?.stderr).toMatch(/invalid choice/iu);
    expect(existsSync(marker)).toBe(false);
  });
});

/**
 * Allowed calls through a real client and a real server: the exact argv and
 * the built environment reach the program; output is capped, long runs time
 * out, a canceled call kills its process group, and nothing outlives its call.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { alive } from "../support/processes.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";

const provider = (name: string, command: string, extra = ""): string =>
  `version: "1"\nname: ${name}\ntool: ${name}\ncommand: ${command}\nauth:\n  removed_env: [DROP_ME, TZ]\n${extra}`;
const ACCEPT_ALL = 'version: "1"\naccept: ["/.*/"]\n';

async function waitFor(predicate: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return predicate();
}

/** The time between SIGTERM and SIGKILL (2 s by default): the sleeper ignores SIGTERM, so its calls end by the SIGKILL after it. */
const KILL_GRACE_MS = "200";

let bin: FakeBin;
let session: McpSession;
let root: string;
let pidDir: string;

beforeAll(async () => {
  pidDir = makeConfigTree({});
  bin = makeFakeBin({
    flood: `const chunk = Buffer.alloc(1 << 20, 0x61); (function write() { while (process.stdout.write(chunk)) {} process.stdout.once("drain", write); })();`,
    // Its pid file appears only once SIGTERM is ignored: a SIGTERM that came earlier killed it before it wrote the file.
    sleeper: `process.on("SIGTERM", () => {}); require("node:fs").writeFileSync(${JSON.stringify(path.join(pidDir, "sleeper.pid"))}, String(process.pid)); setInterval(() => {}, 1000);`,
    parent: `const { spawn } = require("node:child_process");
const child = spawn(${JSON.stringify(process.execPath)}, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
child.unref();
require("node:fs").writeFileSync(${JSON.stringify(path.join(pidDir, "grandchild.pid"))}, String(child.pid));
process.stdout.write("started " + child.pid);`,
    failing: `process.stderr.write("boom\\n"); process.exit(7);`,
  });
  const operatorKubeconfig = path.join(pidDir, "operator-kubeconfig");
  writeFileSync(operatorKubeconfig, "apiVersion: v1\nkind: Config\n", { mode: 0o600 });
  root = makeConfigTree({
    "providers/rec/provider.yaml": provider("rec", "recorder", "args_prefix: [--from-prefix]\n"),
    "providers/rec/rules.yaml": ACCEPT_ALL,
    // The kubeconfig a .env names must exist and pass the trust rule (docs/environment.md).
    "providers/rec/.env": `FROM_PROVIDER_ENV=1\nKUBECONFIG=${operatorKubeconfig}\nDROP_ME=kept\n`,
    "providers/flood/provider.yaml": provider("flood", "flood"),
    "providers/flood/rules.yaml": ACCEPT_ALL,
    // The default timeout (120 s): only the cancellation ends its run (the timeout test has its own tree).
    "providers/sleeper/provider.yaml": provider("sleeper", "sleeper"),
    "providers/sleeper/rules.yaml": ACCEPT_ALL,
    "providers/parent/provider.yaml": provider("parent", "parent"),
    "providers/parent/rules.yaml": ACCEPT_ALL,
    "providers/failing/provider.yaml": provider("failing", "failing"),
    "providers/failing/rules.yaml": ACCEPT_ALL,
    "providers/absent/provider.yaml": provider("absent", "no-such-program-anywhere"),
    "providers/absent/rules.yaml": ACCEPT_ALL,
    "settings.yaml": "max_output_bytes: 100000\n",
  });
  session = await startSession(root, {
    PATH: `${bin.dir}:${process.env.PATH ?? ""}`,
    TORII_KILL_GRACE_MS: KILL_GRACE_MS,
    AWS_SECRET_ACCESS_KEY: "server-secret-must-not-leak",
    KUBECONFIG: "/server/kubeconfig",
    HTTPS_PROXY: "http://proxy.invalid",
    NODE_OPTIONS: "--no-deprecation",
    LANG: "C.UTF-8",
    TZ: "Europe/Inherited",
  });
});

afterAll(async () => {
  await session.close();
});

describe("an allowed call", () => {
  test("runs the program with args_prefix and the canonical argv, exactly", async () => {
    const result = await session.call("rec", { args: ["hello world", "--flag=1", "$(whoami)", ";", "|"] });
    const outcome = outcomeOf(result);
    expect(result.isError).toBeFalsy();
    expect(outcome.decision).toMatchObject({ result: "allow", source: "rules" });
    const seen = JSON.parse(outcome.execution?.stdout ?? "") as { argv: string[]; env: Record<string, string> };
    expect(seen.argv).toEqual(["--from-prefix", "hello world", "--flag=1", "$(whoami)", ";", "|"]);
  });

  test("gets an environment built from the allowlist and the operator's .env, not the server's", async () => {
    const outcome = outcomeOf(await session.call("rec", { args: ["env"] }));
    const { env } = JSON.parse(outcome.execution?.stdout ?? "") as { env: Record<string, string> };
    expect(env.FROM_PROVIDER_ENV).toBe("1");
    // The value reached the child: the redactor replaced exactly it in the output returned here.
    expect(env.KUBECONFIG).toBe("[redacted:KUBECONFIG]");
    expect(env.LANG).toBe("C.UTF-8");
    expect(env.PATH).toContain(bin.dir);
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(env.HTTPS_PROXY).toBeUndefined();
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(env.TORII_CONFIG_DIR).toBeUndefined();
    // removed_env filters what the server inherited (TZ), never what the operator wrote in a .env (DROP_ME).
    expect(env.TZ).toBeUndefined();
    expect(env.DROP_ME).toBe("kept");
  });

  test("a non-zero exit code is a normal result", async () => {
    const result = await session.call("failing", { args: ["x"] });
    expect(result.isError).toBeFalsy();
    expect(outcomeOf(result).execution).toMatchObject({ exit_code: 7, stderr: "boom\n", truncated: false, timed_out: false });
  });

  test("a program that does not exist is an error result naming it, not a crash", async () => {
    const result = await session.call("absent", { args: ["x"] });
    expect(result.isError).toBe(true);
    expect(outcomeOf(result).error).toContain("no-such-program-anywhere");
  });
});

describe("bounded execution", () => {
  test("output is capped at max_output_bytes and the writer is killed", async () => {
    const outcome = outcomeOf(await session.call("flood", { args: ["go"] }));
    expect(outcome.execution?.truncated).toBe(true);
    expect(Buffer.byteLength(outcome.execution?.stdout ?? "")).toBe(100_000);
    expect(outcome.execution?.exit_code).toBeNull();
    // Killed at the cap, not left writing until its timeout.
    expect(outcome.execution?.timed_out).toBe(false);
  });

  test("a call past its timeout is terminated, then killed, and reported as timed out", async () => {
    // SIGKILL is what a sleeper gets once it ignores SIGTERM. One too slow to start on a loaded machine (no pid
    // file: the timeout's SIGTERM killed it first) is tried again with twice the timeout.
    for (let seconds = 1; ; seconds *= 2) {
      writeFileSync(path.join(pidDir, "sleeper.pid"), "");
      const timed = await startSession(
        makeConfigTree({
          "providers/sleeper/provider.yaml": provider("sleeper", "sleeper", `runtime:\n  timeout_seconds: ${seconds}\n`),
          "providers/sleeper/rules.yaml": ACCEPT_ALL,
        }),
        { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, TORII_KILL_GRACE_MS: KILL_GRACE_MS },
      );
      const outcome = outcomeOf(await timed.call("sleeper", { args: ["go"] }, { timeout: 120_000 }).finally(() => timed.close()));
      const written = readFileSync(path.join(pidDir, "sleeper.pid"), "utf8");
      if (written === "" && seconds < 16) continue;
      expect(outcome.execution).toMatchObject({ timed_out: true, exit_code: null, signal: "SIGKILL" });
      expect(alive(Number(written))).toBe(false);
      return;
    }
  });

  test("client cancellation kills the child", async () => {
    writeFileSync(path.join(pidDir, "sleeper.pid"), "");
    const controller = new AbortController();
    const call = session.call("sleeper", { args: ["go"] }, { signal: controller.signal });
    expect(await waitFor(() => readFileSync(path.join(pidDir, "sleeper.pid"), "utf8") !== "", 30_000)).toBe(true);
    const pid = Number(readFileSync(path.join(pidDir, "sleeper.pid"), "utf8"));
    controller.abort();
    await expect(call).rejects.toThrow();
    expect(await waitFor(() => !alive(pid), 30_000)).toBe(true);
  });

  test("no process outlives its call: a grandchild is killed with the group", async () => {
    const outcome = outcomeOf(await session.call("parent", { args: ["go"] }));
    expect(outcome.execution?.exit_code).toBe(0);
    const grandchild = Number(readFileSync(path.join(pidDir, "grandchild.pid"), "utf8"));
    expect(await waitFor(() => !alive(grandchild), 30_000)).toBe(true);
  });
});

/**
 * `torii auth login|status|logout` in process (runCli), against a provider
 * with `auth.strategy: environment` whose validate command is a real process
 * that accepts tokens starting with "good-" and prints a refused token on
 * stderr (so its failure message is a redaction canary).
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { beforeEach, describe, expect, test } from "vitest";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { runCli, type CliResult } from "../support/run-cli.js";

const VAULT = `version: "1"
name: vault
tool: vault
command: recorder
auth:
  strategy: environment
  fields:
    - {name: VAULT_TOKEN, label: Vault token, secret: true}
    - {name: VAULT_ADDR, label: Vault address}
    - {name: VAULT_NOTE, label: Note, required: false, multiline: true}
  validate: {command: check-token, args: []}
`;

const PLAIN = `version: "1"
name: plain
tool: plain
command: recorder
`;

const GOOD = "good-7f3e9a1c5b2d4e6f";
const BAD = "bad-canary-0c9d8e7f6a5b";

let bin: FakeBin;
let root: string;
let env: Record<string, string>;
let validateLog: string;

function sessionFile(): string {
  return path.join(root, "providers/vault/identities/vault/session.yaml");
}

beforeEach(() => {
  root = makeConfigTree({
    "providers/vault/provider.yaml": VAULT,
    "providers/vault/rules.yaml": 'version: "1"\n',
    "providers/kube/provider.yaml": kubeContextProvider("recorder"),
    "providers/kube/rules.yaml": 'version: "1"\n',
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: vault, scope: team}\n',
    "providers/plain/provider.yaml": PLAIN,
    "providers/plain/rules.yaml": 'version: "1"\n',
  });
  validateLog = path.join(root, "validate.log");
  bin = makeFakeBin({
    "check-token": `const fs = require("node:fs");
const token = process.env.VAULT_TOKEN ?? "";
fs.appendFileSync(${JSON.stringify(validateLog)}, JSON.stringify({ token, addr: process.env.VAULT_ADDR ?? null, note: process.env.VAULT_NOTE ?? null }) + "\\n");
if (token.startsWith("good-")) process.exit(0);
process.stderr.write("rejected token " + token + "\\n");
process.exit(4);`,
  });
  env = { TORII_CONFIG_DIR: root, PATH: `${bin.dir}:${process.env.PATH ?? ""}` };
});

function validateRuns(): { token: string; addr: string | null; note: string | null }[] {
  try {
    return readFileSync(validateLog, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { token: string; addr: string | null; note: string | null });
  } catch {
    return [];
  }
}

/**
 * A login through the prompts: each answer is typed once its prompt (matched
 * by label) is on stderr; then, with `finish`, the terminal sends Ctrl+C or closes.
 */
async function promptLogin(answers: readonly (readonly [RegExp, string])[], finish?: "ctrl-c" | "close"): Promise<CliResult> {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let screen = "";
  let next = 0;
  const onStderr = (text: string): void => {
    screen += text;
    const answer = answers[next];
    if (answer === undefined) {
      if (finish !== undefined && screen.includes("?")) setImmediate(() => (finish === "close" ? stdin.end() : stdin.write("\x03")));
      return;
    }
    if (answer[0].test(screen)) {
      next += 1;
      screen = "";
      setImmediate(() => stdin.write(`${answer[1]}\r`));
    }
  };
  return runCli(["auth", "login", "vault"], env, { stdin, onStderr });
}

async function statusRows(): Promise<{ tool: string; state: string; checked_at: string | null; login: string }[]> {
  const result = await runCli(["auth", "status", "--json"], env);
  expect(result.status).toBe(0);
  expect(result.stdout).not.toContain(GOOD);
  return (JSON.parse(result.stdout) as { sessions: { tool: string; state: string; checked_at: string | null; login: string }[] }).sessions;
}

describe("torii auth login", () => {
  test("prompts for each field (the secret one masked), validates in a child, stores the session 0600", async () => {
    const result = await promptLogin([
      [/Vault token/u, GOOD],
      [/Vault address/u, "https://vault.example:8200"],
      [/Note, line 1/u, "first line"],
      [/Note, line 2/u, "second line"],
      [/Note, line 3/u, ""],
    ]);
    expect(result.stderr).not.toContain(GOOD);
    expect(result.stderr).toContain("*".repeat(GOOD.length));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("validated and stored");
    expect(validateRuns()).toEqual([{ token: GOOD, addr: "https://vault.example:8200", note: "first line\nsecond line" }]);
    expect(statSync(sessionFile()).mode & 0o777).toBe(0o600);
    expect(readFileSync(sessionFile(), "utf8")).toContain(GOOD);
    const row = (await statusRows()).find((candidate) => candidate.tool === "vault");
    expect(row).toMatchObject({ tool: "vault", state: "valid", login: "torii auth login vault" });
    expect(Date.parse(row?.checked_at ?? "")).toBeGreaterThan(Date.now() - 60_000);
  });

  test("--from-env takes the named fields from the environment; --stdin reads .env text", async () => {
    const fromEnv = await runCli(["auth", "login", "vault", "--from-env", "VAULT_TOKEN", "VAULT_ADDR"], {
      ...env,
      VAULT_TOKEN: GOOD,
      VAULT_ADDR: "https://a.example",
    });
    expect(fromEnv.status, fromEnv.stderr).toBe(0);
    const stdin = new PassThrough();
    stdin.end(`VAULT_TOKEN=good-from-stdin-123\nVAULT_ADDR=https://b.example\nVAULT_NOTE="l1\\nl2"\n`);
    const fromStdin = await runCli(["auth", "login", "vault", "--stdin", "--json"], env, { stdin });
    expect(fromStdin.status, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ action: "session-stored", tool: "vault", scope: "vault", validated: true });
    expect(validateRuns().map((run) => run.token)).toEqual([GOOD, "good-from-stdin-123"]);
    expect(validateRuns()[1]?.note).toBe("l1\nl2");
    const unknown = await runCli(["auth", "login", "vault", "--from-env", "HOME"], env);
    expect(unknown.status).toBe(3);
    expect(unknown.stderr).toMatch(/HOME, which is not one of the declared fields/u);
  });

  test("a failed validate keeps the old session and shows the validate output redacted", async () => {
    expect((await runCli(["auth", "login", "vault", "--from-env", "VAULT_TOKEN", "VAULT_ADDR"], { ...env, VAULT_TOKEN: GOOD, VAULT_ADDR: "x" })).status).toBe(
      0,
    );
    const before = readFileSync(sessionFile());
    const failed = await runCli(["auth", "login", "vault", "--from-env", "VAULT_TOKEN", "VAULT_ADDR"], { ...env, VAULT_TOKEN: BAD, VAULT_ADDR: "x" });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain("the values did not validate: check-token exited with code 4; the stored session is unchanged");
    expect(failed.stderr).toContain("rejected token [redacted:VAULT_TOKEN]");
    expect(failed.stderr + failed.stdout).not.toContain(BAD);
    expect(readFileSync(sessionFile()).equals(before)).toBe(true);
    expect(readFileSync(path.join(root, "audit.jsonl"), "utf8")).not.toContain(BAD);
  });

  test("a validate command that cannot start is an operator error naming it, not an unexpected error: the old session is kept", async () => {
    expect((await runCli(["auth", "login", "vault", "--from-env", "VAULT_TOKEN", "VAULT_ADDR"], { ...env, VAULT_TOKEN: GOOD, VAULT_ADDR: "x" })).status).toBe(
      0,
    );
    const before = readFileSync(sessionFile());
    const definition = path.join(root, "providers/vault/provider.yaml");
    writeFileSync(definition, readFileSync(definition, "utf8").replace("command: check-token", "command: no-such-validator"));
    const failed = await runCli(["auth", "login", "vault", "--from-env", "VAULT_TOKEN", "VAULT_ADDR"], { ...env, VAULT_TOKEN: BAD, VAULT_ADDR: "x" });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/^torii: the validate command no-such-validator could not start: .*not found.*; the stored session is unchanged\n$/su);
    expect(failed.stderr).not.toContain("unexpected error");
    expect(failed.stderr + failed.stdout).not.toContain(BAD);
    expect(readFileSync(sessionFile()).equals(before)).toBe(true);
  });

  test("a cancelled prompt keeps the old session", async () => {
    expect((await runCli(["auth", "login", "vault", "--from-env", "VAULT_TOKEN", "VAULT_ADDR"], { ...env, VAULT_TOKEN: GOOD, VAULT_ADDR: "x" })).status).toBe(
      0,
    );
    const before = readFileSync(sessionFile());
    for (const finish of ["ctrl-c", "close"] as const) {
      const cancelled = await promptLogin([[/Vault token/u, "good-but-never-finished"]], finish);
      expect(cancelled.status, finish).toBe(1);
      expect(cancelled.stderr, finish).toContain("login cancelled; the stored session is unchanged");
      expect(readFileSync(sessionFile()).equals(before), finish).toBe(true);
    }
    expect(validateRuns()).toHaveLength(1);
  });

  test("refuses a provider that does not collect credentials, and a non-terminal without --from-env/--stdin", async () => {
    const plain = await runCli(["auth", "login", "plain"], env);
    expect(plain.status).toBe(3);
    expect(plain.stderr).toContain("plain uses the inherited auth strategy");
    const piped = await runCli(["auth", "login", "vault"], env, { stdin: new PassThrough() });
    expect(piped.status).toBe(3);
    expect(piped.stderr).toContain("standard input is not a terminal");
  });
});

describe("a target whose identity provider collects credentials", () => {
  test("login stores the identity provider's session in the target's scope, and status lists the target", async () => {
    const login = await runCli(["auth", "login", "kube", "prod", "--from-env", "VAULT_TOKEN", "VAULT_ADDR"], { ...env, VAULT_TOKEN: GOOD, VAULT_ADDR: "x" });
    expect(login.status, login.stderr).toBe(0);
    expect(readFileSync(path.join(root, "providers/vault/identities/team/session.yaml"), "utf8")).toContain(GOOD);
    const rows = await statusRows();
    expect(rows.map((row) => [row.tool, row.state, row.login])).toEqual([
      ["kube", "valid", "torii auth login kube prod"],
      ["vault", "missing", "torii auth login vault"],
    ]);
    const noTarget = await runCli(["auth", "login", "kube"], env);
    expect(noTarget.status).toBe(3);
    expect(noTarget.stderr).toContain("kube needs a target");
  });
});

describe("torii auth status and logout", () => {
  test("missing, then valid with the time it was checked, then missing after logout (never a value)", async () => {
    expect((await statusRows()).find((row) => row.tool === "vault")).toMatchObject({ state: "missing", checked_at: null });
    expect((await runCli(["auth", "login", "vault", "--from-env", "VAULT_TOKEN", "VAULT_ADDR"], { ...env, VAULT_TOKEN: GOOD, VAULT_ADDR: "x" })).status).toBe(
      0,
    );
    expect((await statusRows()).find((row) => row.tool === "vault")?.state).toBe("valid");
    const human = await runCli(["auth", "status", "vault"], env);
    expect(human.stdout).toMatch(/^vault: valid, checked \d{4}-/u);
    const logout = await runCli(["auth", "logout", "vault", "--json"], env);
    expect(JSON.parse(logout.stdout)).toMatchObject({ action: "session-removed", scope: "vault" });
    expect((await statusRows()).find((row) => row.tool === "vault")?.state).toBe("missing");
    expect(JSON.parse((await runCli(["auth", "logout", "vault", "--json"], env)).stdout)).toMatchObject({ action: "no-session" });
    const audit = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    expect(audit).toContain('"event":"session-refreshed"');
    expect(audit).toContain('"event":"session-removed"');
    expect(audit).not.toContain(GOOD);
  });
});

/**
 * Issue 7, "Linear-time rules": an operator rule with catastrophic backtracking
 * (`/^(a+)+$/` on a 33-character argv froze the server for 174 s) must still
 * return a decision at once, and must not hold up any other call.
 *
 * The policy engine runs in one child process for every case, killed when the
 * file ends: the old backtracking engine never answers, so each case's own
 * timeout (the suite's hang guard, not a speed check) fails it instead of a
 * run that never ends; the linear-time engine answers in milliseconds. No
 * deadline of its own races a loaded machine.
 */
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";

const LONG = 4_096;
const runs = "a".repeat(LONG);

/** Catastrophic classes: nested quantifiers, overlapping alternation, word runs with optional separators. */
const CATASTROPHIC = [
  { rule: "/^(a+)+$/", adversarial: [`${runs}!`], matching: [runs] },
  { rule: "/^(a*)*$/", adversarial: [`${runs}!`], matching: [runs] },
  { rule: "/^(a|a)*$/", adversarial: [`${runs}!`], matching: [runs] },
  { rule: "/^(a|aa)+$/", adversarial: [`${runs}!`], matching: [runs] },
  { rule: "/^(\\w+\\s?)+$/", adversarial: [`${runs}!`], matching: [runs, runs] },
  { rule: "/^(?:a+){2,}b/i", adversarial: [runs.toUpperCase()], matching: ["aaB"] },
  { rule: "/^ (a+)+ $  # nested quantifiers/x", adversarial: [`${runs}!`], matching: [runs] },
  { rule: "/^(\\w+\\s?)+$/", adversarial: [runs, `${runs}!`], matching: [runs, runs] },
] as const;

const policyModule = (name: string): string => pathToFileURL(new URL(`../../dist/policy/${name}`, import.meta.url).pathname).href;

/** The child: for each case in turn, compiles its deny rule and evaluates each argv with the built engine, printing one JSON line per case. */
const CHILD = `
import { compilePolicy } from ${JSON.stringify(policyModule("compile.js"))};
import { evaluatePolicy } from ${JSON.stringify(policyModule("evaluate.js"))};
const cases = JSON.parse(process.argv[1]);
const context = {
  tool: "demo",
  grammar: { parser: "plain", options: [], commands: [], forbiddenValuePrefixes: [] },
  lockedOptions: [],
  settings: { minimumAcceptTokens: 1, forbiddenArgs: [], ignoreArgs: { leading: [], flags: [] } },
};
process.stdout.write("ready\\n");
for (const { rule, argvs } of cases) {
  const policy = compilePolicy(context, { shared: { deny: [{ text: rule, origin: "rules.yaml:2:3" }], accept: [] } });
  process.stdout.write(JSON.stringify({ errors: policy.errors, decisions: argvs.map((argv) => evaluatePolicy(policy, argv).decision.result) }) + "\\n");
}
`;

interface EngineResult {
  readonly errors: unknown[];
  readonly decisions: string[];
}

/**
 * Runs the engine over every case in one child (one Node start and one engine load
 * for all of them); resolves each case's result as its line arrives, in order. A case
 * that never answers is failed by its test's timeout; `stop` kills the child.
 */
function decideInChild(cases: readonly { rule: string; argvs: readonly (readonly string[])[] }[]): { results: Promise<EngineResult>[]; stop: () => void } {
  const settlers: { resolve: (result: EngineResult) => void; reject: (error: Error) => void }[] = [];
  const results = cases.map(
    () =>
      new Promise<EngineResult>((resolve, reject) => {
        settlers.push({ resolve, reject });
      }),
  );
  // Each test awaits its own case; a case nobody awaits yet must not count as an unhandled rejection.
  for (const result of results) result.catch(() => undefined);
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD, JSON.stringify(cases)], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let answered = -1; // -1 until the engine has loaded ("ready")
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    for (let end = stdout.indexOf("\n"); end !== -1; end = stdout.indexOf("\n")) {
      const line = stdout.slice(0, end);
      stdout = stdout.slice(end + 1);
      if (answered === -1) answered = 0;
      else if (answered < cases.length) settlers[answered++]!.resolve(JSON.parse(line) as EngineResult);
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.on("close", (code) => {
    const error = new Error(`engine child exited ${String(code)} before every decision: ${stderr}`);
    for (const settler of settlers.slice(Math.max(answered, 0))) settler.reject(error);
  });
  return { results, stop: () => child.kill("SIGKILL") };
}

describe("a catastrophic-backtracking rule returns a decision on long adversarial argv", () => {
  let engine: ReturnType<typeof decideInChild>;

  beforeAll(() => {
    engine = decideInChild(CATASTROPHIC.map(({ rule, adversarial, matching }) => ({ rule, argvs: [adversarial, matching] })));
  });

  afterAll(() => {
    engine.stop();
  });

  test.each(CATASTROPHIC.map((scenario, index) => ({ ...scenario, index })))("$rule on $adversarial.length token(s)", async ({ index }) => {
    const result = await engine.results[index]!;
    expect(result.errors).toEqual([]);
    // The deny rule does not match the adversarial argv (no rule accepts it either) and matches the other.
    expect(result.decisions).toEqual(["unresolved", "deny"]);
  });
});

describe("through the real server: a slow-to-backtrack rule does not hold up a concurrent call", () => {
  let session: McpSession;

  beforeAll(async () => {
    const root = makeConfigTree({
      "providers/demo/provider.yaml": 'version: "1"\nname: demo\ntool: demo\ncommand: must-not-run\nargv:\n  parser: plain\n',
      "providers/demo/rules.yaml": 'version: "1"\ndeny: ["/^(a+)+$/", "/^(a|aa)+$/", "/^(\\\\w+\\\\s?)+$/"]\naccept: []\n',
    });
    session = await startSession(root);
  });

  afterAll(async () => {
    await session.close();
  });

  test("the second call is answered while the first carries a 4,096-character adversarial argv", async () => {
    // A backtracking engine would hold the server: neither call would be answered before the request timeout (a hang guard).
    const slow = session.call("demo", { args: [`${runs}!`] });
    const quick = session.call("demo", { args: ["aaaa"] });
    const quickOutcome = outcomeOf(await quick);
    expect(quickOutcome).toMatchObject({ decision: { source: "explicit-deny" } });
    const slowOutcome = outcomeOf(await slow);
    // Nothing denies or accepts it, and the server is headless: no rule, no approval.
    expect(slowOutcome.decision).toMatchObject({ result: "deny" });
    expect(slowOutcome.decision).not.toMatchObject({ source: "explicit-deny" });
  });
});

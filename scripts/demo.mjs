// `npm run demo`: a real MCP client session against the built server and the
// bundled example configuration (examples/demo, copied to a temporary config
// root so the run leaves nothing behind). Prints each call and its decision.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, watch } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { prepareAwsDemo, runAwsDemo } from "./demo-aws.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));
const root = mkdtempSync(path.join(os.tmpdir(), "torii-demo-"));
cpSync(path.join(repo, "examples/demo"), root, { recursive: true });
const stsStub = await prepareAwsDemo(repo, root, { PATH: process.env.PATH ?? "", HOME: os.homedir(), TORII_CONFIG_DIR: root });

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [path.join(repo, "dist/cli.js")],
  env: { PATH: process.env.PATH ?? "", HOME: os.homedir(), TORII_CONFIG_DIR: root, TORII_NO_GUI: "1" },
  stderr: "pipe",
});
const client = new Client({ name: "torii-demo", version: "1.0.0" });
await client.connect(transport);

const say = (text) => process.stdout.write(`${text}\n`);
const { tools } = await client.listTools();
say(`Connected to ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}; tools: ${tools.map((tool) => tool.name).join(", ")}`);
say(`Config root: ${root}\n`);

async function call(title, name, args) {
  say(`── ${title}`);
  say(`   ${name} ${JSON.stringify(args)}`);
  const result = await client.callTool({ name, arguments: args });
  const outcome = result.structuredContent ?? {};
  if (name === "torii_policy") {
    say(`   policy alone: ${outcome.explain?.decision ?? "(rules)"} ${outcome.explain?.rule ? `by "${outcome.explain.rule.text}"` : ""}`);
    say(`   deny: ${JSON.stringify(outcome.deny)}  accept: ${JSON.stringify(outcome.accept)}\n`);
    return;
  }
  const decision = outcome.decision ?? {};
  say(`   → ${decision.result?.toUpperCase()} (${decision.source})${decision.rule ? ` by rule "${decision.rule}"` : ""}`);
  say(`     ${decision.reason}`);
  if (decision.grants) say(`     the operator could allow it with: ${decision.grants.exact.command}`);
  if (outcome.error) say(`     error: ${outcome.error}`);
  if (outcome.execution) say(`     exit ${outcome.execution.exit_code}, stdout: ${JSON.stringify(outcome.execution.stdout.trim())}`);
  say("");
}

await call("Ask the policy first", "torii_policy", { provider: "node", args: ["--eval", "1+1"] });
await call("A forbidden argument: code evaluation is never allowed", "node", { args: ["--eval", "require('fs').readFileSync('/etc/passwd')"] });
await call("An explicit deny rule", "node", { args: ["--inspect-brk", "app.js"] });
await call("No rule decides: unresolved, denied when headless, with the grant that would allow it", "node", { args: ["--test"] });
await call("A target the operator has not activated (no lease): denied", "node_staged", { args: ["--version"], target: "staging" });

// The operator, in another terminal, grants a 5-minute lease for the alias.
const operator = ["target", "activate", "node_staged", "staging", "--for", "5"];
say(`── The operator runs: torii ${operator.join(" ")}`);
const activation = spawnSync(process.execPath, [path.join(repo, "dist/cli.js"), ...operator], {
  env: { PATH: process.env.PATH ?? "", HOME: os.homedir(), TORII_CONFIG_DIR: root },
  encoding: "utf8",
  shell: false,
});
say(`   ${(activation.stdout || activation.stderr).trim().split("\n").join("\n   ")}\n`);

await call("The same call while the lease lives: allowed, with the operator's target", "node_staged", { args: ["--version"], target: "staging" });
await call("An accepted call runs, argv only, no shell", "node", { args: ["--version"] });
await runAwsDemo(call, say, stsStub);

await client.close();

// ── Approval: a second server that may ask the operator (no browser is opened in the demo).
// A call no rule decides now waits; the operator answers from another terminal.
const asking = new Client({ name: "torii-demo-approval", version: "1.0.0" });
await asking.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [path.join(repo, "dist/cli.js")],
    env: { PATH: process.env.PATH ?? "", HOME: os.homedir(), TORII_CONFIG_DIR: root, TORII_OPEN_BROWSER: "0" },
    stderr: "pipe",
  }),
);
const torii = (args) =>
  spawnSync(process.execPath, [path.join(repo, "dist/cli.js"), ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: os.homedir(), TORII_CONFIG_DIR: root },
    encoding: "utf8",
    shell: false,
  });

/** Resolves with the first pending approval, watching the approvals directory (no polling sleeps). */
function firstPending() {
  const dir = path.join(root, "approvals");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return new Promise((resolve) => {
    const check = () => {
      const [pending] = JSON.parse(torii(["approvals", "list", "--json"]).stdout).approvals;
      if (pending === undefined) return;
      watcher.close();
      resolve(pending);
    };
    const watcher = watch(dir, check);
    check();
  });
}

say("── No rule decides, and a human may be asked: the call waits for the operator");
say(`   node ${JSON.stringify({ args: ["-v"] })}`);
const waiting = asking.callTool({ name: "node", arguments: { args: ["-v"], description: "which node is this?" } });
const pending = await firstPending();
say(`   pending approval ${pending.id}: ${pending.tool} ${JSON.stringify(pending.argv)}, until ${pending.expires_at}`);
say(`── The operator runs, from a second terminal: torii approvals approve ${pending.id} --once`);
say(`   ${torii(["approvals", "approve", pending.id, "--once"]).stdout.trim()}`);
const answered = (await waiting).structuredContent ?? {};
say(`   → ${answered.decision?.result?.toUpperCase()} (${answered.decision?.source}) ${answered.decision?.reason}`);
say(`     exit ${answered.execution?.exit_code}, stdout: ${JSON.stringify(answered.execution?.stdout.trim())}\n`);
await asking.close();

const audit = readFileSync(path.join(root, "audit.jsonl"), "utf8").trim().split("\n");
say(`Audit log: ${audit.length} records in ${path.join(root, "audit.jsonl")} (verify with: TORII_CONFIG_DIR=${root} node dist/cli.js audit verify)`);

/**
 * Local listeners bound beyond loopback (red team): `gcloud compute
 * start-iap-tunnel vm 22 --local-host-port=0.0.0.0:2222` offers a tunnel into
 * the VPC to every machine that reaches this one. Listener-address options are
 * `loopback_only` rows of `argv.locked_command_options` (for every command of
 * the bundled gcloud provider: IAP and workstation tunnels, emulators), refused
 * whatever the rules unless the value is loopback; kubectl's `port-forward
 * --address` and `proxy --address/--accept-hosts` are on the `kubectl_context`
 * floor for every value. Through the bundled providers as the server builds them.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { isLoopbackListener } from "../../../src/policy/grammar/loopback-listener.js";
import { compileGrammar } from "../../../src/policy/grammar/option-table.js";
import type { GrammarSpec } from "../../../src/policy/grammar/types.js";
import { bundledPolicyContext, canon, rejectionOf, ruleList } from "../../support/policy-helpers.js";

const gcloud = bundledPolicyContext("gcloud");
const ACCEPT = ["compute", "beta", "alpha", "workstations"];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(gcloud, { shared: ruleList([], ACCEPT) }), argv).decision;

const NOT_LOOPBACK = [
  "0.0.0.0:2222",
  "0.0.0.0",
  "192.168.1.5:22",
  "10.0.0.1",
  "myhost:22",
  "[::]:22",
  "[fe80::1]:22",
  ":2222",
  "",
  "127.1:22",
  "localhost.attacker.example:22",
  "127.0.0.1.nip.io:22",
  "0x7f.0.0.1:22",
  "127.0.0.1:22,0.0.0.0:22",
];
const LOOPBACK = ["localhost:2222", "localhost", "LOCALHOST:1", "127.0.0.1:2222", "127.0.0.1", "127.8.9.10:1", "[::1]:2222", "[::1]", "::1"];

describe("gcloud: a listener address other than loopback is refused whatever the rules", () => {
  const iap = ["compute", "start-iap-tunnel", "vm1", "22", "--zone=z"];
  it.each(NOT_LOOPBACK)("compute start-iap-tunnel --local-host-port=%j", (address) => {
    expect(decide([...iap, `--local-host-port=${address}`])).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it.each([
    ["split value", [...iap, "--local-host-port", "0.0.0.0:2222"]],
    ["no value", [...iap, "--local-host-port"]],
    ["before the operands", ["compute", "start-iap-tunnel", "--local-host-port=0.0.0.0:2222", "vm1", "22"]],
    ["beta track", ["beta", "compute", "start-iap-tunnel", "vm1", "22", "--local-host-port=0.0.0.0:2222"]],
    ["workstations tunnel", ["workstations", "start-tcp-tunnel", "ws", "22", "--local-host-port=0.0.0.0:2222"]],
    ["workstations ssh", ["workstations", "ssh", "ws", "--local-host-port=0.0.0.0:2222"]],
    ["an emulator", ["beta", "emulators", "pubsub", "start", "--host-port=0.0.0.0:8085"]],
    ["an emulator, split value", ["alpha", "emulators", "spanner", "start", "--host-port", "192.168.0.2:9010"]],
    ["given twice, the second wide", [...iap, "--local-host-port=localhost:1", "--local-host-port=0.0.0.0:1"]],
  ])("%s is refused", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it.each(LOOPBACK)("--local-host-port=%j stays up to the rules", (address) => {
    expect(decide([...iap, `--local-host-port=${address}`]).result).toBe("accept");
    expect(decide([...iap, "--local-host-port", address]).result).toBe("accept");
  });

  it("without the flag (gcloud binds localhost) and with an emulator on loopback, the rules decide", () => {
    expect(decide(iap).result).toBe("accept");
    expect(decide(["beta", "emulators", "pubsub", "start", "--host-port=localhost:8085"]).result).toBe("accept");
  });

  it("the denial names the option and says what to give, never the agent's value", () => {
    const decision = decide([...iap, "--local-host-port=10.9.8.7:2222"]);
    expect(decision.reason).toContain("--local-host-port");
    expect(decision.reason).toContain("loopback");
    expect(decision.reason).toContain("localhost:PORT");
    expect(decision.reason).not.toContain("10.9.8.7");
  });
});

describe("kubectl: listeners beyond the call are on the kubectl_context floor", () => {
  const kubectl = bundledPolicyContext("kubectl");
  const decideKubectl = (argv: readonly string[]) => evaluatePolicy(compilePolicy(kubectl, { shared: ruleList([], ["port-forward", "proxy"]) }), argv).decision;
  it.each([
    ["port-forward", "pod/web", "8080:80", "--address=0.0.0.0"],
    ["proxy", "--address=0.0.0.0"],
    ["proxy", "--accept-hosts=.*"],
  ])("kubectl %s ... is refused", (...argv) => {
    expect(decideKubectl(argv)).toMatchObject({ result: "deny", source: "locked-option" });
  });
});

describe("loopback_only rows and the loopback reading on their own", () => {
  it("only loopback spellings that need no lookup count; every element of a comma list must be one", () => {
    for (const address of LOOPBACK) expect(isLoopbackListener(address)).toBe(true);
    for (const address of NOT_LOOPBACK) expect(isLoopbackListener(address)).toBe(false);
    expect(isLoopbackListener("localhost,127.0.0.1,::1")).toBe(true);
    expect(isLoopbackListener("127.0.0.256:1")).toBe(false);
  });

  it("a loopback_only row reads a global option's value too, and its value after =", () => {
    const spec: GrammarSpec = {
      parser: "argparse",
      forbiddenValuePrefixes: [],
      commands: [],
      options: [{ name: "--bind", value: "required", repeatable: false }],
      lockedCommandOptions: [{ command: ["serve"], options: ["--bind", "--listen"], loopbackOnly: true, exact: true }],
    };
    const grammar = compileGrammar(spec, []);
    expect(rejectionOf(grammar, ["serve", "--bind", "0.0.0.0:1"])).toMatchObject({ kind: "locked-option", option: "--bind" });
    expect(rejectionOf(grammar, ["serve", "--listen=0.0.0.0:1"])).toMatchObject({ kind: "locked-option", option: "--listen" });
    expect(canon(grammar, ["serve", "--bind", "127.0.0.1:1", "--listen", "localhost:2"])).toEqual(["serve", "--listen", "localhost:2", "--bind=127.0.0.1:1"]);
    // Another command is not under the row.
    expect(canon(grammar, ["other", "--listen=0.0.0.0:1"])).toEqual(["other", "--listen=0.0.0.0:1"]);
  });
});

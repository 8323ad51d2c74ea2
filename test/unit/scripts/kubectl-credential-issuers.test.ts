/**
 * scripts/providers/kubectl-credential-issuers.mjs reads from the real kubectl's
 * help the options that POST to any API path (`create --raw`, which reaches the
 * serviceaccounts/NAME/token subresource `create token` calls), and fails when
 * one is no longer found (a reworded help text is reviewed, never dropped).
 */
import { describe, expect, test } from "vitest";
import { rawPostRows } from "../../../scripts/providers/kubectl-credential-issuers.mjs";
import { kubectlHelp } from "../../support/kubectl-help.js";

const scopes = (commands: readonly string[]) => commands.map((command) => ({ path: [command], optionLines: kubectlHelp(command, "--help") }));

describe("rawPostRows", () => {
  test("the real kubectl's help yields create --raw only: get, replace and delete --raw send GET, PUT and DELETE", () => {
    const rows = rawPostRows(scopes(["create", "get", "replace", "delete", "apply"]));
    expect(rows.map((row) => [row.command.join(" "), row.options])).toEqual([["create", ["--raw"]]]);
    expect(rows[0]?.why).toContain("it prints a credential usable outside Torii");
  });

  test("a reworded description fails the generator, naming the option", () => {
    const [create] = scopes(["create"]);
    const reworded = { ...create!, optionLines: create!.optionLines.map((line) => line.replace("Raw URI to POST", "Raw path to send")) };
    expect(() => rawPostRows([reworded])).toThrow("create --raw is no longer found");
  });
});

/**
 * A deny rule holds in every gcloud release track (red team azg F3). `gcloud beta
 * secrets versions access` and `gcloud alpha compute instances delete` run the
 * same API calls as the GA paths (checked with the real gcloud 528: `beta secrets
 * versions access` exists and reads the secret), yet a deny rule written for the
 * GA path did not match them, so an accept that covers a track (`beta`, a regex
 * over `((alpha|beta) )?compute`, a grant) let the denied call run. The provider
 * names its track words (`policy.release_tracks`), and deny rules also match the
 * call without a leading one. Through the bundled gcloud provider as the server
 * builds it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, bundledProviderConfig, ruleList } from "../../support/policy-helpers.js";

const gcloud = bundledPolicyContext("gcloud");
const DENY = ["secrets versions access", "/^compute instances (delete|reset)( |$)/"];
const ACCEPT = ["alpha", "beta", "preview", "/^((alpha|beta) )?compute instances .*/", "secrets"];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(gcloud, { shared: ruleList(DENY, ACCEPT) }), argv).decision;

describe("gcloud: a deny rule holds in every release track", () => {
  it.each(
    [
      ["secrets", "versions", "access", "latest", "--secret=s"],
      ["beta", "secrets", "versions", "access", "latest", "--secret=s"],
      ["alpha", "secrets", "versions", "access", "latest", "--secret=s", "--format=json"],
      ["beta", "secrets", "versions", "access", "--secret=s", "--", "latest"],
      ["compute", "instances", "delete", "vm-1", "--zone=z"],
      ["beta", "compute", "instances", "delete", "vm-1", "--zone=z"],
      ["alpha", "compute", "instances", "reset", "vm-1", "--zone=z", "--quiet"],
      ["preview", "compute", "instances", "delete", "vm-1"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s is denied by the rule", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "explicit-deny" });
  });

  it("other commands of the tracks stay up to the accept rules; a deny naming a track is still its own", () => {
    expect(decide(["beta", "compute", "instances", "list"]).result).toBe("accept");
    expect(decide(["alpha", "secrets", "list"]).result).toBe("accept");
    const trackOnly = compilePolicy(gcloud, { shared: ruleList(["beta compute"], ["compute", "beta"]) });
    expect(evaluatePolicy(trackOnly, ["beta", "compute", "instances", "list"]).decision.result).toBe("deny");
    expect(evaluatePolicy(trackOnly, ["compute", "instances", "list"]).decision.result).toBe("accept");
  });

  it("the bundled provider names gcloud's track words", () => {
    expect(bundledProviderConfig("gcloud").policy?.release_tracks).toEqual(["alpha", "beta", "preview"]);
  });
});

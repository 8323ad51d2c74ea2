/**
 * gcloud calls that act above the pinned project (scope 2): a billing account
 * (`--billing-account B`, `billingAccounts/B`; `billing projects link P
 * --billing-account B` moves the project's costs), and commands whose resource
 * is an organization's, named by a bare ID or a name without `projects/`
 * (`organizations add-iam-policy-binding ORG`, `resource-manager folders ...
 * F`, workforce pools, access policies, Cloud Identity groups), and the
 * remaining flags of the SDK's completion tree that name or widen to an
 * organization. Refused whatever the rules say, in every release track, as
 * `projects/OTHER` and `--organization` are. Through the bundled gcloud
 * provider as the server builds it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const gcloud = bundledPolicyContext("gcloud");
const ACCEPT = [
  "logging",
  "recommender",
  "billing",
  "beta billing",
  "alpha billing",
  "organizations",
  "beta organizations",
  "resource-manager",
  "iam",
  "access-context-manager",
  "identity",
  "assured",
  "network-security",
  "data-catalog",
  "alpha storage",
  "dataplex",
  "compute",
];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(gcloud, { shared: ruleList([], ACCEPT) }), argv).decision;

describe("gcloud: a billing account is refused as another project is", () => {
  it.each(
    [
      ["logging", "read", "severity>=ERROR", "--billing-account=0X0X0X-0X0X0X-0X0X0X"],
      ["logging", "sinks", "create", "s", "storage.googleapis.com/b", "--billing-account", "0X0X0X-0X0X0X-0X0X0X"],
      ["recommender", "recommendations", "list", "--recommender=r", "--location=global", "--billing-account=B"],
      ["logging", "read", "severity>=ERROR", "--resource-names=billingAccounts/0X0X0X-0X0X0X-0X0X0X"],
      ["logging", "read", "severity>=ERROR", "--resource-names", "BILLINGACCOUNTS%2FB"],
      ["assured", "workloads", "create", "--display-name=w", "--partner-services-billing-account=B"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decision.reason).toMatch(/billing account/u);
  });
});

describe("gcloud: commands whose resource is above the project are locked", () => {
  it.each(
    [
      ["billing", "projects", "link", "p", "--billing-account=B"],
      ["beta", "billing", "projects", "link", "p", "--account-id=B"],
      ["billing", "accounts", "list"],
      ["alpha", "billing", "budgets", "list"],
      ["organizations", "add-iam-policy-binding", "123456", "--member=user:a@example.com", "--role=roles/owner"],
      ["beta", "organizations", "describe", "123456"],
      ["resource-manager", "folders", "add-iam-policy-binding", "42", "--member=user:a@example.com", "--role=roles/owner"],
      ["iam", "workforce-pools", "delete", "pool", "--location=global"],
      ["iam", "workforce-pools", "providers", "create-oidc", "p", "--workforce-pool=pool", "--location=global"],
      ["access-context-manager", "perimeters", "update", "perimeter", "--policy=1", "--remove-resources=x"],
      ["identity", "groups", "memberships", "add", "--group-email=admins@example.com", "--member-email=a@example.com"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-command" });
  });
});

describe("gcloud: the completion tree's other organization flags", () => {
  it.each(
    [
      [
        "network-security",
        "security-profile-groups",
        "create",
        "g",
        "--location=global",
        "--threat-prevention-profile=p",
        "--threat-prevention-profile-organization=123456",
      ],
      ["network-security", "security-profile-groups", "create", "g", "--location=global", "--custom-mirroring-profile-organization=123456"],
      ["data-catalog", "search", "q", "--include-organization-ids=123456"],
      ["alpha", "storage", "insights", "dataset-configs", "create", "c", "--location=us", "--enable-organization-scope"],
      ["dataplex", "metadata-jobs", "create", "j", "--location=us", "--export-organization-level"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decision.reason).toMatch(/organization/u);
  });

  it("the same commands in the pinned project stay up to the rules", () => {
    expect(decide(["logging", "read", "severity>=ERROR"]).result).toBe("accept");
    expect(decide(["recommender", "recommendations", "list", "--recommender=r", "--location=global"]).result).toBe("accept");
    expect(decide(["iam", "service-accounts", "list"]).result).toBe("accept");
    expect(decide(["resource-manager", "tags", "keys", "list", "--parent=p"]).result).toBe("accept");
    expect(decide(["compute", "instances", "list"]).result).toBe("accept");
  });
});

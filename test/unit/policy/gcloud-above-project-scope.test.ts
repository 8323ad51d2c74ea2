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
  "projects",
  "alpha projects",
  "beta projects",
  "beta compute",
  "dns",
  "beta resource-manager",
  "apphub",
  "alpha apphub",
  "alpha monitoring",
  "beta monitoring",
  "alpha iam",
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
    expect(decide(["resource-manager", "org-policies", "list"]).result).toBe("accept");
    expect(decide(["compute", "instances", "create", "vm", "--resource-manager-tags=tagKeys/1=tagValues/2"]).result).toBe("accept");
    expect(decide(["dns", "managed-zones", "list"]).result).toBe("accept");
    expect(decide(["compute", "instances", "list"]).result).toBe("accept");
  });
});

describe("gcloud: a project named by its bare ID (scope 3)", () => {
  it.each(
    [
      ["projects", "add-iam-policy-binding", "other-project", "--member=user:a@example.com", "--role=roles/owner"],
      ["projects", "remove-iam-policy-binding", "other-project", "--member=user:a@example.com", "--role=roles/owner"],
      ["projects", "set-iam-policy", "other-project", "policy.json"],
      ["projects", "get-iam-policy", "other-project"],
      ["projects", "get-ancestors-iam-policy", "other-project"],
      ["projects", "describe", "other-project"],
      ["projects", "describe", "123456789012"],
      ["projects", "delete", "other-project"],
      ["projects", "undelete", "other-project"],
      ["projects", "update", "other-project", "--name=x"],
      ["projects", "create", "new-project", "--set-as-default"],
      ["projects", "list"],
      ["projects", "list", "--format=value(projectId)"],
      ["--quiet", "projects", "delete", "other-project"],
      ["--format=json", "projects", "describe", "other-project"],
      ["beta", "projects", "describe", "other-project"],
      ["alpha", "projects", "search", "--query=name:x"],
      ["alpha", "projects", "move", "other-project", "--folder=1"],
      ["compute", "shared-vpc", "enable", "other-project"],
      ["compute", "shared-vpc", "associated-projects", "add", "other-project", "--host-project=p"],
      ["compute", "shared-vpc", "get-host-project", "other-project"],
      ["beta", "compute", "shared-vpc", "list-associated-resources", "other-project"],
      ["dns", "project-info", "describe", "other-project"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });
});

describe("gcloud: more commands whose operand is a project named by its bare ID (scope 3, review)", () => {
  it.each(
    [
      ["apphub", "service-projects", "add", "OTHER", "--location=global"],
      ["apphub", "service-projects", "remove", "OTHER", "--location=global"],
      ["apphub", "service-projects", "describe", "OTHER", "--location=global"],
      ["alpha", "apphub", "service-projects", "add", "OTHER", "--location=global"],
      ["--quiet", "apphub", "service-projects", "remove", "OTHER", "--location=global"],
      ["beta", "monitoring", "metrics-scopes", "create", "OTHER"],
      ["alpha", "monitoring", "metrics-scopes", "delete", "OTHER"],
      ["beta", "monitoring", "metrics-scopes", "describe", "OTHER"],
      ["alpha", "monitoring", "metrics-scopes", "list", "OTHER"],
      ["iam", "workload-identity-pools", "namespaces", "workload-sources", "create", "project-123", "--location=global"],
      ["iam", "workload-identity-pools", "managed-identities", "workload-sources", "update", "project-123", "--location=global"],
      ["alpha", "iam", "workload-identity-pools", "namespaces", "workload-sources", "create", "project-123"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it("the pinned project's own apphub service-project commands stay up to the rules", () => {
    expect(decide(["apphub", "service-projects", "list", "--location=global"]).result).toBe("accept");
    expect(decide(["apphub", "service-projects", "lookup", "--location=global"]).result).toBe("accept");
    expect(decide(["apphub", "service-projects", "detach", "--location=global"]).result).toBe("accept");
  });
});

describe("gcloud: Resource Manager tag keys, values, bindings and holds are the organization's", () => {
  it.each(
    [
      ["resource-manager", "tags", "keys", "list", "--parent=123456"],
      ["resource-manager", "tags", "keys", "describe", "tagKeys/281478"],
      ["resource-manager", "tags", "keys", "describe", "123456/env"],
      ["resource-manager", "tags", "keys", "add-iam-policy-binding", "tagKeys/1", "--member=user:a@example.com", "--role=roles/owner"],
      [
        "resource-manager",
        "tags",
        "values",
        "add-iam-policy-binding",
        "123456/env/prod",
        "--member=user:a@example.com",
        "--role=roles/resourcemanager.tagUser",
      ],
      ["resource-manager", "tags", "values", "create", "prod", "--parent=tagKeys/1"],
      ["resource-manager", "tags", "values", "delete", "tagValues/2"],
      ["resource-manager", "tags", "holds", "create", "tagValues/2", "--holder=h"],
      ["beta", "resource-manager", "tags", "bindings", "list", "--parent=x"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });
});

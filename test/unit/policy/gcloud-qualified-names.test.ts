/**
 * gcloud names that carry a project in another spelling than `projects/OTHER/…`
 * (the known open item of scope 3): a BigQuery name `PROJECT:DATASET.TABLE` or
 * `PROJECT.DATASET.TABLE`, a BigQuery URI `bq://PROJECT.DATASET.TABLE`, a Cloud SQL
 * connection name `PROJECT:REGION:INSTANCE`. `pubsub subscriptions create s --topic t
 * --bigquery-table OTHER:ds.t` writes the topic's messages into another project's
 * table, as `--topic-project OTHER` (locked) and `projects/OTHER/…` (a locked value)
 * would reach another project. Refused whatever the rules say, in every spelling and
 * release track; the same commands with the pinned project's short names still pass.
 * Through the bundled gcloud provider as the server builds it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const gcloud = bundledPolicyContext("gcloud");
const ACCEPT = ["pubsub", "beta pubsub", "alpha dlp", "healthcare", "ai", "beta ml-engine", "alpha metastore", "run", "beta run", "asset"];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(gcloud, { shared: ruleList([], ACCEPT) }), argv).decision;
const cases = (argvs: readonly (readonly string[])[]) => argvs.map((argv) => [argv.join(" "), argv] as const);

describe("gcloud: a BigQuery or Cloud SQL name qualified by another project is refused", () => {
  it.each(
    cases([
      ["pubsub", "subscriptions", "create", "s", "--topic=t", "--bigquery-table=other-proj:ds.t"],
      ["pubsub", "subscriptions", "create", "s", "--topic", "t", "--bigquery-table", "other-proj.ds.t"],
      ["--quiet", "pubsub", "subscriptions", "create", "--bigquery-table=other-proj:ds.t", "s", "--topic=t"],
      ["beta", "pubsub", "subscriptions", "update", "s", "--bigquery-table=other-proj:ds.t"],
      ["alpha", "dlp", "job-triggers", "create", "--input-table=other-proj.ds.t", "--trigger-id=x"],
      ["alpha", "dlp", "datasources", "gcs", "inspect", "gs://b/x", "--output-table", "other-proj.ds"],
      ["alpha", "dlp", "datasources", "bigquery", "inspect", "other-proj.ds.t", "--info-types=EMAIL_ADDRESS"],
      ["alpha", "dlp", "datasources", "bigquery", "analyze", "other-proj.ds.t", "--numerical-stat-field=f"],
      ["beta", "ml-engine", "versions", "update", "v", "--model=m", "--bigquery-table-name=other-proj.ds.t"],
      ["alpha", "metastore", "services", "migrations", "start", "--service=s", "--instance-connection-name=other-proj:r:i"],
      ["run", "deploy", "svc", "--image=i", "--add-cloudsql-instances=other-proj:us-central1:db"],
      ["run", "deploy", "svc", "--image=i", "--set-cloudsql-instances", "db,other-proj:us-central1:db"],
      ["beta", "run", "jobs", "update", "j", "--add-cloudsql-instances=other-proj:us-central1:db"],
    ]),
  )("%s", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny" });
    expect(["locked-option", "locked-command"]).toContain(decision.source);
    expect(decision.reason).not.toContain("other-proj");
  });

  it.each(
    cases([
      ["healthcare", "dicom-stores", "export", "bq", "st", "--dataset=d", "--location=l", "--bq-table=bq://other-proj.ds.t"],
      ["healthcare", "fhir-stores", "export", "bq", "st", "--dataset=d", "--location=l", "--bq-dataset", "BQ://other-proj.ds"],
      ["healthcare", "dicom-stores", "create", "st", "--dataset=d", "--location=l", "--stream-configs=bq://other-proj.ds.t"],
      ["healthcare", "fhir-stores", "create", "st", "--dataset=d", "--location=l", "--stream-configs=bq%3A//other-proj.ds.t"],
      ["ai", "endpoints", "create", "--display-name=x", "--region=r", "--request-response-logging-table=bq%3A//other-proj/ds/t"],
      ["ai", "model-monitoring-jobs", "create", "--region=r", "--bigquery-uri=bq://other-proj.ds.t"],
      ["ai", "datasets", "create", "--display-name=d", "--region=r", "--metadata-schema-uri=x", "--", "bq://other-proj.ds.t"],
    ]),
  )("a BigQuery URI in any argument: %s", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option" });
    // The locked value refuses it (a flag's own row would name the flag): also where no row locks the flag.
    expect(decision.reason).toContain('holds "bq://"');
    expect(decision.reason).not.toContain("other-proj");
  });
});

describe("gcloud: the same commands with the pinned project's names stay up to the rules", () => {
  it.each(
    cases([
      ["pubsub", "subscriptions", "create", "s", "--topic=t"],
      ["pubsub", "topics", "create", "t"],
      ["alpha", "dlp", "datasources", "gcs", "inspect", "gs://b/x", "--info-types=EMAIL_ADDRESS"],
      ["run", "services", "update", "svc", "--add-cloudsql-instances=db"],
      ["run", "services", "update", "svc", "--set-cloudsql-instances", "db1,db2", "--region=us-central1"],
      ["run", "services", "update", "svc", "--remove-cloudsql-instances=other-proj:us-central1:db"],
      ["asset", "export", "--content-type=resource", "--bigquery-table=t", "--bigquery-dataset=d"],
    ]),
  )("%s", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "accept", source: "rules" });
  });
});

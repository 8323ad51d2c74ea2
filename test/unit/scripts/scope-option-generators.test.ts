/**
 * The generators of the command arguments that pick another project, endpoint,
 * credential or subscription (scripts/providers/gcloud_scope_flags.py,
 * az_scope_options.py) fail closed: an az candidate no review row covers stops
 * the script, naming it; a gcloud project flag no other row names is locked. Run as a review would, on saved inputs (a saved gcloud tree, saved
 * az arguments), instead of loading the SDKs (minutes).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDirectory } from "../../support/temp-dirs.js";

const script = (name: string) => fileURLToPath(new URL(`../../../scripts/providers/${name}`, import.meta.url));
/** The Python az runs with (Debian's): az_scope_options.py reads az's module sources through it. */
const PYTHON = "/usr/bin/python3";

function run(name: string, input: unknown, extra: (dir: string) => string[] = () => []) {
  const dir = tempDirectory("torii-scope-gen-");
  writeFileSync(path.join(dir, "input.json"), JSON.stringify(input));
  const flag = name.startsWith("gcloud") ? "--tree" : "--arguments";
  const result = spawnSync(PYTHON, [script(name), flag, path.join(dir, "input.json"), ...extra(dir)], { encoding: "utf8" });
  const listing = path.join(dir, "listing.txt");
  return { ...result, listing: existsSync(listing) ? readFileSync(listing, "utf8") : "" };
}

describe.skipIf(!existsSync(PYTHON))("gcloud_scope_flags.py", () => {
  /** One command for each flag of QUALIFIED_NAME_FLAGS: an entry that finds none stops the script (a renamed flag). */
  const qualifiedNameCommands = [
    [
      ["alpha", "dlp", "job-triggers", "create"],
      ["--input-table", "--output-table"],
    ],
    [["ml-engine", "versions", "update"], ["--bigquery-table-name"]],
    [["healthcare", "dicom-stores", "export", "bq"], ["--bq-table"]],
    [["healthcare", "fhir-stores", "export", "bq"], ["--bq-dataset"]],
    [["healthcare", "dicom-stores", "create"], ["--stream-configs"]],
    [["ai", "endpoints", "create"], ["--request-response-logging-table"]],
    [["ai", "model-monitoring-jobs", "create"], ["--bigquery-uri"]],
    [["beta", "metastore", "services", "migrations", "start"], ["--instance-connection-name"]],
    [
      ["run", "deploy"],
      ["--add-cloudsql-instances", "--set-cloudsql-instances", "--clear-cloudsql-instances"],
    ],
    [["alpha", "code", "dev"], ["--cloudsql-instances"]],
  ];
  const tree = [
    [
      ["pubsub", "subscriptions", "create"],
      ["--topic", "--topic-project", "--project", "--bigquery-table"],
    ],
    ...qualifiedNameCommands,
    [
      ["compute", "instances", "create"],
      ["--image", "--image-project", "--format"],
    ],
    [
      ["compute", "instances", "list"],
      ["--format", "--projection"],
    ],
  ];

  it("locks every project flag exactly, lets --image-project name the SDK's public image projects", () => {
    const out = run("gcloud_scope_flags.py", { tree, images: ["debian-cloud", "ubuntu-os-cloud"] });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.split("\n").filter((line) => line.includes("command: []"))).toEqual([
      "    - {command: [], options: [--image-project], exact: true, allowed_values: [debian-cloud, ubuntu-os-cloud]}",
      "    - {command: [], options: [--topic-project], exact: true}",
    ]);
  });

  it("locks the organization and folder flags the tree has, in one row", () => {
    const out = run("gcloud_scope_flags.py", {
      tree: [
        ...tree,
        [
          ["logging", "read"],
          ["--folder", "--organization"],
        ],
      ],
      images: [],
    });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^ {4}- \{command: \[\], options: \[--folder, --organization\], exact: true, why: "it names an organization or folder/mu);
  });

  it("locks the billing-account flags and the organization-wide switches the tree has, one row each", () => {
    const out = run("gcloud_scope_flags.py", {
      tree: [
        ...tree,
        [["logging", "read"], ["--billing-account"]],
        [
          ["storage", "insights", "dataset-configs", "create"],
          ["--enable-organization-scope", "--skip-billing-check"],
        ],
      ],
      images: [],
    });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^ {4}- \{command: \[\], options: \[--billing-account\], exact: true, why: "it names a billing account/mu);
    expect(out.stdout).toMatch(
      /^ {4}- \{command: \[\], options: \[--enable-organization-scope\], exact: true, why: "it widens the command to the whole organization/mu,
    );
    expect(out.stdout).not.toContain("--skip-billing-check");
  });

  it("locks the flags whose value names a project as a BigQuery or Cloud SQL name, per command and track", () => {
    const out = run("gcloud_scope_flags.py", {
      tree: [
        ...tree,
        [["beta", "pubsub", "subscriptions", "update"], ["--bigquery-table"]],
        [
          ["asset", "export"],
          ["--bigquery-table", "--bigquery-dataset"],
        ],
      ],
      images: [],
    });
    expect(out.status, out.stderr).toBe(0);
    const rows = out.stdout.split("\n").filter((line) => line.includes("--bigquery-table]"));
    expect(rows.map((line) => line.replace(/, why: .*$/u, ""))).toEqual([
      "    - {command: [beta, pubsub, subscriptions, update], options: [--bigquery-table], exact: true",
      "    - {command: [pubsub, subscriptions, create], options: [--bigquery-table], exact: true",
    ]);
    // A Cloud SQL instance given by its plain name stays in the pinned project: only a qualified one (a colon) is refused.
    expect(out.stdout).toContain(
      "    - {command: [run, deploy], options: [--add-cloudsql-instances], exact: true, value_contains: ':', single_value: true, why: ",
    );
    expect(out.stdout).not.toContain("--clear-cloudsql-instances");
  });

  it("stops on a BigQuery or Cloud SQL flag no review names, and on a reviewed flag the tree lost", () => {
    const unreviewed = run("gcloud_scope_flags.py", { tree: [...tree, [["x", "y"], ["--bigquery-sink-table"]]], images: [] });
    expect(unreviewed.status).not.toBe(0);
    expect(unreviewed.stderr).toContain("--bigquery-sink-table");
    const lost = run("gcloud_scope_flags.py", { tree: tree.filter(([path]) => path?.[0] !== "ai" || path[1] !== "endpoints"), images: [] });
    expect(lost.status).not.toBe(0);
    expect(lost.stderr).toContain("--request-response-logging-table");
  });

  it("locks a project flag the review names nowhere else (the last row fails closed)", () => {
    const out = run("gcloud_scope_flags.py", { tree: [...tree, [["x", "y"], ["--new-thing-project"]]], images: [] });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain("    - {command: [], options: [--new-thing-project], exact: true}\n");
  });
});

describe.skipIf(!existsSync(PYTHON))("az_scope_options.py", () => {
  const listingArg = (dir: string) => ["--listing", path.join(dir, "listing.txt")];
  const found = [
    ["storage blob list", ["--blob-endpoint"], ""],
    ["storage blob upload", ["--file", "-f"], ""],
    ["storage copy", ["--source"], ""],
    ["storage copy", ["--source-sas"], ""],
    ["storage share list", ["--file-endpoint"], ""],
    ["backup restore restore-disks", ["--target-subscription-id"], ""],
    ["repos list", ["--org", "--organization"], ""],
    ["servicebus topic subscription rule list", ["--subscription-name"], ""],
  ];

  it("writes group rows, per-command rows where a shorter option is a prefix, and exact spellings where the command has it", () => {
    const out = run("az_scope_options.py", [found, []], listingArg);
    expect(out.status, out.stderr).toBe(0);
    expect(out.listing).toContain("storage --blob-endpoint  # lock\n");
    expect(out.listing).toContain("storage share list --file-endpoint  # lock\n");
    expect(out.listing).toContain("storage copy --source-sas  # lock from --source-\n");
    expect(out.listing).toContain("backup --target-subscription-id  # lock\n");
    expect(out.listing).toContain("repos --org  # lock\nrepos --organization  # lock\n");
    expect(out.listing).toContain("--subscription-name  # allow\n");
  });

  it("stops on a candidate no review row covers, naming it", () => {
    const out = run("az_scope_options.py", [[...found, ["widget show", ["--widget-endpoint-thing"], ""]], []], listingArg);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain("widget show --widget-endpoint-thing");
    expect(out.listing).toBe("");
  });
});

#!/usr/bin/env python3
"""The gcloud flags that name another project than the target's, as locked command options.

    python3 scripts/providers/gcloud_scope_flags.py --tree TREE.json   # print the rows for a saved tree

`gcloud pubsub subscriptions create s --topic t --topic-project OTHER` sends the request
`"topic": "projects/OTHER/topics/t"`: the same request targeting.locked_values refuses when
the agent writes `--topic projects/OTHER/topics/t` (red team 10 F3). The SDK's resource
arguments give most resources a `--<attribute>-project` flag (`--host-project`, `--kms-project`,
`--destination-project`, ...), so the rows come from the SDK's static completion tree (every
command of every release track with its flags, gcloud_file_writes.command_tree), not a list:

- a candidate is a flag whose name holds `project` (the review's `candidate`);
- each takes the verdict of the first matching row of gcloud-scope-flags-reviewed.json:
  `lock` (refused whatever the rules say), `allow` (not a project: a switch, a projection),
  `public-images` (refused unless its value is one of the SDK's own
  `constants.PUBLIC_IMAGE_PROJECTS`, `--image-project debian-cloud`), `skip` (locked
  elsewhere); a candidate no row matches stops the script.

gcloud refuses abbreviated flags, so the rows are `exact: true`: `--topic` stays the topic.
Each flag is one row for every command (`command: []`): the same name means the same thing
wherever the SDK's concept presentation generates it. gcloud-options.py writes the rows.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REVIEWED = os.path.join(HERE, "gcloud-scope-flags-reviewed.json")

# Flags that name an organization or folder, a scope over many projects: `logging read
# --organization ORG` reads every project's logs, `logging sinks create --organization ORG
# --include-children` exports them, as `--resource-names=organizations/ORG` (refused by
# targeting.locked_values) does. From the tree (flags holding organization or folder), reviewed
# by hand: not `--vcenter-folder`, `--sub-folder`, `--organizational-unit` (no Google Cloud scope).
# The `--*-profile-organization` flags of network-security security-profile-groups name the
# organization of the security profile; `data-catalog search --include-organization-ids` searches
# those organizations.
SCOPE_PARENT_FLAGS = (
    "--custom-intercept-profile-organization",
    "--custom-mirroring-profile-organization",
    "--dest-organization",
    "--destination-folder",
    "--destination-organization",
    "--folder",
    "--include-organization-ids",
    "--organization",
    "--reservation-host-folder",
    "--reservation-host-organization",
    "--source-organization",
    "--threat-prevention-profile-organization",
    "--url-filtering-profile-organization",
)
SCOPE_PARENT_WHY = "it names an organization or folder, a scope over many projects: what an organizations/ or folders/ name does, which targeting.locked_values refuses"

# Switches that widen a command to the whole organization of the project: `storage insights
# dataset-configs create --enable-organization-scope` reports on every project of it,
# `dataplex metadata-jobs create --export-organization-level` exports its metadata.
ORGANIZATION_SWITCHES = ("--enable-organization-scope", "--export-organization-level")
ORGANIZATION_SWITCHES_WHY = "it widens the command to the whole organization of the project, a scope over many projects"

# Flags that name a billing account, above the project (from the tree: flags holding billing,
# reviewed by hand; `--billing-project` is a locked global flag, `--*-billing-project` are
# project flags above): `logging read --billing-account B` reads its logs, `billing projects link
# P --billing-account B` moves the project's costs, as `billingAccounts/B` (targeting.locked_values).
# Not `--skip-billing-check`, `--data-boost-compute-billing-owner` (switches of the project's own billing).
BILLING_FLAGS = ("--billing-account", "--partner-services-billing-account")
BILLING_WHY = "it names a billing account, above the project: what a billingAccounts/ name does, which targeting.locked_values refuses"


# Flags whose value names a project in another spelling than projects/OTHER/...: a BigQuery
# name qualified by its project (`{project}:{dataset}.{table}`, `<project_id>.<dataset_id>.<table_id>`,
# `bq://PROJECT.DATASET.TABLE`) or a Cloud SQL connection name (`PROJECT:REGION:INSTANCE`).
# `pubsub subscriptions create s --topic t --bigquery-table OTHER:ds.t` writes the topic's messages
# into another project's table, as `--topic-project`'s rows and `projects/` refuse. Reviewed in the
# SDK's sources (528: pubsub flags.py, dlp hooks.py, ml_engine flags.py, ai flags.py, healthcare
# dicom_stores|fhir_stores export bq.yaml and create|update.yaml, metastore migrations start.yaml,
# run config_changes.py). Each entry: the flag, the command groups (without a release track) whose
# commands read it so, and the text a value must hold to name a project (None: every value does).
# A row per command of the tree, in every track it has; an entry that finds no command stops the
# script (a flag renamed). `bq://` in any argument is also refused by targeting.locked_values.
QUALIFIED_NAME_FLAGS = (
    ("--bigquery-table", ("pubsub subscriptions",), None),
    ("--input-table", ("dlp",), None),
    ("--output-table", ("dlp",), None),
    ("--bigquery-table-name", ("ai-platform versions", "ml-engine versions"), None),
    ("--bq-table", ("healthcare dicom-stores",), None),
    ("--bq-dataset", ("healthcare fhir-stores",), None),
    ("--stream-configs", ("healthcare dicom-stores",), None),
    ("--request-response-logging-table", ("ai endpoints",), None),
    ("--bigquery-uri", ("ai model-monitoring-jobs",), None),
    ("--instance-connection-name", ("metastore services migrations",), None),
    # A plain instance name is completed with the pinned project (and the service's region); only a
    # qualified one (a colon: Cloud SQL names hold none) names another project.
    ("--add-cloudsql-instances", ("run", "code"), ":"),
    ("--set-cloudsql-instances", ("run", "code"), ":"),
    ("--cloudsql-instances", ("run", "code"), ":"),
)
QUALIFIED_NAME_WHY = "its value names a project (a BigQuery name PROJECT.DATASET.TABLE or PROJECT:DATASET.TABLE, bq://PROJECT..., a Cloud SQL PROJECT:REGION:INSTANCE): what a projects/OTHER/ name does, which targeting.locked_values refuses"

# Flags whose name says BigQuery or Cloud SQL and that name no project in another spelling, reviewed:
# a flag the tree has that matches QUALIFIED_NAME_CANDIDATE and is in neither list (nor holds `project`,
# the project review's) stops the script.
QUALIFIED_NAME_CANDIDATE = re.compile(r"bigquery|(^--|-)bq(-|$)|cloudsql|cloud-sql|connection-name")
QUALIFIED_NAME_REVIEWED = {
    "--bigquery-dataset": "asset's dataset attribute of --bigquery-table (a resource argument: projects/ refused, else the pinned project)",
    "--bigquery-dataset-resource": "dataplex lakes authorize: a dataset ID, its project is --project-resource (locked)",
    "--bigquery-destination-config": "datastream: a local file of settings, read after the decision (not covered, docs/policy.md)",
    "--bigquery-metastore": "a switch",
    "--bigquery-metastore-database-location": "a location",
    "--bigquery-partition-key": "an enum",
    "--bigquery-publishing-connection": "a connection resource argument (projects/ refused, else the pinned project)",
    "--bigquery-publishing-dataset-location": "a location",
    "--bigquery-publishing-table-type": "an enum",
    "--bigquery-service-account-email": "a service-account email (left to IAM, docs/policy.md)",
    "--bigquery-table-prefix": "a table name prefix inside --bigquery-dataset",
    "--bigquery-write-disposition": "an enum",
    "--clear-bigquery-config": "a switch",
    "--output-bigquery-force": "a switch",
    "--clear-resource-usage-bigquery-dataset": "a switch",
    "--resource-usage-bigquery-dataset": "container usage metering: a dataset ID of the cluster's project",
    "--clear-cloudsql-instances": "a switch",
    "--remove-cloudsql-instances": "removes a connection from the service: reaches nothing",
    "--clear-destination-cloud-sql-instance": "a switch",
    "--clear-source-cloud-sql-instance": "a switch",
    "--destination-cloud-sql-instance": "network-management: a full instance URI (projects/ refused)",
    "--source-cloud-sql-instance": "network-management: a full instance URI (projects/ refused)",
    "--cloud-sql-backup-id": "alloydb migrate-cloud-sql: its project is --cloud-sql-project-id (locked)",
    "--cloud-sql-instance-id": "alloydb migrate-cloud-sql: its project is --cloud-sql-project-id (locked)",
    "--cloud-sql-ipv4-cidr": "composer: an address range",
    "--cloud-sql-machine-type": "composer: a machine type",
    "--cloud-sql-preferred-zone": "composer: a zone",
    "--cloudsql-instance": "database-migration: an instance ID, its project is --cloudsql-project-id (locked)",
    "--private-connection-name": "datastream: a private connection of the pinned project",
}
TRACKS = ("alpha", "beta", "preview")


def qualified_name_rows(tree):
    """YAML lines of `argv.locked_command_options` for QUALIFIED_NAME_FLAGS; exits on an unreviewed candidate or a lost flag."""
    locked = {flag for flag, _, _ in QUALIFIED_NAME_FLAGS}
    unreviewed = sorted(
        {
            flag
            for _, flags in tree
            for flag in flags
            if QUALIFIED_NAME_CANDIDATE.search(flag) and "project" not in flag and flag not in locked and flag not in QUALIFIED_NAME_REVIEWED
        }
    )
    if unreviewed:
        sys.exit("gcloud_scope_flags: no verdict in QUALIFIED_NAME_REVIEWED or QUALIFIED_NAME_FLAGS for:\n  " + "\n  ".join(unreviewed))
    lines = []
    for flag, groups, contains in QUALIFIED_NAME_FLAGS:
        found = False
        for path, flags in sorted(tree):
            words = path[1:] if path and path[0] in TRACKS else path
            if flag not in flags or not any(words[: len(g.split())] == g.split() for g in groups):
                continue
            found = True
            value = ", value_contains: '%s', single_value: true" % contains if contains is not None else ""
            lines.append('    - {command: [%s], options: [%s], exact: true%s, why: "%s"}' % (", ".join(path), flag, value, QUALIFIED_NAME_WHY))
        if not found:
            sys.exit("gcloud_scope_flags: %s is on no command of %s (renamed?)" % (flag, ", ".join(groups)))
    return lines


def public_image_projects():
    """The SDK's own list of public image projects (the SDK's lib must be on sys.path)."""
    from googlecloudsdk.api_lib.compute import constants

    return sorted(constants.PUBLIC_IMAGE_PROJECTS)


def verdicts(tree, review):
    """{flag: (verdict, why)} for every candidate flag of the tree; exits naming an unreviewed one."""
    found, unreviewed = {}, []
    for _, flags in tree:
        for flag in flags:
            if review["candidate"] not in flag or flag in found:
                continue
            row = next((r for r in review["rows"] if re.search(r["flag"], flag)), None)
            if row is None:
                unreviewed.append(flag)
            else:
                found[flag] = (row["verdict"], row["why"])
    if unreviewed:
        sys.exit("no review row in %s for:\n  %s" % (REVIEWED, "\n  ".join(sorted(set(unreviewed)))))
    return found


def scope_flag_rows(tree, images):
    """YAML lines of `argv.locked_command_options`: one `exact` row per flag that names a project."""
    found = verdicts(tree, json.load(open(REVIEWED)))
    if not any(verdict == "lock" for verdict, _ in found.values()):
        raise SystemExit("gcloud_scope_flags: no project flag found in the tree (flags renamed?)")
    lines = []
    for flag in sorted(found):
        verdict, _ = found[flag]
        if verdict == "lock":
            lines.append("    - {command: [], options: [%s], exact: true}" % flag)
        elif verdict == "public-images":
            lines.append("    - {command: [], options: [%s], exact: true, allowed_values: [%s]}" % (flag, ", ".join(images)))
    present = {flag for _, flags in tree for flag in flags}
    parents = [flag for flag in SCOPE_PARENT_FLAGS if flag in present]
    if parents:
        lines.append('    - {command: [], options: [%s], exact: true, why: "%s"}' % (", ".join(parents), SCOPE_PARENT_WHY))
    switches = [flag for flag in ORGANIZATION_SWITCHES if flag in present]
    if switches:
        lines.append('    - {command: [], options: [%s], exact: true, why: "%s"}' % (", ".join(switches), ORGANIZATION_SWITCHES_WHY))
    billing = [flag for flag in BILLING_FLAGS if flag in present]
    if billing:
        lines.append('    - {command: [], options: [%s], exact: true, why: "%s"}' % (", ".join(billing), BILLING_WHY))
    return lines + qualified_name_rows(tree)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", required=True, metavar="FILE", help='a saved tree: {"tree": [[path words, flags]], "images": [projects]}')
    opts = ap.parse_args()
    saved = json.load(open(opts.tree))
    sys.stdout.write("\n".join(scope_flag_rows(saved["tree"], saved["images"])) + "\n")


if __name__ == "__main__":
    main()

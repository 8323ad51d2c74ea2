#!/usr/bin/env python3
"""List the gcloud arguments that read a local file or directory named by a bare path.

    python3 scripts/providers/gcloud_file_reads.py            # rewrite provider.yaml's argv.file_reads
    python3 scripts/providers/gcloud_file_reads.py --print    # print the listing

`gcloud secrets versions add s --data-file=PATH` uploads the file as a secret,
`builds submit [SOURCE]` and `run deploy --source` upload a local directory (the
working directory when none is named), `--metadata-from-file`, `--env-vars-file`,
`--*-from-file`, `--*-file` read a local file and send it to Google Cloud.

Candidates are the `read` lines of scripts/providers/gcloud-file-writes.txt (every
flag of the SDK's command tree whose name may name a local path, reviewed by
gcloud_file_writes.py as not writing); a flag whose name says it reads a local file
(LOCAL_READ) is kept (`--gcs-*`, `--*-uri`, `--destination`, `--path` name remote
objects and are not). SOURCE_COMMANDS adds the upload commands read from the SDK's
source. A reader that falls back to a default place when left out (`run deploy`
without `--source` deploys the working directory) gets a `default_path` row, which
holds every call: the SDK's sources are scanned for such fallbacks (DEFAULT_MARKER)
and each file with one must have a DEFAULT_READS verdict, or the script stops, so
an SDK upgrade that adds one is reviewed. Written: the `file_reads:` block of providers/gcloud/provider.yaml
(src/policy/file-reads.ts), a row's release tracks folded into one (release_tracks.py).
"""

import argparse
import os
import re
import shutil
import sys

from file_reads_yaml import splice, yaml_rows
from release_tracks import fold_rows

HERE = os.path.dirname(os.path.abspath(__file__))
LISTING = os.path.join(HERE, "gcloud-file-writes.txt")
PROVIDER = os.path.join(HERE, "..", "..", "providers", "gcloud", "provider.yaml")
COMMENT = ["Arguments gcloud reads from a bare local path and sends to Google Cloud: held like", "file writes (scripts/providers/gcloud_file_reads.py)."]
LOCAL_READ = re.compile(r"^--(?!gcs-|included-files$|ignored-files$)(.*-)?(file|files|from-file|file-path|file-paths|file-name|dir|dockerfile-dir|source-dir|package-path|model-dir|key-file|py-files|jar-files)$|^--data-file$")
# Commands that upload a local source tree: an operand (or the working directory) or --source.
SOURCE_COMMANDS = [
    "builds submit OPERAND:source",
    "beta builds submit OPERAND:source",
    "alpha builds submit OPERAND:source",
    "app deploy OPERAND:deployables",
    "beta app deploy OPERAND:deployables",
    # required: the flag's default '.' never applies, but the value is a local file uploaded.
    "artifacts sbom load --source",
]

# A fallback to the working directory in the SDK's command code (a flag's `default='.'`,
# `args.x or '.'`, the working directory read).
DEFAULT_MARKER = re.compile(r"default=['\"]\.['\"]|\bor ['\"]\.['\"]|GetCWD\(\)|getcwd\(\)")
# Each SDK file (under lib/) with a DEFAULT_MARKER: the reader flags it defaults, as
# `command --flag DEFAULT:path` without a release track (every track the command has in
# the listing gets the row), or why none reads a local place when left out.
DEFAULT_READS = {
    # PromptForDefaultSource: with no --image and no --source, the working directory (prompted) is uploaded.
    "googlecloudsdk/command_lib/run/flags.py": [
        "run deploy --source DEFAULT:.",
        "run jobs deploy --source DEFAULT:.",
        "run worker-pools deploy --source DEFAULT:.",
        "run workers deploy --source DEFAULT:.",
    ],
    "googlecloudsdk/command_lib/functions/v1/deploy/source_util.py": ["functions deploy --source DEFAULT:."],
    "googlecloudsdk/command_lib/functions/v2/deploy/command.py": ["functions deploy --source DEFAULT:."],
    "googlecloudsdk/command_lib/deploy/flags.py": ["deploy releases create --source DEFAULT:."],
    "surface/deploy/releases/create.py": ["deploy releases create --source DEFAULT:."],
    "surface/artifacts/go/upload.py": ["artifacts go upload --source DEFAULT:."],
    "googlecloudsdk/command_lib/apigee/archives.py": ["apigee archives deploy --source DEFAULT:."],
    "surface/app/gen_repo_info_file.py": ["app gen-repo-info-file --source-directory DEFAULT:."],
    "surface/builds/submit.py": "builds submit SOURCE: its operand row holds every call",
    "surface/app/gen_config.py": "app gen-config SOURCE_DIR: an operand row (gcloud-file-writes.txt) holds every call",
    "surface/meta/list_files_for_upload.py": "meta list-files-for-upload DIRECTORY: an operand row holds every call",
    "surface/artifacts/sbom/load.py": "--source is required (SOURCE_COMMANDS lists it): its default never applies",
    "surface/ai_platform/local/train.py": "ai-platform local train runs a local program (gcloud_local_programs.py); --package-path is listed",
    "googlecloudsdk/command_lib/ai/custom_jobs/local_util.py": "ai custom-jobs local-run builds locally (gcloud_local_programs.py)",
    "googlecloudsdk/command_lib/ai/custom_jobs/validation.py": "ai custom-jobs local-run builds locally (gcloud_local_programs.py)",
    "googlecloudsdk/command_lib/ai/docker/build.py": "ai custom-jobs local-run builds a docker image locally (gcloud_local_programs.py)",
    "googlecloudsdk/command_lib/code/cloud/cloud.py": "code dev/cloud-dev run skaffold locally (gcloud_local_programs.py)",
    "googlecloudsdk/command_lib/code/local.py": "code dev/cloud-dev run skaffold locally (gcloud_local_programs.py)",
    "googlecloudsdk/command_lib/app/migration_util.py": "app migrate-config reads app.yaml to write a converted one locally: a file write",
    "surface/resource_config/terraform/generate_import.py": "writes scripts into the working directory: a file write, not a read",
    "surface/resource_config/terraform/init_provider.py": "writes main.tf into the working directory: a file write, not a read",
    "googlecloudsdk/command_lib/util/declarative/terraform_utils.py": "the directory of an output file: a file write, not a read",
    "googlecloudsdk/command_lib/compute/os_config/troubleshoot/log_analysis.py": "writes logs into the working directory: a file write, not a read",
    "googlecloudsdk/command_lib/meta/generate_cli_trees.py": "`directory or '.'` names a tree output directory: a write",
    "googlecloudsdk/command_lib/meta/list_cli_trees.py": "`or '.' in base`: a file name test, not a default",
}


def default_sdk_lib():
    gcloud = shutil.which("gcloud")
    if not gcloud:
        sys.exit("gcloud not on PATH; pass --sdk-root")
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(gcloud))), "lib")


def unreviewed_defaults(sdk_lib):
    """SDK files with a fallback to the working directory that DEFAULT_READS has no verdict for, and verdicts for files without one."""
    found = set()
    for top in ("surface", os.path.join("googlecloudsdk", "command_lib")):
        for root, _, names in os.walk(os.path.join(sdk_lib, top)):
            for name in names:
                path = os.path.join(root, name)
                if name.endswith(".py") and DEFAULT_MARKER.search(open(path, encoding="utf-8", errors="replace").read()):
                    found.add(os.path.relpath(path, sdk_lib))
    return sorted(found - set(DEFAULT_READS)), sorted(set(DEFAULT_READS) - found)


def default_lines(listing_text):
    """DEFAULT_READS' reader lines at every release track their command has in the listing, and the commands it has in none."""
    out, missing = set(), []
    for verdict in DEFAULT_READS.values():
        for line in verdict if isinstance(verdict, list) else []:
            command = " ".join(w for w in line.split() if not w.startswith(("-", "DEFAULT:")))
            tracks = [t for t in ("", "alpha ", "beta ") if re.search("^%s " % re.escape(t + command), listing_text, re.M)]
            missing += [] if tracks else [command]
            out.update(t + line for t in tracks)
    return out, missing


def lines(listing_text):
    """Listing lines `command words --flag` of the reviewed candidates that read a local path, and the source commands."""
    out = set(SOURCE_COMMANDS) | default_lines(listing_text)[0]
    for line in listing_text.splitlines():
        if line.startswith("#") or not line.endswith("# read"):
            continue
        words = line.split("#")[0].split()
        flags = [w for w in words if w.startswith("--")]
        if flags and LOCAL_READ.match(flags[0]):
            out.add(" ".join([w for w in words if not w.startswith("-")] + flags[:1]))
    # A defaulted reader's row replaces its plain one: it holds the calls the plain one does, and more.
    defaulted = {line.rsplit(" DEFAULT:", 1)[0] for line in out if " DEFAULT:" in line}
    return sorted(out - defaulted)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--print", action="store_true")
    parser.add_argument("--sdk-root", help="the SDK's root (default: the one gcloud on PATH runs)")
    args = parser.parse_args()
    unreviewed, stale = unreviewed_defaults(default_sdk_lib() if args.sdk_root is None else os.path.join(args.sdk_root, "lib"))
    if unreviewed or stale:
        sys.exit("SDK files falling back to the working directory, not reviewed in DEFAULT_READS:\n  %s\nDEFAULT_READS files without one: %s" % ("\n  ".join(unreviewed), ", ".join(stale)))
    listing_text = open(LISTING).read()
    # A reviewed default whose command the SDK no longer lists is a review to redo, never a row dropped silently.
    missing = default_lines(listing_text)[1]
    if missing:
        sys.exit("DEFAULT_READS commands not in %s: %s" % (os.path.basename(LISTING), ", ".join(missing)))
    listing = lines(listing_text)
    if args.print:
        sys.stdout.write("".join(line + "\n" for line in listing))
        return
    text = splice(open(PROVIDER).read(), COMMENT, fold_rows(yaml_rows(listing)))
    open(PROVIDER, "w").write(text)
    sys.stderr.write("%d arguments read a local path\n" % len(listing))


if __name__ == "__main__":
    main()

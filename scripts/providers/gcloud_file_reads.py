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
source. Written: the `file_reads:` block of providers/gcloud/provider.yaml
(src/policy/file-reads.ts), a row's release tracks folded into one (release_tracks.py).
"""

import argparse
import os
import re
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
    "run deploy --source",
    "beta run deploy --source",
    "alpha run deploy --source",
    "functions deploy --source",
    "beta functions deploy --source",
    "alpha functions deploy --source",
    "run jobs deploy --source",
    "beta run jobs deploy --source",
]


def lines(listing_text):
    """Listing lines `command words --flag` of the reviewed candidates that read a local path, and the source commands."""
    out = set(SOURCE_COMMANDS)
    for line in listing_text.splitlines():
        if line.startswith("#") or not line.endswith("# read"):
            continue
        words = line.split("#")[0].split()
        flags = [w for w in words if w.startswith("--")]
        if flags and LOCAL_READ.match(flags[0]):
            out.add(" ".join([w for w in words if not w.startswith("-")] + flags[:1]))
    return sorted(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--print", action="store_true")
    args = parser.parse_args()
    listing = lines(open(LISTING).read())
    if args.print:
        sys.stdout.write("".join(line + "\n" for line in listing))
        return
    text = splice(open(PROVIDER).read(), COMMENT, fold_rows(yaml_rows(listing)))
    open(PROVIDER, "w").write(text)
    sys.stderr.write("%d arguments read a local path\n" % len(listing))


if __name__ == "__main__":
    main()

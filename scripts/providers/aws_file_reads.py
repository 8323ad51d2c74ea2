#!/usr/bin/env python3
"""List the AWS CLI arguments that read a local file or directory named by a bare path.

    python3 scripts/providers/aws_file_reads.py     # print them (YAML rows)

`file://`/`fileb://` are refused, but some arguments take a plain path: every
operation input member that is a streaming blob (`s3api put-object --body PATH`,
`upload-part --body`, `glacier upload-archive --body`: the CLI opens the value as
a file and uploads it), and hand-written arguments that read or upload a local
file or directory (READER_ARGUMENTS, read from each command's source), at every
path the CLI attaches their command to (aws_command_tree.py: `deploy push` is
also `cloudformation deploy push` and `ecs deploy push`). Every other hand-written
argument whose name may name a path needs a NOT_READERS row saying why it reads
none (fileb:// only, an S3 path, a setting), or the script stops. A reader option with
a default (`deploy push --source`, default `.`) reads its default when it is left
out: its row carries `default_path` (held on every call), and each such default
must be in DEFAULT_READS, reviewed, or the script stops. `aws-options.py`
writes the result into providers/aws/provider.yaml (`argv.file_reads`,
src/policy/file-reads.ts).
"""

import re
import sys

from aws_command_tree import same_command_paths
from aws_url_parameters import each_argument, isolate_environment

# Hand-written arguments that read a local path: {command path: argument names}.
READER_ARGUMENTS = {
    ("deploy", "push"): ("source",),
    ("cloudformation", "package"): ("template-file",),
    ("cloudformation", "deploy"): ("template-file",),
    # ecs/deploy.py _get_file_contents: both are local paths (~ and $VARS expanded).
    ("ecs", "deploy"): ("codedeploy-appspec", "task-definition"),
    # ec2/decryptpassword.py: the private key file that decrypts the password data.
    ("ec2", "get-password-data"): ("priv-launch-key",),
    ("gamelift", "upload-build"): ("build-root",),
    ("s3", "cp"): ("paths",),
    ("s3", "mv"): ("paths",),
    ("s3", "sync"): ("paths",),
    # servicecatalog/generatebase.py: uploads the local file to S3.
    ("servicecatalog", "generate", "product"): ("file-path",),
    ("servicecatalog", "generate", "provisioning-artifact"): ("file-path",),
}

# Reader options whose ARG_TABLE `default` is read when the option is left out, reviewed:
# {(command path, argument name): the default}. Their other command paths follow
# (aws_command_tree.py). A reader with a default not listed here, or listed with another
# value, stops the generator: a call without the option would read a place unseen.
DEFAULT_READS = {
    # customizations/codedeploy/push.py: zips and uploads the working directory (hidden files too).
    (("deploy", "push"), "source"): ".",
}


# A hand-written argument (one no botocore member defines) whose name may name a local
# path is a candidate: each must be a reader above or match a row here (why it reads no
# bare local path), or the generator stops, so a CLI upgrade that adds one is reviewed.
CANDIDATE_NAME = re.compile(r"file|path|dir|folder|root|source|appspec|definition|template|key|bundle|archive|zip|cert|document|content|data|bytes")
NOT_READERS = [
    (r" --(cli-input-json|generate-cli-skeleton)$", "the parameter carriers: a value, or file:// (refused)"),
    (r"--(outfile|certificate-pem-outfile|public-key-outfile|private-key-outfile|output-template-file)$|^s3 (cp|mv|sync) --paths$", "writes, not reads (aws_file_writes.py)"),
    (r" --(kms-key-id|sse-kms-key-id|log-encryption-kms-key-id|key-pair-id|metadata-directive|website-redirect|source-region|resource-type)$", "an identifier or a setting, not a path"),
    (r" --(ignore-hidden-files|no-ignore-hidden-files|validate-same-s3-paths|source-dest-check|no-source-dest-check)$|-on-launch$", "a switch"),
    (r"^s3 (cp|mv|sync) --content-(disposition|encoding|language|type)$", "an object header value"),
    (r"^s3 website --(error|index)-document$", "an S3 key name"),
    (r" --(description|product-description|provisioning-artifact-description|support-description|metadata)$", "text sent to the service"),
    (r" --(sse-c-key|sse-c-copy-source|sse-c-copy-source-key)$", "key material as a value, or fileb:// (refused)"),
    (r"^s3 (ls|mb|rb|rm|presign|website) --paths?$|^s3 (ls|rm) --paths$|^cloudfront create-invalidation --paths$", "S3 or CloudFront paths, not local ones"),
    (r"^emr (create|restore-from|schedule)-hbase-backup --dir$", "an S3 location"),
    (r"^emr (ssh|socks|put|get) --key-pair-file$|^(deploy|cloudformation deploy|ecs deploy) install --config-file$", "its command is a locked command (targeting.locked_commands)"),
    (r"^emr create-cluster --ebs-root-volume-(size|iops|throughput)$", "a number"),
    (r"^cloudfront (create|update)-distribution --default-root-object$|^cloudsearch define-index-field --source-field$|^ec2 (authorize|revoke)-security-group-(ingress|egress) --source-group$", "a name in the service"),
    (r"^cloudfront sign --private-key$", "the key as a value, or file:// (refused): a bare path is read as PEM text"),
    (r"^datapipeline put-pipeline-definition --pipeline-definition$", "file:// (refused) or the JSON itself"),
    (
        r"^lambda (create-function|publish-layer-version) --(zip-file|content)$|^(quicksight|rekognition|translate) \S+ --(asset-bundle-import-source-bytes|source-image-bytes|target-image-bytes|image-bytes|data-file|terminology-data|document|document-content)$",
        "fileb:// (refused) or the bytes themselves",
    ),
]


def unreviewed_candidates(arguments, readers):
    """`path --name` of each hand-written path-like argument that is neither a reader nor matched by NOT_READERS."""
    from awscli.arguments import CLIArgument

    rows = [re.compile(pattern) for pattern, _ in NOT_READERS]
    found = []
    for path, arg in arguments:
        # Model members (CLIArgument and its list and boolean kinds) are judged by their shape above.
        if isinstance(arg, CLIArgument) and type(arg).__module__ == "awscli.arguments" or not CANDIDATE_NAME.search(arg.name):
            continue
        text = "%s --%s" % (" ".join(path), arg.name)
        if arg.name not in readers.get(tuple(path), ()) and not any(row.search(text) for row in rows):
            found.append(text)
    return sorted(set(found))


def readers_at_every_path(driver):
    """READER_ARGUMENTS with each command's other paths (the same command class attached elsewhere) added."""
    readers = dict(READER_ARGUMENTS)
    for paths in same_command_paths(driver).values():
        names = sorted({name for path in paths for name in READER_ARGUMENTS.get(tuple(path), ())})
        for path in paths if names else []:
            readers[tuple(path)] = tuple(names)
    return readers


def reads_file(readers, path, arg):
    """Whether the CLI reads a local file at this argument's value."""
    if arg.name in readers.get(tuple(path), ()):
        return True
    model = getattr(arg, "argument_model", None)
    return model is not None and model.type_name == "blob" and bool(model.serialization.get("streaming") or getattr(model, "metadata", {}).get("streaming"))


def file_read_arguments(driver):
    """Rows {command, operand|option} for every argument that reads a local path."""
    rows = []
    readers = readers_at_every_path(driver)
    arguments = [(path, arg) for path, _, arg in each_argument(driver)]
    # A reviewed argument the CLI no longer has is a review to redo, never a row dropped silently.
    present = {(tuple(path), arg.name) for path, arg in arguments}
    missing = ["%s --%s" % (" ".join(path), name) for path, names in readers.items() for name in names if (path, name) not in present]
    if missing:
        sys.exit("reader arguments the installed CLI does not have: %s" % ", ".join(missing))
    unreviewed = unreviewed_candidates(arguments, readers)
    if unreviewed:
        sys.exit("hand-written arguments that may read a local path, not reviewed in aws_file_reads.py:\n  %s" % "\n  ".join(unreviewed))
    defaults = reviewed_defaults(driver)
    unreviewed_defaults = []
    for path, arg in arguments:
        if not reads_file(readers, path, arg):
            continue
        if getattr(arg, "positional_arg", False):
            rows.append({"command": list(path), "operand": arg.name})
            continue
        row = {"command": list(path), "option": "--" + arg.name}
        default = getattr(arg, "_default", None)
        if default is not None:
            if defaults.get((tuple(path), arg.name)) != default:
                unreviewed_defaults.append("%s --%s (default %r)" % (" ".join(path), arg.name, default))
            row["default_path"] = default
        rows.append(row)
    if unreviewed_defaults:
        sys.exit("reader options with a default not reviewed in DEFAULT_READS:\n  %s" % "\n  ".join(unreviewed_defaults))
    stale = ["%s --%s" % (" ".join(path), name) for (path, name) in defaults if not any(r["command"] == list(path) and r.get("option") == "--" + name and "default_path" in r for r in rows)]
    if stale:
        sys.exit("DEFAULT_READS rows the installed CLI no longer defaults: %s" % ", ".join(stale))
    return sorted(rows, key=lambda r: (r["command"], r.get("option", "")))


def reviewed_defaults(driver):
    """DEFAULT_READS at every path the CLI attaches each command to."""
    defaults = dict(DEFAULT_READS)
    for paths in same_command_paths(driver).values():
        for (path, name), default in DEFAULT_READS.items():
            if list(path) in [list(other) for other in paths]:
                defaults.update({(tuple(other), name): default for other in paths})
    return defaults


def main():
    isolate_environment()
    from awscli.clidriver import create_clidriver
    from aws_file_writes import yaml_rows

    rows = file_read_arguments(create_clidriver())
    sys.stdout.write("\n".join(yaml_rows(rows, "")) + "\n")
    sys.stderr.write("%d arguments read a local path\n" % len(rows))


if __name__ == "__main__":
    main()

"""The AWS CLI command options that do what a locked global option does.

Used by `aws-options.py`, which writes them into providers/aws/provider.yaml.
The broker owns `--endpoint-url` and `--region`; a few hand-written commands
(awscli/customizations) take an option of their own that sends the call's signed
requests to another endpoint (`emr create-default-roles --iam-endpoint`) or makes
the CLI itself call another region (`s3 cp --source-region`). This walks every
command of the installed CLI and keeps each option that the CLI handles itself
(a CustomArgument, never serialised into an API request) whose name says
endpoint, region or url. API parameters that name a region or endpoint are the
service's data (`ec2 copy-image --source-region` is sent to the pinned region) and
are not listed. The result is `argv.locked_command_options`.
"""

import re

NAME = re.compile(r"(^|-)(endpoint|region|url)$")

# Matched by name, reviewed, and left to the policy: the CLI sends nothing elsewhere.
NOT_LOCKED = {
    ("cloudfront", "sign", "url"): "the URL to sign; the CLI signs it locally with a key file and sends nothing",
    ("s3", "ls", "bucket-region"): "a ListBuckets filter (BucketRegion), sent to the pinned region",
}


def locked_command_options(driver):
    """Rows {command, options} for every CLI-side option that names an endpoint, region or url."""
    from awscli.arguments import CustomArgument
    from aws_url_parameters import each_argument

    found = {}
    for path, _prefix, arg in each_argument(driver):
        name = getattr(arg, "name", "")
        if not isinstance(arg, CustomArgument) or not NAME.search(name) or getattr(arg, "positional_arg", False):
            continue
        if tuple(path) + (name,) in NOT_LOCKED:
            continue
        found.setdefault(tuple(path), set()).add("--" + name)
    return [{"command": list(path), "options": sorted(options)} for path, options in sorted(found.items())]


def yaml_rows(rows, indent):
    return ["%s- {command: [%s], options: [%s]}" % (indent, ", ".join(r["command"]), ", ".join(r["options"])) for r in rows]

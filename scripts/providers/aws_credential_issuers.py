#!/usr/bin/env python3
"""List the AWS CLI commands that print a credential, from botocore's own models.

    python3 scripts/providers/aws_credential_issuers.py            # the aws CLI's python (see .ci/run)
    python3 scripts/providers/aws_credential_issuers.py --check    # exit 1 when the files differ
    python3 scripts/providers/aws_credential_issuers.py --services iam sso   # those services' candidate lines

A command whose output is a credential usable outside Torii (an access key, a session
token, a password, an OAuth token, a signed URL that opens a session) hands the agent
something that outlives the target's lease (docs/policy.md, "Credential issuers"). This
walks every operation of the installed CLI and lists each output member, however deep
and whether or not botocore marks it `sensitive`, whose name is one a credential goes by
(`issued_words` of the review), and each member botocore marks `sensitive` whose
`<service> <command> <path>` matches the review's `sensitive_match` (tokens, key material,
plain text, connection strings under other names: red team 11 F4). Each candidate takes the verdict of the first entry of
scripts/providers/aws-credential-issuers-reviewed.json whose `match` finds
`"<service> <command> <path>"`: `issues` or `not`; a candidate without one stops the
script. Hand-written CLI commands (`ecr get-login-password`, `eks get-token`) have no
model: the review's `custom` list names them, and each must exist in the CLI; each
is listed at every path the CLI attaches it to (`deploy register` is also
`cloudformation deploy register` and `ecs deploy register`, aws_command_tree.py).

Written: scripts/providers/aws-credential-issuers.txt (every candidate and its verdict)
and the generated block of `targeting.locked_commands` in providers/aws/provider.yaml
(one row per command with an `issues` candidate or a `custom` row). sts is left to the
aws_profile command floor, which refuses the whole service but three reads.
"""

import json
import os
import re
import sys

from aws_command_tree import each_command, same_command_paths
from aws_url_parameters import isolate_environment
from credential_issuers_common import HERE, rows, write_or_check

REVIEWED = os.path.join(HERE, "aws-credential-issuers-reviewed.json")


def issued_paths(shape, words, sensitive=None, command=""):
    """Paths of the output members named like a credential, sensitive ones included; and the
    members botocore marks sensitive whose `<command> <path>` `sensitive` matches (other names)."""
    found = []

    def walk(node, path, seen):
        if node is None or node.name in seen:
            return
        seen = seen | {node.name}
        leaf = re.split(r"[.\[\]{}]+", path.strip("[]{}."))[-1] if path else ""
        if node.type_name in ("string", "blob", "structure", "list") and words.match(leaf):
            found.append(path)
        elif sensitive and node.metadata.get("sensitive") and node.type_name in ("string", "blob") and sensitive.search("%s %s" % (command, path)):
            found.append(path)
        if node.type_name == "structure":
            for name, member in node.members.items():
                walk(member, path + "." + name if path else name, seen)
        elif node.type_name == "list":
            walk(node.member, path + "[]", seen)
        elif node.type_name == "map":
            walk(node.value, path + "{}", seen)

    walk(shape, "", frozenset())
    return found


def candidates(driver, reviewed, only=None):
    """(command, path) for every credential-named output member of every operation (of `only`'s services)."""
    from awscli.clidriver import ServiceCommand, ServiceOperation

    words = re.compile(reviewed["issued_words"], re.I)
    sensitive = re.compile(reviewed["sensitive_match"])
    rows = []
    for service, command in sorted(driver._get_command_table().items()):
        if not isinstance(command, ServiceCommand) or service in reviewed["skipped_services"] or (only and service not in only):
            continue
        for name, sub in sorted(command._get_command_table().items()):
            if isinstance(sub, ServiceOperation):
                command_name = "%s %s" % (service, name)
                rows.extend((command_name, path) for path in issued_paths(sub._operation_model.output_shape, words, sensitive, command_name))
    return sorted(set(rows))


def custom_commands(driver):
    """Every hand-written command of the CLI (sub-commands included), as `service command ...`."""
    from awscli.customizations.commands import BasicCommand

    return {" ".join(path) for path, command in each_command(driver) if isinstance(command, BasicCommand)}


def at_every_path(driver, commands):
    """The commands, each with every other path the CLI attaches its command class to (aws_command_tree.py)."""
    found = {}
    for paths in same_command_paths(driver).values():
        names = [" ".join(path) for path in paths]
        for name in names:
            found[name] = names
    return {other: command for command in commands for other in found.get(command, [command])}


def verdict(row, review):
    text = "%s %s" % row
    for pattern, entry in review:
        if pattern.search(text):
            return entry
    return None


def generate():
    isolate_environment()
    from awscli.clidriver import create_clidriver

    reviewed = json.load(open(REVIEWED))
    review = [(re.compile(entry["match"]), entry) for entry in reviewed["entries"]]
    driver = create_clidriver()
    found = candidates(driver, reviewed)
    unreviewed = ["%s %s" % row for row in found if verdict(row, review) is None]
    if unreviewed:
        sys.exit("no review entry in %s for:\n  %s" % (REVIEWED, "\n  ".join(unreviewed)))
    missing = [c["command"] for c in reviewed["custom"] if c["command"] not in custom_commands(driver)]
    if missing:
        sys.exit("custom commands the installed CLI does not have: %s" % ", ".join(missing))
    issuers = {}
    for row in found:
        entry = verdict(row, review)
        if entry["verdict"] == "issues":
            issuers.setdefault(row[0], entry["why"])
    why = {c["command"]: c["why"] for c in reviewed["custom"]}
    custom = at_every_path(driver, why)
    for path, command in custom.items():
        issuers[path] = why[command]
    listing = "".join("%s %s  # %s\n" % (row[0], row[1], verdict(row, review)["verdict"]) for row in found)
    listing += "".join("%s (custom)  # issues\n" % path for path in sorted(custom))
    header = (
        "# AWS CLI commands whose output may hold a credential: `<service> <command> <output path>  # verdict`,\n"
        "# generated by scripts/providers/aws_credential_issuers.py from the installed CLI's botocore models.\n"
    )
    return header + listing, rows(issuers)


def print_services(services):
    """The listing's candidate lines of these services only (a quick check of the listing against the CLI)."""
    isolate_environment()
    from awscli.clidriver import create_clidriver

    reviewed = json.load(open(REVIEWED))
    review = [(re.compile(entry["match"]), entry) for entry in reviewed["entries"]]
    for row in candidates(create_clidriver(), reviewed, set(services)):
        entry = verdict(row, review)
        sys.stdout.write("%s %s  # %s\n" % (row[0], row[1], entry["verdict"] if entry else "UNREVIEWED"))


def main():
    if sys.argv[1:2] == ["--services"]:
        return print_services(sys.argv[2:])
    listing, block = generate()
    write_or_check("aws_credential_issuers.py", "aws", "aws-credential-issuers.txt", listing, block, "--check" in sys.argv[1:])


if __name__ == "__main__":
    main()

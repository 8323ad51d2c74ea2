#!/usr/bin/env python3
"""List the az commands that write a local file at a default place, and write their `default_path` rows.

    /usr/bin/python3 scripts/providers/az_default_writes.py            # a python that imports azure.cli (about 30 s)
    /usr/bin/python3 scripts/providers/az_default_writes.py --check    # exit 1 when the listing differs
    /usr/bin/python3 scripts/providers/az_default_writes.py --markers FILE   # reuse (or save) az_command_code.py's findings

`az vm create --generate-ssh-keys` writes ~/.ssh/id_rsa, `az webapp up` writes
.azure/config in the working directory and `az webapp log download` writes
webapp_logs.zip there, with no argument naming the place. argv.file_writes rows keyed on an
argument (az_file_writes.py) do not see such a call, so a broad rule (`vm`, `webapp`) would
accept it; a `default_path` row holds it like any other file write (src/policy/file-writes.ts):
every call of the command, or every call giving `option`.

Candidates: every command whose own code (az_command_code.py) names a default place
(`expanduser`, `os.getcwd`, az's config dir), generates SSH keys or downloads a file
(`urlretrieve(url, name)` into the working directory), and every option of the
committed az-file-writes.txt `write` lines whose argument has a default value (az writes
there when the option is left out: `webapp log download --log-file` = webapp_logs.zip). Each
takes the first entry of scripts/providers/az-default-writes-reviewed.json whose `match`
finds `<command>` or `<command> <option>` (`writes`, with default_path, or `not`, with why);
a candidate without one stops the script. `extra` adds writes no marker shows.

Written: scripts/providers/az-default-writes.txt (`<command> [option] -> <default path>  # verdict`);
az-options.py turns the `writes` lines into `argv.file_writes` rows (yaml_rows below).
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LISTING = os.path.join(HERE, "az-default-writes.txt")
REVIEWED = os.path.join(HERE, "az-default-writes-reviewed.json")
FILE_WRITES = os.path.join(HERE, "az-file-writes.txt")
CANDIDATE_MARKERS = ("default-path", "ssh-keys", "download")


def written_options():
    """{command: [long options]} of the committed az-file-writes.txt `write` lines."""
    found = {}
    for line in open(FILE_WRITES).read().splitlines():
        if line.startswith("#") or not line.endswith("# write"):
            continue
        words = line.split("  # ")[0].split()
        at = next(i for i, w in enumerate(words) if w.startswith("-"))
        found.setdefault(" ".join(words[:at]), []).append(words[at])
    return found


def option_defaults(options):
    """{(command, option): default} of the given options whose argument has a default value, as az loads them."""
    from az_command_code import command_arguments, commands_loader

    loader = commands_loader()
    table = loader.command_table
    defaults = {}
    for name, longs in sorted(options.items()):
        # A module Debian's az cannot load: its defaults are reviewed by hand (extra).
        arguments = command_arguments(loader, name) if name in table else None
        if arguments is None:
            continue
        signature = _signature(table[name])
        for dest, argument in arguments.items():
            settings = argument.type.settings
            names = [o for o in settings.get("options_list") or [] if isinstance(o, str)]
            # A custom command's default is often only in its function's signature (`log_file='webapp_logs.zip'`).
            default = settings.get("default")
            if default is None and dest in signature:
                default = signature[dest]
            if default not in (None, False, "", []) and any(n in longs for n in names):
                defaults[(name, next(n for n in names if n in longs))] = str(default)
    return defaults


def _signature(command):
    """{parameter: default} of a custom command's function (empty for SDK and aaz commands)."""
    import inspect

    from az_command_code import _handler

    handler = _handler(command)
    try:
        parameters = inspect.signature(handler).parameters if handler is not None else {}
    except (TypeError, ValueError):
        return {}
    return {name: p.default for name, p in parameters.items() if p.default is not inspect.Parameter.empty}


def generate(markers, defaults):
    reviewed = json.load(open(REVIEWED))
    review = [(re.compile(entry["match"]), entry) for entry in reviewed["entries"]]
    candidates = sorted(name for name, found in markers["markers"].items() if any(k in found for k in CANDIDATE_MARKERS))
    keys = [(name, None) for name in candidates] + sorted(defaults)
    lines = {}
    unreviewed = []
    for name, option in keys:
        text = name if option is None else "%s %s" % (name, option)
        entry = next((e for pattern, e in review if pattern.search(text)), None)
        if entry is None:
            unreviewed.append(text + ("" if option is None else " (default %s)" % defaults[(name, option)]))
            continue
        if entry["verdict"] == "writes":
            where = entry.get("option")
            lines["%s%s -> %s" % (name, "" if where is None else " " + where, entry["default_path"])] = "writes"
        else:
            lines[text] = "not"
    if unreviewed:
        sys.exit("no review entry in %s for:\n  %s" % (REVIEWED, "\n  ".join(unreviewed)))
    missing = [extra["command"] for extra in reviewed["extra"] if extra["command"] not in markers["table"]]
    if missing:
        sys.exit("extra commands the installed az does not have: %s" % ", ".join(missing))
    for extra in reviewed["extra"]:
        lines["%s %s -> %s" % (extra["command"], extra["option"], extra["default_path"])] = "writes"
    head = (
        "# az commands that write a local file at a default place (writes: an argv.file_writes default_path row).\n"
        "# Generated by scripts/providers/az_default_writes.py from the installed az and az-default-writes-reviewed.json.\n"
    )
    return head + "".join("%s  # %s\n" % (line, lines[line]) for line in sorted(lines))


def yaml_rows(indent="    "):
    """argv.file_writes rows from the committed listing's `writes` lines (az-options.py calls this)."""
    rows = []
    for line in open(LISTING).read().splitlines():
        if line.startswith("#") or not line.endswith("# writes"):
            continue
        left, path = line.split("  # ")[0].split(" -> ")
        words = left.split()
        option = next((w for w in words if w.startswith("--")), None)
        command = ", ".join(w for w in words if not w.startswith("--"))
        rows.append("%s- {command: [%s]%s, default_path: %s}" % (indent, command, "" if option is None else ", option: %s" % option, json.dumps(path)))
    return rows


def main():
    from az_command_code import cached_markers, generator_options, write_or_check

    opts = generator_options(__doc__.split("\n")[0]).parse_args()
    listing = generate(cached_markers(opts.markers), option_defaults(written_options()))
    summary = "%d candidates, %d writes" % (listing.count("\n") - 2, listing.count("# writes"))
    write_or_check([(LISTING, listing)], "az_default_writes.py", opts.check, summary)


if __name__ == "__main__":
    main()

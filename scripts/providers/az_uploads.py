#!/usr/bin/env python3
"""List the az arguments that upload a local file or directory, with their reviewed verdict.

    /usr/bin/python3 scripts/providers/az_uploads.py            # a python that imports azure.cli (about 1 min)
    /usr/bin/python3 scripts/providers/az_uploads.py --check    # exit 1 when the listing differs
    /usr/bin/python3 scripts/providers/az_uploads.py --markers FILE   # reuse (or save) az_command_code.py's findings

`az acr build -r R ~` sends the home directory (with ~/.azure and ~/.kube) to a registry
build, `az storage blob upload-batch -s ~/.azure -d c` copies az's token cache to a container
and `az webapp up` zips the working directory into a web app. az_file_reads.py finds the
arguments whose type opens a path; an upload's source is a plain string the command's own
code walks, so it needs its own list, held like every file read (src/policy/file-reads.ts).

Candidates, from the installed command table (arguments loaded as az loads them):
- every argument of a command whose verb sends something (`upload*`, `sync`, `deploy`,
  `config-zip`, `build`, `run`, `up`, `publish`, `import`, `copy`, `invoke`, `push`, ...:
  `verb` of the review) whose name may name a local path (`option` of the review), and
  every positional argument of such a command (`acr build SOURCE_LOCATION`);
- every command whose own code (az_command_code.py) walks a directory or makes an archive,
  as a whole-call row (`webapp up`: OPERAND:working-directory).
`extra` adds reads no candidate shows (`bot publish` without --code-dir uploads the working
directory). Each candidate takes the verdict of the first entry of scripts/providers/az-uploads-reviewed.json whose
`match` finds `<command> <argument>` (`reads` or `not`, with why); a candidate without one
stops the script.

Written: scripts/providers/az-uploads.txt (`<command> <argument>  # verdict`); az_file_reads.py
adds its `reads` lines to `argv.file_reads` (listing_lines below).
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LISTING = os.path.join(HERE, "az-uploads.txt")
REVIEWED = os.path.join(HERE, "az-uploads-reviewed.json")
SHORT = re.compile(r"^-[A-Za-z0-9]$")


def load_arguments(review):
    """[(command, [option names] or ["OPERAND:<dest>"])] of every command whose verb sends something."""
    from az_command_code import commands_loader

    loader = commands_loader()
    found = []
    for name in sorted(loader.command_table):
        if not review["verb"].search(name.split()[-1]):
            continue
        loader.command_name = name
        for module_loader in loader.cmd_to_loader_map.get(name, []):
            module_loader.skip_applicability = True
        try:
            loader.load_arguments(name)
        except Exception:  # noqa: BLE001 - reported: an unloadable command is reviewed by name
            found.append((name, ["UNLOADABLE"]))
            continue
        for dest, argument in loader.command_table[name].arguments.items():
            names = [o for o in argument.type.settings.get("options_list") or [] if isinstance(o, str)]
            if argument.type.settings.get("help") == "==SUPPRESS==" and not names:
                continue
            found.append((name, names or ["OPERAND:" + dest.replace("_", "-")]))
    return found


def candidates(arguments, markers, review):
    """Sorted candidate lines `command --long [-s]`, `command OPERAND:name` or `command OPERAND:working-directory`."""
    lines = set()
    for command, names in arguments:
        if names == ["UNLOADABLE"] or names[0].startswith("OPERAND:"):
            lines.add("%s %s" % (command, names[0]))
            continue
        longs = [n for n in names if n.startswith("--")]
        if longs and any(review["option"].search(n) for n in longs):
            shorts = [n for n in names if SHORT.match(n)]
            lines.add(" ".join([command, longs[0]] + shorts[:1]))
    for command, found in markers["markers"].items():
        if "walks-directory" in found or "zip" in found:
            lines.add("%s OPERAND:working-directory" % command)
    return sorted(lines)


def load_review():
    review = json.load(open(REVIEWED))
    review["verb"] = re.compile(review["verb"])
    review["option"] = re.compile(review["option"])
    review["entries"] = [(re.compile(e["match"]), e) for e in review["entries"]]
    return review


def generate(arguments, markers, review):
    # Entries match `<command> <argument>`: the short form a line ends with is not part of it.
    verdicts = {
        line: next((e["verdict"] for pattern, e in review["entries"] if pattern.search(re.sub(r" -[A-Za-z0-9]$", "", line))), None)
        for line in candidates(arguments, markers, review)
    }
    unreviewed = sorted(line for line, verdict in verdicts.items() if verdict is None)
    if unreviewed:
        sys.exit("no review entry in %s for:\n  %s" % (REVIEWED, "\n  ".join(unreviewed)))
    for extra in review["extra"]:
        verdicts[extra["line"]] = "reads"
    head = (
        "# az arguments that may upload a local file or directory, with their reviewed verdict (reads: argv.file_reads).\n"
        "# Generated by scripts/providers/az_uploads.py from the installed az and az-uploads-reviewed.json.\n"
    )
    return head + "".join("%s  # %s\n" % (line, verdict) for line, verdict in sorted(verdicts.items()))


def listing_lines():
    """The committed listing's `reads` lines, as az_file_reads.py's listing lines (`command --long [-s]` / `command OPERAND:name`)."""
    return [line.split("  # ")[0] for line in open(LISTING).read().splitlines() if line.endswith("  # reads")]


def main():
    from az_command_code import cached_markers

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--markers", metavar="FILE", help="az_command_code.py's findings: read when the file exists, else computed and saved there")
    ap.add_argument("--arguments", metavar="FILE", help="the loaded arguments: read when the file exists, else loaded and saved there")
    opts = ap.parse_args()
    review = load_review()
    markers = cached_markers(opts.markers)
    if opts.arguments and os.path.exists(opts.arguments):
        arguments = json.load(open(opts.arguments))
    else:
        arguments = load_arguments(review)
        if opts.arguments:
            json.dump(arguments, open(opts.arguments, "w"))
    listing = generate(arguments, markers, review)
    if opts.check:
        if not os.path.exists(LISTING) or open(LISTING).read() != listing:
            sys.exit("stale: %s; run scripts/providers/az_uploads.py" % LISTING)
        return
    open(LISTING, "w").write(listing)
    sys.stderr.write("%d candidates, %d reads\n" % (listing.count("\n") - 2, listing.count("# reads")))


if __name__ == "__main__":
    main()

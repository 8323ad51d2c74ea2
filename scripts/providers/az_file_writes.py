#!/usr/bin/env python3
"""List the az arguments that may name a local file, with their reviewed verdict.

    /usr/bin/python3 scripts/providers/az_file_writes.py            # rewrite az-file-writes.txt (about 5 min)
    /usr/bin/python3 scripts/providers/az_file_writes.py --check    # compare with the installed az; exit 1 on a difference

`az storage blob download -f ~/.azure/config`, `network dns zone export -f ~/.bashrc`,
`aks install-cli --install-location` write wherever the caller says; the next az
(or kubectl) call, or the next shell, reads what was planted.

Run with the Python that az itself runs (Debian: /usr/bin/python3). It loads every
command module's command table and arguments, as az does for `az --help` of each
command, with a scratch AZURE_CONFIG_DIR (no extension is loaded). A candidate is an
argument whose name may name a local path on a command whose verb writes
(`candidate_option` and `write_verb` in the review: `dls fs download --destination-path`),
a name that reads as an output path on any command (`output_option`), or an argument
whose help text speaks of saving a file (`candidate_help`). Each candidate takes the
verdict of the first matching row of scripts/providers/az-file-writes-reviewed.json
(`write` or `read`, with why); a candidate no row matches stops the script.

A command whose arguments do not load (Debian's azure-cli 2.45 fails some modules
against its SDK packages) stops the script unless its module is listed in the review's
`unloadable` with why; the arguments of such a command are then read from the module's
source (`argument_context` scopes of its _params*.py, the `options` of its aaz command
class) and go through the same candidates. A listed module's command whose verb writes
yet has no candidate in the source needs an `unloadable_commands` row. `extra` adds
writers no loaded or parsed table shows (preview storage commands).

Written: scripts/providers/az-file-writes.txt, every candidate with its verdict
(`command words --long [--alias] [-s]  # verdict`); az-options.py turns the `write`
lines into `argv.file_writes`.
"""

import argparse
import ast
import importlib.util
import json
import logging
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LISTING = os.path.join(HERE, "az-file-writes.txt")
REVIEWED = os.path.join(HERE, "az-file-writes-reviewed.json")


def arguments():
    """([(command, [option names], help)] of every loadable command, [(command, module)] of the others)."""
    os.environ["AZURE_CONFIG_DIR"] = tempfile.mkdtemp(prefix="az-file-writes-")
    logging.disable(logging.CRITICAL)
    from azure.cli.core import get_default_cli
    from azure.cli.core.commands.arm import register_global_subscription_argument, register_ids_argument

    cli = get_default_cli()
    register_global_subscription_argument(cli)
    register_ids_argument(cli)
    invocation = cli.invocation_cls(cli_ctx=cli, commands_loader_cls=cli.commands_loader_cls, parser_cls=cli.parser_cls, help_cls=cli.help_cls)
    cli.invocation = invocation
    loader = invocation.commands_loader
    loader.skip_applicability = True
    loader.load_command_table(None)
    found, failed = [], []
    for name in sorted(loader.command_table):
        loader.command_name = name
        module_loaders = loader.cmd_to_loader_map.get(name, [])
        for module_loader in module_loaders:
            module_loader.skip_applicability = True
        try:
            loader.load_arguments(name)
        except Exception:  # read from the module's source when the review lists it as unloadable
            failed += [(name, type(m).__module__) for m in module_loaders]
            continue
        for argument in loader.command_table[name].arguments.values():
            settings = argument.type.settings
            names = [o if isinstance(o, str) else str(getattr(o, "target", o)) for o in settings.get("options_list") or []]
            found.append((name, names, str(settings.get("help") or "")))
    sys.stderr.write("%d commands, %d whose arguments did not load\n" % (len(loader.command_table), len(failed)))
    return found, failed


def _strings(node):
    """The string constants of a list or tuple literal, else None."""
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    return None


def _keyword(call, name):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _help(call):
    node = _keyword(call, "help")
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def source_arguments(module, commands):
    """[(scope regex, [option names], help)] written in a command module's source: every
    `c.argument(dest, options_list=..., help=...)` under `self.argument_context(scope)` of
    its _params*.py, and every `options=[...]` argument of the aaz command classes of these
    commands (scope: the command the file path names). Vendored SDKs and tests are skipped."""
    root = os.path.dirname(importlib.util.find_spec(module).origin)
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [f for f in subfolders if f not in ("azure_stack", "vendored_sdks", "tests", "__pycache__")]
        for file in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, file)
            parts = os.path.relpath(path, root).split(os.sep)
            if "aaz" in parts and "latest" in parts:
                command = " ".join(parts[parts.index("latest") + 1 : -1] + [file[1:-3]])
                if command in commands:
                    for call in (n for n in ast.walk(ast.parse(open(path).read())) if isinstance(n, ast.Call)):
                        names = _strings(_keyword(call, "options"))
                        if names:
                            found.append((re.escape(command), names, _help(call)))
            elif file.startswith("_params"):
                _walk_params(ast.parse(open(path).read()), None, found)
    return found


def _walk_params(node, scope, found, loops=None):
    """Collects the arguments under each argument_context; `loops` holds the names a
    `for scope in ['backup', 'restore']:` binds, so a formatted scope stays exact."""
    loops = loops or {}
    for child in ast.iter_child_nodes(node):
        inner, bound = scope, loops
        if isinstance(child, ast.For) and isinstance(child.target, ast.Name) and _strings(child.iter):
            bound = dict(loops, **{child.target.id: _strings(child.iter)})
        elif isinstance(child, ast.With):
            for item in child.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "argument_context":
                    inner = _scope(call.args[0] if call.args else None, loops)
        elif isinstance(child, ast.Call) and getattr(child.func, "attr", "") in ("argument", "extra") and child.args:
            dest = child.args[0]
            if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
                names = _strings(_keyword(child, "options_list")) or ["--" + dest.value.replace("_", "-")]
                found.append((scope, names, _help(child)))
        _walk_params(child, inner, found, bound)


def _field(node, loops):
    """A formatted field as a regex: the alternatives of a loop name, else any words."""
    if isinstance(node, ast.Name) and node.id in loops:
        return "(%s)" % "|".join(re.escape(v) for v in loops[node.id])
    return ".+"


def _scope(node, loops):
    """A scope as a regex on the command name: a constant as it is, `'keyvault secret {}'.format(x)`
    and f-strings with the loop's values (or any words) in place of the field; None when not a string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.escape(node.value)
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "format" and isinstance(node.func.value, ast.Constant):
        parts = re.split(r"\{[^}]*\}", node.func.value.value)
        fields = [_field(arg, loops) for arg in node.args] + [".+"] * len(parts)
        return "".join(re.escape(part) + (fields[i] if i < len(parts) - 1 else "") for i, part in enumerate(parts))
    if isinstance(node, ast.JoinedStr):
        return "".join(re.escape(v.value) if isinstance(v, ast.Constant) else _field(v.value, loops) for v in node.values)
    return None


def unloadable_arguments(failed, review):
    """[(command, [option names], help)] of the failed commands, read from their modules'
    source. Exits naming a module the review does not list as unloadable."""
    modules = sorted({m for _, m in failed})
    unlisted = [m for m in modules if m.split(".")[-1] not in review["unloadable"]]
    if unlisted:
        sys.exit("command modules whose arguments did not load, not in %s `unloadable`:\n  %s" % (REVIEWED, "\n  ".join(unlisted)))
    found = []
    for module in modules:
        commands = sorted({c for c, m in failed if m == module})
        written = source_arguments(module, commands)
        for command in commands:
            writes = review["write_verb"].search(command.split()[-1])
            for scope, names, help_text in written:
                # A scope not written as a string may be any command of the module: kept for writing verbs only.
                if (scope is None and writes) or (scope is not None and re.match("(%s)( |$)" % scope, command)):
                    found.append((command, names, help_text))
    return found


def load_review():
    review = json.load(open(REVIEWED))
    review["rows"] = [dict(row, command=re.compile(row.get("command", "")), option=re.compile(row["option"])) for row in review["rows"]]
    for key in ("candidate_option", "output_option", "candidate_help", "write_verb"):
        review[key] = re.compile(review[key], re.I if key == "candidate_help" else 0)
    return review


def is_candidate(command, longs, help_text, review):
    """True when the argument may name a local path the command writes."""
    if any(review["output_option"].search(n) for n in longs) or review["candidate_help"].search(help_text):
        return True
    return bool(review["write_verb"].search(command.split()[-1])) and any(review["candidate_option"].search(n) for n in longs)


def candidates(found, review):
    """{line: verdict|None} for every candidate argument (`command --long [--alias] [-s]`)."""
    lines = {}
    for command, names, help_text in found:
        longs = [n for n in names if n.startswith("--")]
        if not longs or not is_candidate(command, longs, help_text, review):
            continue
        row = next((r for r in review["rows"] if r["command"].search(command) and any(r["option"].search(n) for n in longs)), None)
        shorts = [n for n in names if re.fullmatch(r"-[A-Za-z0-9]", n)]
        line = " ".join([command] + longs + shorts)
        if lines.get(line) != "write":
            lines[line] = row and row["verdict"]
    for line in review["extra"]:
        lines[line] = "write"
    return lines


def unreviewed_commands(failed, found, review):
    """Failed commands whose verb writes, with no candidate in their source and no `unloadable_commands` row."""
    covered = {command for command, names, help_text in found if is_candidate(command, [n for n in names if n.startswith("--")], help_text, review)}
    rows = [re.compile(r["command"]) for r in review["unloadable_commands"]]
    return sorted({c for c, _ in failed if review["write_verb"].search(c.split()[-1]) and c not in covered and not any(r.search(c) for r in rows)})


def generate(found, failed):
    """{line: verdict}; exits naming what the review does not cover."""
    review = load_review()
    parsed = unloadable_arguments(failed, review)
    lines = candidates(found + parsed, review)
    unreviewed = sorted(line for line, verdict in lines.items() if verdict is None)
    if unreviewed:
        sys.exit("no review row in %s for:\n  %s" % (REVIEWED, "\n  ".join(unreviewed)))
    uncovered = unreviewed_commands(failed, parsed, review)
    if uncovered:
        sys.exit("commands that did not load, whose verb writes, with no candidate in their source and no `unloadable_commands` row:\n  %s" % "\n  ".join(uncovered))
    return lines


def listing_text(lines):
    head = (
        "# az arguments that may name a local file, with their reviewed verdict (write: argv.file_writes).\n"
        "# Generated by scripts/providers/az_file_writes.py from the installed az and\n"
        "# scripts/providers/az-file-writes-reviewed.json.\n"
    )
    return head + "".join("%s  # %s\n" % (line, lines[line]) for line in sorted(lines))


def yaml_rows(indent="    "):
    """argv.file_writes rows from the committed listing's `write` lines (az-options.py calls
    this): one row per long name (an alias is not a prefix of the other name), the short form
    on the first."""
    rows = []
    for line in open(LISTING).read().splitlines():
        if not line or line.startswith("#"):
            continue
        line, verdict = line.split("  # ")
        if verdict != "write":
            continue
        words = line.split()
        at = next(i for i, w in enumerate(words) if w.startswith("-"))
        command = ", ".join(words[:at])
        longs = [w for w in words[at:] if w.startswith("--")]
        shorts = [w for w in words[at:] if not w.startswith("--")]
        for i, option in enumerate(longs):
            short = ", short: %s" % shorts[0] if i == 0 and shorts else ""
            rows.append("%s- {command: [%s], option: %s%s}" % (indent, command, option, short))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the committed listing differs from the installed az's")
    ap.add_argument("--save-arguments", metavar="FILE", help="also write the loaded arguments there (JSON), to review without reloading az")
    ap.add_argument("--arguments", metavar="FILE", help="read the arguments saved by --save-arguments instead of loading az")
    ap.add_argument("--listing", metavar="FILE", default=LISTING, help="the listing to write or check (default: the committed one)")
    opts = ap.parse_args()
    if opts.arguments:
        found, failed = json.load(open(opts.arguments))
    else:
        found, failed = arguments()
    if opts.save_arguments:
        json.dump([found, failed], open(opts.save_arguments, "w"))
    lines = generate(found, [tuple(f) for f in failed])
    text = listing_text(lines)
    if opts.check:
        if open(opts.listing).read() != text:
            sys.exit("%s differs from the installed az: run %s and review" % (opts.listing, sys.argv[0]))
        return
    open(opts.listing, "w").write(text)
    sys.stderr.write("%d candidates, %d write\n" % (len(lines), sum(v == "write" for v in lines.values())))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""List the az arguments that read a local file named by a bare path (no `@`).

    /usr/bin/python3 scripts/providers/az_file_reads.py            # rewrite az-file-reads.txt and provider.yaml's argv.file_reads
    /usr/bin/python3 scripts/providers/az_file_reads.py --check    # compare with the installed az; exit 1 on a difference
    /usr/bin/python3 scripts/providers/az_file_reads.py --root DIR # read command modules under DIR (tests: saved inputs)

azure-cli loads a value from a file when it names an existing path, `~` expanded,
with no marker: every AAZ compound argument (AAZObjectArg, AAZDictArg, AAZListArg,
AAZFreeFormDictArg: core/aaz/_arg_action.py `_decode_value`, `decode_str`), also
inside shorthand (`key=./f.json`), and every classic argument whose type reads a
path (`validate_file_or_dict`, `file_type` and the module types below). az echoes
what it loaded in its errors, and sends it to Azure otherwise
(`--tags ~/.azure/msal_token_cache.json`).

Read statically from the installed command modules' source (no az start-up):
the `options=[...]` of each AAZ compound argument class in `aaz/latest/<words>/_<verb>.py`
(command: the file's path), and each `c.argument(dest, options_list=..., type=T)`
of a `_params*.py` with T in READ_TYPES under `with self.argument_context(scope)`
(command: the scope's leading constant words, which covers every command under
it, as argument_context does). Written: scripts/providers/az-file-reads.txt and the
`file_reads:` block of providers/az/provider.yaml (src/policy/file-reads.ts).
"""

import argparse
import ast
import os
import re
import sys

from az_file_writes import _keyword, _strings  # the same AST readers as the write generator
from file_reads_yaml import splice, yaml_rows

HERE = os.path.dirname(os.path.abspath(__file__))
LISTING = os.path.join(HERE, "az-file-reads.txt")
PROVIDER = os.path.join(HERE, "..", "..", "providers", "az", "provider.yaml")
MODULES = "/usr/lib/python3/dist-packages/azure/cli/command_modules"

COMMENT = ["Arguments az reads from a bare existing path (no @): held like file writes", "(scripts/providers/az_file_reads.py)."]
AAZ_COMPOUND = {"AAZObjectArg", "AAZDictArg", "AAZListArg", "AAZFreeFormDictArg"}
# Classic argument types that open the value as a path (file_type: core/commands/parameters.py).
READ_TYPES = {
    "validate_file_or_dict",
    "file_type",
    "definition_file_arg_type",
    "bicep_file_type",
    "deployment_template_file_type",
    "ui_form_definition_file_type",
    "ib_file_customizer_type",
    "extended_json_format_type",
}
WORD = re.compile(r"^[a-z0-9][a-z0-9-]*$")
LONG = re.compile(r"^--[A-Za-z0-9][A-Za-z0-9._-]*$")
SHORT = re.compile(r"^-[A-Za-z0-9]$")


def _name(node):
    return getattr(node, "id", None) or getattr(node, "attr", None)


def aaz_rows(root):
    """(command words, option names) of every AAZ compound argument with options."""
    rows = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(f for f in subfolders if f not in ("tests", "vendored_sdks", "__pycache__"))
        parts = os.path.relpath(folder, root).split(os.sep)
        if "aaz" not in parts or "latest" not in parts:
            continue
        for file in sorted(f for f in files if f.startswith("_") and f.endswith(".py") and f != "__init__.py" and f != "__cmd_group.py"):
            # Folder and file names spell command words with `_` for `-` (log_analytics/query_pack/_search.py).
            command = [w.replace("_", "-") for w in parts[parts.index("latest") + 1 :] + [file[1:-3]]]
            tree = ast.parse(open(os.path.join(folder, file)).read())
            for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n.func) in AAZ_COMPOUND):
                names = [n for n in (_strings(_keyword(call, "options")) or []) if n.startswith("-")]
                if names:
                    rows.append((command, names))
    return rows


def _scope_words(node):
    """The leading constant command words of an argument_context scope ([] for the root)."""
    text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
    if text is None and isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "format" and isinstance(node.func.value, ast.Constant):
        text = node.func.value.value.split("{")[0]
    if text is None and isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        text = node.values[0].value
    if text is None:
        return None
    words = text.split()
    if text and not text.endswith(" ") and not isinstance(node, ast.Constant) and words:
        words = words[:-1]  # a field glued to the last word: that word is not whole
    return [w for w in words if WORD.match(w)] if all(WORD.match(w) for w in words) else None


def _reads(call):
    """Whether an argument (or CLIArgumentType) call reads a path: a READ_TYPES type, or a files/directories completer."""
    completer = _keyword(call, "completer")
    completer = _name(completer.func) if isinstance(completer, ast.Call) else _name(completer)
    return _name(_keyword(call, "type")) in READ_TYPES or completer in ("FilesCompleter", "DirectoriesCompleter")


def _argument_types(tree):
    """{name: (reads, options_list)} of every `name = CLIArgumentType(...)` in a module."""
    types = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _name(node.value.func) == "CLIArgumentType":
            for target in node.targets:
                if isinstance(target, ast.Name):
                    types[target.id] = (_reads(node.value), _strings(_keyword(node.value, "options_list")))
    return types


def params_rows(root):
    """(command words, option names) of every classic argument that reads a path: a READ_TYPES
    type or a files completer, its own or its `arg_type`'s (a CLIArgumentType of the same module)."""
    rows = []
    types = {}

    def walk(node, scopes, loops):
        for child in ast.iter_child_nodes(node):
            inner, bound = scopes, loops
            if isinstance(child, ast.For) and isinstance(child.target, ast.Name) and _strings(child.iter):
                bound = dict(loops, **{child.target.id: _strings(child.iter)})
            elif isinstance(child, ast.With):
                for item in child.items:
                    call = item.context_expr
                    if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "argument_context":
                        arg = call.args[0] if call.args else None
                        # `for scope in ['deployment group create', ...]: with self.argument_context(scope)`: each value.
                        if isinstance(arg, ast.Name) and arg.id in loops:
                            inner = [_scope_words(ast.Constant(value)) for value in loops[arg.id]]
                        else:
                            inner = [_scope_words(arg)]
            elif isinstance(child, ast.Call) and getattr(child.func, "attr", "") in ("argument", "extra") and child.args:
                dest = child.args[0]
                reads, type_names = types.get(_name(_keyword(child, "arg_type")), (False, None))
                if (reads or _reads(child)) and isinstance(dest, ast.Constant) and isinstance(dest.value, str):
                    names = _strings(_keyword(child, "options_list")) or type_names or ["--" + dest.value.replace("_", "-")]
                    # A scope not read here is left out (the listing shows which); see the module docstring.
                    rows.extend((scope, names) for scope in scopes if scope)
            walk(child, inner, bound)

    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(f for f in subfolders if f not in ("tests", "vendored_sdks", "azure_stack", "__pycache__", "aaz"))
        for file in sorted(f for f in files if f.startswith("_params") and f.endswith(".py")):
            tree = ast.parse(open(os.path.join(folder, file)).read())
            types = _argument_types(tree)
            walk(tree, [None], {})
    return rows


def lines(root):
    """Sorted listing lines `command words --long [-s]`, one per option."""
    out = set()
    for command, names in aaz_rows(root) + params_rows(root):
        if not command:
            continue  # a root scope would hold every az call: none in the installed modules (the --check diff shows one)
        longs = [n for n in names if LONG.match(n)]
        shorts = [n for n in names if SHORT.match(n)]
        for i, long in enumerate(longs):
            out.add(" ".join(command + [long] + (shorts[:1] if i == 0 else [])))
    return sorted(out)


def provider_lines(listing):
    """The `file_reads:` rows' listing lines: this script's, with the uploads of az_uploads.py's committed listing."""
    from az_uploads import listing_lines as upload_lines

    return sorted(set(listing) | set(upload_lines()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--root", default=MODULES)
    parser.add_argument("--print", action="store_true", help="print the listing instead of writing files")
    args = parser.parse_args()
    listing = lines(args.root)
    text = "".join(line + "\n" for line in listing)
    if args.print:
        sys.stdout.write(text)
        return
    if args.check:
        if open(LISTING).read() != text:
            sys.exit("%s differs from the installed az; rerun without --check" % LISTING)
        return
    open(LISTING, "w").write(text)
    provider = open(PROVIDER).read()
    open(PROVIDER, "w").write(splice(provider, COMMENT, yaml_rows(provider_lines(listing))))
    sys.stderr.write("%d arguments read a local path\n" % len(listing))


if __name__ == "__main__":
    main()

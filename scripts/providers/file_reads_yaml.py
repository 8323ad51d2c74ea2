"""The `argv.file_reads` block of a provider.yaml, written by the az and gcloud generators."""

import json
import re

SHORT = re.compile(r"^-[A-Za-z0-9]$")


def yaml_rows(listing):
    """YAML flow rows from listing lines `command words --long [-s]` or `command words OPERAND:name`."""
    rows = []
    for line in listing:
        words = line.split()
        command = [w for w in words if not w.startswith(("-", "OPERAND:", "DEFAULT:"))]
        operand = next((w[len("OPERAND:") :] for w in words if w.startswith("OPERAND:")), None)
        if operand is not None:
            rows.append("    - {command: [%s], operand: %s}" % (", ".join(command), operand))
            continue
        long = next(w for w in words if w.startswith("--"))
        short = next((w for w in words if SHORT.match(w)), None)
        # `DEFAULT:path`: what the flag reads when left out (a default_path row holds every call).
        default = next((w[len("DEFAULT:") :] for w in words if w.startswith("DEFAULT:")), None)
        where = ("" if short is None else ", short: %s" % short) + ("" if default is None else ", default_path: %s" % json.dumps(default))
        rows.append("    - {command: [%s], option: %s%s}" % (", ".join(command), long, where))
    return rows


def splice(text, comment, rows):
    """provider.yaml with its `file_reads:` block (led by `comment` lines) replaced, or added before `file_writes:`."""
    head = "".join("  # %s\n" % line for line in comment)
    block = head + "  file_reads:\n" + "\n".join(rows) + "\n"
    pattern = re.compile(re.escape(head) + r"  file_reads:\n(?:    - .*\n)*")
    if pattern.search(text):
        return pattern.sub(lambda _: block, text, count=1)
    return text.replace("  file_writes:\n", block + "  file_writes:\n", 1) if "  # Arguments that write" not in text else text.replace(
        "  # Arguments that write", block + "  # Arguments that write", 1
    )

"""Release-track folding of gcloud's generated YAML rows (src/config/release-tracks.ts).

gcloud has one command tree per release track (`gcloud alpha ...`, `gcloud beta ...`,
`gcloud preview ...`, and GA without a track word), so most generated rows came once per
track. `fold_rows` writes such a set as one row naming its path without the track word and
`tracks: [ga, alpha, ...]`; the loader expands it back into the same rows, one per track.
"""

import re

TRACKS = ("alpha", "beta", "preview")
ORDER = ("ga",) + TRACKS
ROW = re.compile(r"^(\s*- \{command: \[)([^\]]*)\](.*)\}$")


def fold_rows(rows):
    """YAML flow rows `- {command: [...], ...}` with the rows that differ only in their track merged.

    A path in one track only keeps its row as it was; the rows come sorted by path without
    the track word, so a command's tracks stand together, and a command's rows keep the order
    the generators give them (options before operands, by name): expanded, each track's rows
    of one command come in the order they came before folding.
    """
    groups = {}
    for row in rows:
        match = ROW.match(row)
        if match is None:
            raise SystemExit("release_tracks: not a command row: %s" % row)
        lead, words, rest = match.group(1), match.group(2).split(", "), match.group(3)
        track = words[0] if words[0] in TRACKS else "ga"
        bare = tuple(words[1:] if track != "ga" else words)
        groups.setdefault((bare, rest, lead), []).append(track)
    out = []
    for (bare, rest, lead), tracks in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1].startswith(", operand:"), item[0][1])):
        if len(tracks) != len(set(tracks)):
            raise SystemExit("release_tracks: a row is listed twice: %s%s" % (" ".join(bare), rest))
        if len(tracks) == 1:
            path = bare if tracks[0] == "ga" else (tracks[0],) + bare
            out.append("%s%s]%s}" % (lead, ", ".join(path), rest))
        else:
            out.append("%s%s]%s, tracks: [%s]}" % (lead, ", ".join(bare), rest, ", ".join(t for t in ORDER if t in tracks)))
    return out


def unfold_rows(rows):
    """The rows of `fold_rows`' output one per track again (for tests and checks)."""
    out = []
    for row in rows:
        tracks = re.search(r", tracks: \[([^\]]*)\]\}$", row)
        if tracks is None:
            out.append(row)
            continue
        match = ROW.match(row[: tracks.start()] + "}")
        for track in tracks.group(1).split(", "):
            words = match.group(2) if track == "ga" else track + ", " + match.group(2)
            out.append("%s%s]%s}" % (match.group(1), words, match.group(3)))
    return out

/**
 * scripts/providers/release_tracks.py, which the gcloud generators use to write
 * one row per command with its release tracks instead of one row per track.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SCRIPTS = fileURLToPath(new URL("../../../scripts/providers/", import.meta.url));
const PYTHON = "/usr/bin/python3";

/** Runs `code` with release_tracks importable; stdout lines and the exit status. */
function python(code: string): { status: number | null; lines: string[]; stderr: string } {
  const run = spawnSync(
    PYTHON,
    ["-c", `import sys\nsys.path.insert(0, ${JSON.stringify(SCRIPTS)})\nfrom release_tracks import fold_rows, unfold_rows\n${code}`],
    {
      encoding: "utf8",
    },
  );
  return { status: run.status, lines: run.stdout.split("\n").filter(Boolean), stderr: run.stderr };
}

const ROWS = [
  "    - {command: [alpha, compute, scp], option: --ssh-key-file}",
  "    - {command: [alpha, compute, scp], operand: destination}",
  "    - {command: [alpha, only], option: --out}",
  "    - {command: [beta, compute, scp], operand: destination}",
  "    - {command: [compute, scp], option: --ssh-key-file}",
  "    - {command: [compute, scp], operand: destination}",
];

describe.skipIf(!existsSync(PYTHON))("release_tracks.py", () => {
  it("folds rows that differ only in their track; a command's options stay before its operands; a one-track row stays as it was", () => {
    const run = python(`print("\\n".join(fold_rows(${JSON.stringify(ROWS)})))`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.lines).toEqual([
      "    - {command: [compute, scp], option: --ssh-key-file, tracks: [ga, alpha]}",
      "    - {command: [compute, scp], operand: destination, tracks: [ga, alpha, beta]}",
      "    - {command: [alpha, only], option: --out}",
    ]);
  });

  it("unfolds to the same rows", () => {
    const run = python(`print("\\n".join(sorted(unfold_rows(fold_rows(${JSON.stringify(ROWS)})))))`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.lines).toEqual([...ROWS].sort());
  });

  it("stops on a row listed twice and on a line that is no command row", () => {
    expect(python(`fold_rows(${JSON.stringify([ROWS[0], ROWS[0]])})`).stderr).toContain("a row is listed twice");
    expect(python(`fold_rows(["    - {name: --x}"])`).stderr).toContain("not a command row");
  });
});

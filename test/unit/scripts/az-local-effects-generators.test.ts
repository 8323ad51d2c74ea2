/**
 * The az generators that read each command's own code (scripts/providers/az_command_code.py)
 * fail closed: az_local_programs.py stops on a command that starts a program with no review
 * entry, az_uploads.py on an upload-shaped argument with none. Both run on saved inputs
 * (`--markers`, `--arguments`), so no az is needed; they write nothing when they stop. The
 * check against an installed azure-cli (`--check`, minutes of CPU) is run by hand:
 * providers/README.md.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDirectory } from "../../support/temp-dirs.js";

const SCRIPTS = fileURLToPath(new URL("../../../scripts/providers/", import.meta.url));
const PYTHON = "/usr/bin/python3";
const COMMITTED = ["az-local-programs.txt", "az-uploads.txt", "../../providers/az/provider.yaml"].map((file) => path.join(SCRIPTS, file));

function run(script: string, args: readonly string[]) {
  const result = spawnSync(PYTHON, [path.join(SCRIPTS, script), ...args], { encoding: "utf8", cwd: SCRIPTS });
  return { status: result.status, stderr: result.stderr };
}

/** A saved findings file: the table and each command's markers (az_command_code.py's shape). */
function markersFile(dir: string, markers: Record<string, Record<string, string[]>>): string {
  const file = path.join(dir, "markers.json");
  writeFileSync(file, JSON.stringify({ table: Object.keys(markers).sort(), markers }));
  return file;
}

describe.skipIf(!existsSync(PYTHON))("az generators over each command's code", () => {
  it("az_local_programs.py stops on a command whose code starts a program and that no entry reviews, writing nothing", () => {
    const before = COMMITTED.map((file) => readFileSync(file, "utf8"));
    const dir = tempDirectory("torii-az-programs-");
    const markers = markersFile(dir, {
      "aks install-cli": { download: ["x"] },
      "widget run": { process: ["azure.cli.command_modules.widget.custom.run"] },
    });
    const result = run("az_local_programs.py", ["--markers", markers]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("widget run (process)");
    expect(result.stderr).not.toContain("aks install-cli");
    expect(COMMITTED.map((file) => readFileSync(file, "utf8"))).toEqual(before);
  });

  it("az_uploads.py stops on an upload-shaped argument and on a directory walk that no entry reviews, writing nothing", () => {
    const before = COMMITTED.map((file) => readFileSync(file, "utf8"));
    const dir = tempDirectory("torii-az-uploads-");
    const markers = markersFile(dir, { "widget pack": { "walks-directory": ["x"] } });
    const argumentsFile = path.join(dir, "arguments.json");
    writeFileSync(
      argumentsFile,
      JSON.stringify([
        ["widget upload", ["--source", "-s"]],
        ["webapp up", ["--location", "-l"]],
      ]),
    );
    const result = run("az_uploads.py", ["--markers", markers, "--arguments", argumentsFile]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("widget upload --source -s");
    expect(result.stderr).toContain("widget pack OPERAND:working-directory");
    expect(result.stderr).not.toContain("webapp up --location");
    expect(COMMITTED.map((file) => readFileSync(file, "utf8"))).toEqual(before);
  });
});

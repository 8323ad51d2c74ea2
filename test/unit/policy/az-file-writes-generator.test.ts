/**
 * scripts/providers/az_file_writes.py fails closed (red team 9 F2): an argument whose name
 * may name a local path on a writing verb, or whose help speaks of saving a file, stops it
 * until the review gives a verdict; a command whose arguments do not load stops it unless
 * its module is listed as unloadable, and then its arguments are read from the module's
 * source. Runs the real script on saved arguments (`--arguments`), as a review would,
 * instead of loading az's 5,000 commands (minutes).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDirectory } from "../../support/temp-dirs.js";

const SCRIPT = fileURLToPath(new URL("../../../scripts/providers/az_file_writes.py", import.meta.url));
const AZ_MODULES = "/usr/lib/python3/dist-packages/azure/cli/command_modules";
/** The Python az runs with (Debian's); the script reads az's module sources through it. */
const PYTHON = "/usr/bin/python3";

type Argument = [command: string, names: string[], help: string];

/** Runs the generator on these arguments; the listing goes to a scratch file. */
function generate(found: Argument[], failed: [command: string, module: string][] = []) {
  const dir = tempDirectory("torii-az-writes-");
  writeFileSync(path.join(dir, "arguments.json"), JSON.stringify([found, failed]));
  const listing = path.join(dir, "listing.txt");
  const run = spawnSync(PYTHON, [SCRIPT, "--arguments", path.join(dir, "arguments.json"), "--listing", listing], { encoding: "utf8" });
  return { status: run.status, stderr: run.stderr, listing: existsSync(listing) ? readFileSync(listing, "utf8") : "" };
}

const DOWNLOAD: Argument = ["storage blob download", ["--file", "-f"], "Path of file to write out to."];

describe.skipIf(!existsSync(PYTHON))("az_file_writes.py", () => {
  it("lists a reviewed name-shape candidate that has no help text as a write", () => {
    const run = generate([DOWNLOAD, ["dls fs download", ["--destination-path"], ""], ["dls fs download", ["--source-path"], ""]]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.listing).toContain("dls fs download --destination-path  # write\n");
    expect(run.listing).toContain("dls fs download --source-path  # read\n");
    expect(run.listing).toContain("storage blob download --file -f  # write\n");
  });

  it.each([
    ["a path-named option of a writing verb", ["webapp backup-thing export", ["--target-file"], ""] as Argument],
    ["an output-named option of any verb", ["monitor thing show", ["--report-output-dir"], ""] as Argument],
    ["help text that saves a file", ["monitor thing show", ["--report"], "Path to the report file to save."] as Argument],
  ])("stops on %s with no review row, naming it", (_, argument) => {
    const run = generate([DOWNLOAD, argument]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`${argument[0]} ${argument[1][0]}`);
    expect(run.listing).toBe("");
  });

  it("stops on a command whose module did not load unless the review lists the module", () => {
    const run = generate([DOWNLOAD], [["widget export", "azure.cli.command_modules.widget"]]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("azure.cli.command_modules.widget");
  });

  it.skipIf(!existsSync(`${AZ_MODULES}/network/_params.py`))(
    "reads the arguments of a command that did not load from its module's source (network dns zone export -f)",
    () => {
      const run = generate([DOWNLOAD], [["network dns zone export", "azure.cli.command_modules.network"]]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.listing).toContain("network dns zone export --file-name -f  # write\n");
    },
  );

  it.skipIf(!existsSync(`${AZ_MODULES}/aro`))("stops on a writing verb of an unloadable module when its source shows no candidate", () => {
    const run = generate([DOWNLOAD], [["aro download-widget", "azure.cli.command_modules.aro"]]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("aro download-widget");
  });
});

/**
 * The file_reads generators on saved inputs: scripts/providers/az_file_reads.py
 * reads a small command-module tree written here (AAZ compound arguments, a
 * classic argument type that reads a path, an `arg_type` with a files completer,
 * a loop of scopes), and gcloud_file_reads.py keeps the reviewed `read` candidates
 * whose flag name says it reads a local file.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDirectory } from "../../support/temp-dirs.js";

const SCRIPTS = fileURLToPath(new URL("../../../scripts/providers/", import.meta.url));
const PYTHON = "/usr/bin/python3";

function write(root: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

const AAZ_SEARCH = `
class Search:
    def _build_arguments_schema(cls, *args, **kwargs):
        _args_schema.name = AAZStrArg(options=["--name", "-n"])
        _args_schema.tags = AAZDictArg(options=["--tags"])
        _args_schema.categories = AAZListArg(options=["--categories"])
        _args_schema.body = AAZFreeFormDictArg(options=["--body", "-b"])
        _element = AAZObjectArg(options=["inner"])
`;

const PARAMS = `
def load_arguments(self, _):
    parameters_type = CLIArgumentType(options_list=['--parameters', '-p'], completer=FilesCompleter())
    with self.argument_context('deployment group create') as c:
        c.argument('template_file', type=file_type)
        c.argument('parameters', arg_type=parameters_type)
        c.argument('mode', help='a plain string')
    for scope in ['policy definition create', 'policy set-definition create']:
        with self.argument_context(scope) as c:
            c.argument('rules', options_list=['--rules'], type=validate_file_or_dict)
`;

describe.skipIf(!existsSync(PYTHON))("file_reads generators", () => {
  it("az_file_reads.py lists AAZ compound arguments and path-reading classic arguments, nothing else", () => {
    const root = tempDirectory("torii-az-reads-");
    write(root, "monitor/aaz/latest/monitor/log_analytics/query_pack/_search.py", AAZ_SEARCH);
    write(root, "resource/_params.py", PARAMS);
    const run = spawnSync(PYTHON, [path.join(SCRIPTS, "az_file_reads.py"), "--root", root, "--print"], { encoding: "utf8", cwd: SCRIPTS });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split("\n").filter(Boolean)).toEqual([
      "deployment group create --parameters -p",
      "deployment group create --template-file",
      "monitor log-analytics query-pack search --body -b",
      "monitor log-analytics query-pack search --categories",
      "monitor log-analytics query-pack search --tags",
      "policy definition create --rules",
      "policy set-definition create --rules",
    ]);
  });

  it("gcloud_file_reads.py keeps the read candidates that name a local file and adds the source uploads", () => {
    const script = `
import sys
sys.path.insert(0, ${JSON.stringify(SCRIPTS)})
from gcloud_file_reads import lines
listing = """secrets versions add --data-file  # read
builds triggers create github --included-files  # read
compute instances create --metadata-from-file  # read
storage buckets create --gcs-source-staging-dir  # read
secrets versions access --out-file  # write
run deploy --env-vars-file  # read
beta run deploy --env-vars-file  # read
"""
print("\\n".join(lines(listing)))
`;
    const run = spawnSync(PYTHON, ["-c", script], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const out = run.stdout.split("\n");
    expect(out).toContain("secrets versions add --data-file");
    expect(out).toContain("compute instances create --metadata-from-file");
    expect(out).toContain("builds submit OPERAND:source");
    // run deploy uploads the working directory without --source: its row carries the default, in each track listed.
    expect(out).toContain("run deploy --source DEFAULT:.");
    expect(out).toContain("beta run deploy --source DEFAULT:.");
    expect(out).not.toContain("run deploy --source");
    expect(out).not.toContain("alpha run deploy --source DEFAULT:.");
    expect(out.some((line) => line.includes("--included-files") || line.includes("--gcs-") || line.includes("--out-file"))).toBe(false);
  });
});

/**
 * The operator's CLI and the MCP server must find the same executable for a
 * provider's command. Both leave Torii's own code folder out of the PATH search
 * (runtime/own-code.ts); the CLI once left out the folder of `process.argv[1]`
 * instead, which through npm's bin link is the bin directory itself, so
 * `torii doctor` named a program further down PATH than the one the server ran.
 * Here `torii` is a link in a bin directory that also holds the provider's CLI,
 * as after `npm install -g` into a prefix that holds kubectl and aws, and both
 * the server and doctor run through that link, as real processes.
 */
import { spawnSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { BIN_PATH } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const PROVIDER = 'version: "1"\nname: tf\ntool: tf\ncommand: tfish\n';

let prefixBin: FakeBin;
let laterBin: FakeBin;
let toriiLink: string;
let root: string;
let env: Record<string, string>;
let session: McpSession;

beforeAll(async () => {
  // The prefix's bin directory: Torii's link and the provider's CLI side by side.
  prefixBin = makeFakeBin({ tfish: 'process.stdout.write("tfish from the bin directory torii is linked in")' });
  toriiLink = path.join(prefixBin.dir, "torii");
  symlinkSync(BIN_PATH, toriiLink);
  // Further down PATH, another tfish that neither side should pick.
  laterBin = makeFakeBin({ tfish: 'process.stdout.write("tfish from later on PATH")' });
  root = makeConfigTree({
    "providers/tf/provider.yaml": PROVIDER,
    "providers/tf/rules.yaml": 'version: "1"\naccept: [plan]\n',
  });
  const home = tempDirectory("torii-home-");
  env = { PATH: [prefixBin.dir, laterBin.dir, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter), HOME: home, TORII_CONFIG_DIR: root };
  session = await startSession(root, env, { entry: toriiLink });
});

afterAll(async () => {
  await session.close();
});

test("doctor names the executable the server launches when torii runs through a link beside it", async () => {
  const outcome = outcomeOf(await session.call("tf", { args: ["plan"] }));
  expect(outcome.execution?.stdout).toBe("tfish from the bin directory torii is linked in");

  const doctor = spawnSync(process.execPath, [toriiLink, "doctor", "--json"], { env, encoding: "utf8" });
  const checks = (JSON.parse(doctor.stdout) as { checks: { subject: string; status: string; message: string }[] }).checks;
  const cli = checks.find((check) => check.subject === "cli tf");
  expect(cli?.status).toBe("ok");
  expect(cli?.message.startsWith(path.join(prefixBin.dir, "tfish"))).toBe(true);
});

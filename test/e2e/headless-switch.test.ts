/**
 * `TORII_NO_GUI` spelled as operators spell such switches (`true`, `yes`):
 * the built server stays headless, so a call nothing decides is denied at once
 * and no pending approval exists that an agent with a shell could answer
 * through `torii approvals approve`. Before, only the exact `1` counted: the
 * server asked, and the call waited for the (short) timeout instead.
 */
import { beforeAll, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

let bin: FakeBin;
let root: string;

beforeAll(() => {
  bin = makeFakeBin();
  root = makeConfigTree({
    "settings.yaml": 'version: "1"\napproval:\n  timeout_seconds: 3\n',
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
    "providers/rec/rules.yaml": 'version: "1"\ndeny: [push]\naccept: [status]\n',
  });
});

describe("TORII_NO_GUI other than 1", () => {
  for (const value of ["true", "yes"]) {
    test(`TORII_NO_GUI=${value}: an unresolved call is denied headless at once and nothing is pending`, async () => {
      const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, TORII_NO_GUI: value, TORII_OPEN_BROWSER: "0" });
      try {
        expect(outcomeOf(await session.call("rec", { args: ["gc"] })).decision).toMatchObject({ result: "deny", source: "headless" });
        expect(JSON.parse((await runCli(["approvals", "list", "--json"], { TORII_CONFIG_DIR: root })).stdout)).toMatchObject({ approvals: [] });
      } finally {
        await session.close();
      }
    });
  }
});

/**
 * src/mcp/young-generation.ts, in a real Node process: held, the young
 * generation stays near its start size while start-up-like objects survive
 * scavenge after scavenge; released (the first tool call), it grows again as
 * V8's default lets it; an operator's own --semi-space-growth-factor is left
 * alone; and nothing is ever printed. Runs the tsc build (dist/mcp/).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const MODULE = fileURLToPath(new URL("../../dist/mcp/young-generation.js", import.meta.url));

/** Allocates objects that all survive, before and after the release, reporting new_space's size at each step. */
const PROBE = `
import v8 from "node:v8";
const { holdYoungGenerationSmall, releaseYoungGeneration } = await import(process.env.MODULE);
const newSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size;
const survivors = [];
const allocateSurvivors = () => { for (let i = 0; i < 100000; i += 1) survivors.push({ i, text: "x" + i, pair: [i, i + 1] }); };
const start = newSpace();
if (process.env.HOLD === "1") holdYoungGenerationSmall();
allocateSurvivors();
const held = newSpace();
releaseYoungGeneration();
allocateSurvivors();
process.stderr.write(JSON.stringify({ start, held, released: newSpace() }));
`;

interface Sizes {
  readonly start: number;
  readonly held: number;
  readonly released: number;
}

function probe(hold: boolean, nodeArgs: string[] = []): Sizes {
  const result = spawnSync(process.execPath, [...nodeArgs, "--input-type=module", "-e", PROBE], {
    env: { ...process.env, MODULE, HOLD: hold ? "1" : "0" },
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stdout).toBe("");
  // The probe's own report is stderr's only content: the module printed nothing.
  return JSON.parse(result.stderr) as Sizes;
}

describe("the young generation held small during start-up", () => {
  test("without the hold, surviving objects grow new_space well past its start size (the control)", () => {
    const sizes = probe(false);
    expect(sizes.held).toBeGreaterThanOrEqual(8 * sizes.start);
  });

  test("held, it stays within twice its start size; released, it grows again", () => {
    const sizes = probe(true);
    expect(sizes.held).toBeLessThanOrEqual(2 * sizes.start);
    expect(sizes.released).toBeGreaterThanOrEqual(8 * sizes.start);
  });

  test.each(["--semi-space-growth-factor=4", "--semi_space_growth_factor=4"])("an operator's own %s on node's command line is left alone", (flag) => {
    const sizes = probe(true, [flag]);
    expect(sizes.held).toBeGreaterThanOrEqual(8 * sizes.start);
  });
});

/**
 * The probe's one reading of the AWS files is what every SDK reader gets while
 * it runs, and two probes running at once never see each other's text.
 */
import { loadSharedConfigFiles } from "@smithy/core/config";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { withFileSnapshot } from "../../../../src/pipeline/identity/file-snapshot.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const dir = tempDirectory("torii-file-snapshot-");
const config = path.join(dir, "config");
const credentials = path.join(dir, "credentials");
writeFileSync(config, "[profile p]\nregion = on-disk\n");
writeFileSync(credentials, "");

/** The region of profile p as the SDK's loader reads it now. */
async function sdkRegion(): Promise<string | undefined> {
  const files = await loadSharedConfigFiles({ filepath: credentials, configFilepath: config, ignoreCache: true });
  return files.configFile.p?.region;
}

const snapshot = (region: string): Map<string, string> =>
  new Map([
    [config, `[profile p]\nregion = ${region}\n`],
    [credentials, ""],
  ]);
const placed = (placing: Promise<void>): Promise<void> => placing;

describe("withFileSnapshot", () => {
  test("the SDK reads the snapshot while the work runs, the disk again after", async () => {
    await expect(withFileSnapshot(snapshot("snap"), placed, sdkRegion)).resolves.toBe("snap");
    await expect(sdkRegion()).resolves.toBe("on-disk");
  });

  test("a second probe with another text waits for the first to end; one with the same text shares it", async () => {
    let endFirst = (): void => undefined;
    const firstMayEnd = new Promise<void>((resolve) => {
      endFirst = resolve;
    });
    const seen: string[] = [];
    const first = withFileSnapshot(snapshot("one"), placed, async () => {
      seen.push(`first:${String(await sdkRegion())}`);
      await firstMayEnd;
      seen.push(`first-end:${String(await sdkRegion())}`);
    });
    const same = withFileSnapshot(snapshot("one"), placed, async () => {
      seen.push(`same:${String(await sdkRegion())}`);
    });
    const other = withFileSnapshot(snapshot("two"), placed, async () => {
      seen.push(`other:${String(await sdkRegion())}`);
    });
    await same;
    // The probe with another text has not started while the first runs: its text would have replaced the first's.
    expect(seen).toContain("same:one");
    expect(seen.filter((entry) => entry.startsWith("other"))).toEqual([]);
    endFirst();
    await Promise.all([first, other]);
    expect(seen.slice(-2)).toEqual(["first-end:one", "other:two"]);
    await expect(sdkRegion()).resolves.toBe("on-disk");
  });
});

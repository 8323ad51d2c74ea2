/**
 * ini-dialect.ts against botocore's own reader (the python3 on PATH, or
 * TORII_TEST_PYTHON, with botocore installed): for config files built from
 * lines where configparser and the JS SDK's INI reader part ways (case,
 * `:` delimiters, inline comments, indentation, empty values, [DEFAULT],
 * header spellings, carriage returns), whenever the file is not refused,
 * botocore's profiles and services sections are exactly the SDK's. Skipped
 * when botocore cannot be imported. No network.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fc } from "../support/property-test.js";
import { loadSharedConfigFiles } from "@smithy/core/config";
import { expect, test } from "vitest";
import { assertSameIniReading, isReadKey } from "../../src/pipeline/identity/ini-dialect.js";
import { tempDirectory } from "../support/temp-dirs.js";
import { testPython } from "../support/test-python.js";

const ORACLE = fileURLToPath(new URL("../support/botocore_ini_oracle.py", import.meta.url));
const PYTHON = testPython();
const hasBotocore = spawnSync(PYTHON, ["-c", "import botocore.configloader"], { shell: false }).status === 0;

type Sections = Record<string, Record<string, string>>;

/** Sections with at least one key, sorted by name, keys sorted: what both readers give, comparable as text. */
function canonical(sections: Sections): string {
  const kept = Object.entries(sections)
    .filter(([, keys]) => Object.keys(keys).length > 0)
    .map(([name, keys]) => [name, Object.fromEntries(Object.entries(keys).sort(([a], [b]) => (a < b ? -1 : 1)))] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(kept);
}

/**
 * Every section compared (all of them checked), or only `[profile p]` and `[services s]`, the sections checked
 * when the probe resolves profile p with services s: what the others hold may then read differently.
 */
const MODES = [
  { name: "every section", isResolved: () => true, compared: (): boolean => true },
  {
    name: "the sections the probe resolves",
    isResolved: (section: string) => section === "profile p" || section === "services s",
    compared: (name: string) => name === "p" || name === "s",
  },
];

const only = (sections: Sections, keep: (name: string) => boolean): Sections => Object.fromEntries(Object.entries(sections).filter(([name]) => keep(name)));

/** What botocore read from a config file (null: it could not read it). */
interface BotocoreReading {
  profiles: Sections;
  services: Sections;
}

interface Sample {
  readonly dir: string;
  readonly files: readonly string[];
  readonly paths: readonly string[];
  readonly answers: readonly (BotocoreReading | null)[];
}

let sample: Sample | undefined;

/**
 * The sampled config files and botocore's reading of each, made once for the file: every mode compares
 * the same files, so one python process reads them all (not one per mode).
 */
function botocoreSample(): Sample {
  sample ??= readSample();
  return sample;
}

function readSample(): Sample {
  const dir = tempDirectory("torii-ini-dialect-");
  // Lines both readers take alike, weighted over the lines where they part ways.
  const plain = fc.constantFrom("[profile p]", "[default]", "[services s]", "[sso-session s]", "region = eu-west-1", "region=x", "  region = y");
  const plainToo = fc.constantFrom("services = s", "sts =", "  endpoint_url = https://s", "", "# c", " ; c", "x = a:b", "output = json", "key = v =w");
  const tricky = fc.constantFrom(
    ...["[profile  p]", "[p]", "[DEFAULT]", "[profile p] x", "[ profile p ]", '[profile "p"]', "[profiles p]", "[profile p]]", "Region = x", "region: x"],
    ...["\tendpoint_url = https://e", "endpoint_url = https://e # c", "endpoint_url = https://e;c", "endpoint_url=https://e#x", "sso =", "ca_bundle ="],
    ...["a:b = c", "=x", "k", "  ", "region = eu-west-1\r"],
  );
  const line = fc.oneof({ arbitrary: plain, weight: 3 }, { arbitrary: plainToo, weight: 3 }, { arbitrary: tricky, weight: 1 });
  const files = fc.sample(fc.array(line, { minLength: 1, maxLength: 8 }), { numRuns: 1000, seed: 20261203 }).map((lines) => `${lines.join("\n")}\n`);
  const paths = files.map((text, index) => {
    const file = path.join(dir, `config-${String(index)}`);
    writeFileSync(file, text);
    return file;
  });
  const answers = JSON.parse(
    execFileSync(PYTHON, [ORACLE], { input: JSON.stringify(paths), maxBuffer: 1 << 26, shell: false }).toString(),
  ) as (BotocoreReading | null)[];
  return { dir, files, paths, answers };
}

test.skipIf(!hasBotocore).each(MODES)("a config file ini-dialect.ts lets through reads the same for botocore and the SDK: $name", async (mode) => {
  const { dir, files, paths, answers } = botocoreSample();
  expect(answers).toHaveLength(files.length);
  const differing: unknown[] = [];
  let compared = 0;
  for (const [index, text] of files.entries()) {
    const botocore = answers[index];
    // A file botocore cannot read fails the CLI: nothing to agree on.
    if (botocore === null || botocore === undefined) continue;
    try {
      assertSameIniReading(text, "config", mode.isResolved);
    } catch {
      continue;
    }
    compared += 1;
    const sdk = (await loadSharedConfigFiles({ configFilepath: paths[index] ?? "", filepath: path.join(dir, "absent"), ignoreCache: true })).configFile;
    const profiles: Sections = {};
    const services: Sections = {};
    for (const [name, keys] of Object.entries(sdk)) {
      if (name.startsWith("services.")) services[name.slice("services.".length)] = keys as Record<string, string>;
      else if (!name.startsWith("sso-session.")) profiles[name] = keys as Record<string, string>;
    }
    // An empty value of a key no resolution reads is let through: `""` for botocore, absent for the SDK.
    const botocoreProfiles = Object.fromEntries(
      Object.entries(botocore.profiles).map(([name, keys]) => [
        name,
        Object.fromEntries(Object.entries(keys).filter(([key, value]) => value !== "" || isReadKey(key))),
      ]),
    );
    if (
      canonical(only(botocoreProfiles, mode.compared)) !== canonical(only(profiles, mode.compared)) ||
      canonical(only(botocore.services, mode.compared)) !== canonical(only(services, mode.compared))
    ) {
      differing.push({ text, botocore, sdk });
    }
  }
  // The sample must exercise the comparison, not only refusals.
  expect(compared).toBeGreaterThan(100);
  expect(differing.slice(0, 3)).toEqual([]);
});

/**
 * A file in the child's HOME that rewrites what a call's words mean refuses the
 * call (src/runtime/home-config.ts, `runtime.home_config`): the AWS CLI expands
 * the aliases of `~/.aws/cli/alias` before parsing, so `aws setr` may run the
 * locked `configure set …` and `aws s3 ls` a shell line, under words the
 * decision judged as something else (red team 22, policy F2). The bundled aws
 * provider names the file; the refusal comes when the child is planned, before
 * the executable is looked up or anything runs.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ProviderEntry } from "../../../src/config/registry.js";
import { ChildPlanError, planChild, type ChildPlanDeps } from "../../../src/pipeline/child-plan.js";
import { homeConfigFound, pythonHomes } from "../../../src/runtime/home-config.js";
import { bundledProviderConfig } from "../../support/policy-helpers.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const ALIAS = ".aws/cli/alias";

/** A HOME with `~/.aws/cli/alias` written (or not) and a project below it. */
function home(withAliases: boolean): { home: string; project: string; aliases: string } {
  const root = tempDirectory("torii-home-config-");
  const project = path.join(root, "project");
  mkdirSync(project, { recursive: true });
  const aliases = path.join(root, ".aws", "cli", "alias");
  if (withAliases) {
    mkdirSync(path.dirname(aliases), { recursive: true });
    writeFileSync(aliases, "[toplevel]\nsetr = configure set region eu-west-9\ns3 = !touch /nonexistent/marker\n");
  }
  return { home: root, project, aliases };
}

describe("homeConfigFound", () => {
  it("finds the file in HOME", () => {
    const { home: dir, aliases } = home(true);
    expect(homeConfigFound([dir], [ALIAS])).toEqual([aliases]);
  });

  it("finds nothing when the file is absent", () => {
    expect(homeConfigFound([home(false).home], [ALIAS])).toEqual([]);
  });

  it("finds the file in any of the homes", () => {
    const { home: dir, aliases } = home(true);
    expect(homeConfigFound([home(false).home, dir], [ALIAS])).toEqual([aliases]);
  });

  it("looks for a $NAME/ entry under the directory the variable names, and nowhere without one", () => {
    const { home: dir, aliases } = home(true);
    const clean = home(false).home;
    expect(homeConfigFound([clean], ["$AWS_DIR/cli/alias"], (name) => (name === "AWS_DIR" ? path.join(dir, ".aws") : undefined))).toEqual([aliases]);
    expect(homeConfigFound([dir], ["$AWS_DIR/cli/alias"])).toEqual([]);
  });

  it("counts any kind of entry: a dangling link could be completed later", () => {
    const { home: dir } = home(false);
    mkdirSync(path.join(dir, ".aws", "cli"), { recursive: true });
    symlinkSync(path.join(dir, "not-yet"), path.join(dir, ".aws", "cli", "alias"));
    expect(homeConfigFound([dir], [ALIAS])).toEqual([path.join(dir, ".aws", "cli", "alias")]);
  });
});

describe("pythonHomes: ~ as the CLI's Python (os.path.expanduser) finds it, not as Torii would", () => {
  const env =
    (values: Record<string, string>) =>
    (name: string): string | undefined =>
      values[name];
  const account = () => "/home/account";

  it("POSIX: HOME when set", () => {
    expect(pythonHomes(env({ HOME: "/home/op" }), "linux", "/w", account)).toEqual(["/home/op"]);
  });

  it("POSIX: an unset HOME is the account's home in the password database (else a directory named ~)", () => {
    expect(pythonHomes(env({}), "linux", "/w", account)).toEqual(["/home/account"]);
    expect(pythonHomes(env({}), "linux", "/w", () => undefined)).toEqual([path.resolve("/w", "~")]);
  });

  it('POSIX: an empty HOME is the root ("" + "/.aws/cli/alias"), a relative one is the working directory\'s', () => {
    expect(pythonHomes(env({ HOME: "" }), "linux", "/w", account)).toEqual([path.resolve("/")]);
    expect(pythonHomes(env({ HOME: "rel" }), "linux", "/w", account)).toEqual([path.resolve("/w", "rel")]);
  });

  it("Windows: USERPROFILE, HOMEDRIVE + HOMEPATH and HOME, each checked (Python 3.8+ reads USERPROFILE, never HOME)", () => {
    expect(pythonHomes(env({ HOME: "/h", USERPROFILE: "/u", HOMEDRIVE: "", HOMEPATH: "/p" }), "win32", "/w", account)).toEqual([
      path.resolve("/u"),
      path.resolve("/p"),
      path.resolve("/h"),
    ]);
    expect(pythonHomes(env({}), "win32", "/w", account)).toEqual([path.resolve("/w", "~")]);
  });
});

describe("the bundled aws provider: a call is refused while ~/.aws/cli/alias exists in the child's HOME", () => {
  const aws = { name: "aws", tool: "aws", config: bundledProviderConfig("aws") } as unknown as ProviderEntry;
  const deps = (dir: { home: string; project: string }): ChildPlanDeps => ({
    serverEnv: { PATH: "/usr/bin:/bin", HOME: dir.home },
    platform: "linux",
    selfDir: "/opt/torii",
    cwd: dir.project,
  });

  it("names the file and refuses before the executable is looked up", () => {
    const dir = home(true);
    const plan = () => planChild("aws", ["s3", "ls"], aws, [], {}, deps(dir));
    expect(plan).toThrow(ChildPlanError);
    expect(plan).toThrow(dir.aliases);
  });

  it("reads the HOME a provider .env gives the child, as the CLI expands ~ with it", () => {
    const dir = home(true);
    const elsewhere = home(false);
    const plan = () => planChild("aws", ["s3", "ls"], aws, [new Map([["HOME", dir.home]])], {}, deps(elsewhere));
    expect(plan).toThrow(dir.aliases);
  });

  it("reads a relative HOME from the child's working directory, as Python does", () => {
    const dir = home(false);
    mkdirSync(path.join(dir.project, "rel", ".aws", "cli"), { recursive: true });
    writeFileSync(path.join(dir.project, "rel", ".aws", "cli", "alias"), "[toplevel]\ns3 = !true\n");
    const plan = () => planChild("aws", ["s3", "ls"], aws, [new Map([["HOME", "rel"]])], {}, deps(dir));
    expect(plan).toThrow(path.join(dir.project, "rel", ".aws", "cli", "alias"));
  });

  it("on Windows reads USERPROFILE, where Python expands ~, even when HOME names a clean directory", () => {
    const dir = home(true);
    const clean = home(false);
    const windows: ChildPlanDeps = {
      serverEnv: { Path: "C:\\Windows\\System32", HOME: clean.home, USERPROFILE: dir.home },
      platform: "win32",
      selfDir: "C:\\torii",
      cwd: dir.project,
    };
    expect(() => planChild("aws", ["s3", "ls"], aws, [], {}, windows)).toThrow(dir.aliases);
  });

  it("an operator tree installed before the bundled provider listed the file (no home_config) still refuses: the runtime floor", () => {
    const dir = home(true);
    const { runtime, ...older } = aws.config as unknown as { runtime?: Record<string, unknown> };
    const { home_config: _listed, ...rest } = runtime ?? {};
    for (const config of [older, { ...older, runtime: rest }]) {
      const olderAws = { ...aws, config } as unknown as ProviderEntry;
      expect(() => planChild("aws", ["s3", "ls"], olderAws, [], {}, deps(dir))).toThrow(dir.aliases);
    }
  });

  it("a provider that lists no file (home_config: []) accepts the alias file, as its refusal says it may", () => {
    const dir = home(true);
    const config = { ...aws.config, runtime: { ...aws.config.runtime, home_config: [] } };
    let message = "";
    try {
      planChild("aws", ["s3", "ls"], { ...aws, config } as unknown as ProviderEntry, [], {}, deps(dir));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^executable "aws" not found/u);
  });

  it("without the file the plan goes on (to the executable's lookup)", () => {
    const dir = home(false);
    let message = "";
    try {
      planChild("aws", ["s3", "ls"], aws, [], {}, deps(dir));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain(".aws/cli/alias");
    // The next step's refusal: no aws on this PATH (a refusal before it would name something else).
    expect(message).toMatch(/^executable "aws" not found/u);
  });
});

/**
 * A HOME (`root`) with a `project` folder below it (the working directory), the files `files` (paths under root)
 * holding an alias table, and the bundled az provider planned on Linux there.
 */
function azScratch(prefix: string, files: readonly string[]): { root: string; project: string; az: ProviderEntry; deps: ChildPlanDeps } {
  const root = tempDirectory(prefix);
  const project = path.join(root, "project");
  mkdirSync(project);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), "[ac]\ncommand = account\n");
  }
  const az = { name: "az", tool: "az", config: bundledProviderConfig("az") } as unknown as ProviderEntry;
  return { root, project, az, deps: { serverEnv: { PATH: "/usr/bin:/bin", HOME: root }, platform: "linux", selfDir: "/opt/torii", cwd: project } };
}

describe("the bundled az provider: a call is refused while the alias extension's table exists in the child's HOME", () => {
  it("names ~/.azure/alias", () => {
    const { root, az, deps } = azScratch("torii-home-config-az-", [".azure/alias"]);
    expect(() => planChild("az", ["ac", "list"], az, [], {}, deps)).toThrow(path.join(root, ".azure", "alias"));
  });

  it("names <AZURE_CONFIG_DIR>/alias when a .env moves az's configuration directory (relative from the working directory)", () => {
    const { project, az, deps } = azScratch("torii-home-config-az-dir-", ["project/azdir/alias"]);
    const layers = [new Map([["AZURE_CONFIG_DIR", "azdir"]])];
    expect(() => planChild("az", ["ac", "list"], az, layers, {}, deps)).toThrow(path.join(project, "azdir", "alias"));
  });

  it("an az tree installed before the bundled provider listed them (no home_config) still refuses both tables: the runtime floor", () => {
    const { root, project, az: bundledAz, deps } = azScratch("torii-home-config-az-floor-", [".azure/alias", "project/azdir/alias"]);
    const bundled = bundledAz.config as unknown as { runtime?: Record<string, unknown> };
    const { home_config: _listed, ...runtime } = bundled.runtime ?? {};
    const az = { ...bundledAz, config: { ...bundled, runtime } } as unknown as ProviderEntry;
    expect(() => planChild("az", ["ac", "list"], az, [], {}, deps)).toThrow(path.join(root, ".azure", "alias"));
    rmSync(path.join(root, ".azure", "alias"));
    expect(() => planChild("az", ["ac", "list"], az, [new Map([["AZURE_CONFIG_DIR", "azdir"]])], {}, deps)).toThrow(path.join(project, "azdir", "alias"));
  });

  it("on Windows finds the variable whatever its spelling (Azure_Config_Dir is AZURE_CONFIG_DIR there)", () => {
    const root = tempDirectory("torii-home-config-az-case-");
    const project = path.join(root, "project");
    mkdirSync(path.join(root, "azdir"), { recursive: true });
    mkdirSync(project);
    writeFileSync(path.join(root, "azdir", "alias"), "[ac]\ncommand = account\n");
    const az = { name: "az", tool: "az", config: bundledProviderConfig("az") } as unknown as ProviderEntry;
    const deps: ChildPlanDeps = {
      serverEnv: { Path: "C:\\Windows\\System32", USERPROFILE: path.join(root, "profile") },
      platform: "win32",
      selfDir: "C:\\torii",
      cwd: project,
    };
    const layers = [new Map([["Azure_Config_Dir", path.join(root, "azdir")]])];
    expect(() => planChild("az", ["ac", "list"], az, layers, {}, deps)).toThrow(path.join(root, "azdir", "alias"));
  });
});

describe("the bundled az provider on Windows: a working directory's .azure/config is looked for up to Python's ~, where az stops", () => {
  it.each([
    ["a HOME below USERPROFILE does not hide a .azure/config between them", (profile: string, work: string) => ({ HOME: work, USERPROFILE: profile })],
    [
      "without USERPROFILE, HOMEDRIVE + HOMEPATH is the stop (Python never reads HOME there), not a deeper HOME",
      (profile: string, work: string) => ({ HOME: work, HOMEDRIVE: "", HOMEPATH: profile }),
    ],
  ])("%s", (_, homes) => {
    const profile = tempDirectory("torii-home-config-az-profile-");
    const work = path.join(profile, "work");
    const project = path.join(work, "project");
    mkdirSync(path.join(work, ".azure"), { recursive: true });
    mkdirSync(project);
    writeFileSync(path.join(work, ".azure", "config"), "[defaults]\ngroup = other\n");
    const az = { name: "az", tool: "az", config: bundledProviderConfig("az") } as unknown as ProviderEntry;
    const deps: ChildPlanDeps = {
      serverEnv: { Path: "C:\\Windows\\System32", ...homes(profile, work) },
      platform: "win32",
      selfDir: "C:\\torii",
      cwd: project,
    };
    expect(() => planChild("az", ["vm", "list"], az, [], {}, deps)).toThrow(path.join(work, ".azure", "config"));
  });
});

/**
 * The trust rule on real trees (no fs mocks). CI runs as root, so foreign
 * owners are made with chown to uid 65534; modes with chmod; escapes with
 * symbolic links. Every refusal must name the offending path and a fix command
 * that, run as printed, makes the tree load.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readDotenvIfExists } from "../../../src/config/dotenv.js";
import { ConfigError } from "../../../src/config/errors.js";
import { ownerAndModeProblem } from "../../../src/config/file-trust.js";
import { shellQuote } from "../../../src/policy/shell-quote.js";
import { loadRegistry, readPolicyTexts, type Registry } from "../../../src/config/registry.js";
import { loadSettings } from "../../../src/config/settings.js";
import { checkTrustedPath, configTrust, trustPass } from "../../../src/config/trusted-path.js";
import { catchConfigError, tempDir, writeTree } from "./temp-tree.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const isRoot = process.getuid?.() === 0;
const FOREIGN_UID = 65534;

const TREE = {
  "settings.yaml": "max_output_bytes: 1000\n",
  "providers/kube/provider.yaml": 'version: "1"\nname: kube\ntool: kube\ncommand: kubectl\ntargeting:\n  mode: credentials\n',
  "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
  // Stale (no digest), so unused; it stands in for provider.yaml when current, so it is held to the same rule.
  "providers/kube/provider.generated.json": "{}\n",
  "providers/kube/.env": "LD_PRELOAD=/tmp/evil.so\n",
  "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\nidentity: {provider: kube}\n',
  "providers/kube/targets/prod/rules.yaml": 'version: "1"\naccept: [get pods]\n',
  "providers/kube/targets/prod/.env": "A=1\n",
};

/** Every path of TREE that the trust rule covers, directories included. */
const COVERED = ["", "providers", "providers/kube", "providers/kube/targets", "providers/kube/targets/prod", ...Object.keys(TREE)];

const outside: string[] = [];
afterEach(() => {
  for (const dir of outside.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function trustedTree(): string {
  const root = path.join(tempDir(), "torii");
  mkdirSync(root, { mode: 0o700 });
  writeTree(root, TREE);
  return root;
}

/** Loads everything start-up loads. */
function loadAll(root: string): Registry {
  loadSettings(root);
  return loadRegistry(root);
}

/** The fix command of a refusal, run as printed through sh. */
function runFix(error: ConfigError): void {
  const fix = /; fix: (.+)$/mu.exec(error.message)?.[1];
  expect(fix, error.message).toBeDefined();
  execFileSync("/bin/sh", ["-c", fix!]);
}

describe.skipIf(process.platform === "win32")("the trust rule on a configuration tree", () => {
  it("accepts a tree owned by this user under /tmp (sticky) with the usual modes", () => {
    expect(() => loadAll(trustedTree())).not.toThrow();
  });

  it.each(COVERED)("refuses %j when group or others can write it, naming it and a chmod that fixes it", (relative) => {
    for (const extra of [0o020, 0o002]) {
      const root = trustedTree();
      const subject = path.join(root, relative);
      chmodSync(subject, (relative.endsWith(".yaml") || relative.endsWith(".env") ? 0o644 : 0o755) | extra);
      const error = catchConfigError(() => loadAll(root));
      expect(error.file).toBe(subject);
      expect(error.message).toContain(`; fix: chmod go-w ${subject}`);
      runFix(error);
      expect(() => loadAll(root)).not.toThrow();
    }
  });

  it.skipIf(!isRoot).each(COVERED)("refuses %j when another user owns it, naming a chown that fixes it", (relative) => {
    const root = trustedTree();
    const subject = path.join(root, relative);
    chownSync(subject, FOREIGN_UID, FOREIGN_UID);
    const error = catchConfigError(() => loadAll(root));
    expect(error.file).toBe(subject);
    expect(error.message).toMatch(
      /belongs to uid 65534, not to this user \(uid 0\) or root(?:, so others could replace the configuration below it)?; fix: chown 0 /u,
    );
    runFix(error);
    expect(() => loadAll(root)).not.toThrow();
  });

  it("refuses a sticky directory inside the tree: others could still add a provider or a .env", () => {
    const root = trustedTree();
    chmodSync(path.join(root, "providers/kube/targets/prod"), 0o1777);
    expect(catchConfigError(() => loadAll(root)).file).toBe(path.join(root, "providers/kube/targets/prod"));
  });

  it("refuses an ancestor of the root that others can write and that is not sticky", () => {
    const parent = tempDir();
    const root = path.join(parent, "torii");
    mkdirSync(root);
    writeTree(root, TREE);
    chmodSync(parent, 0o777);
    const error = catchConfigError(() => loadAll(root));
    expect(error.file).toBe(parent);
    expect(error.message).toMatch(/so others could replace the configuration below it; fix: chmod go-w /u);
    chmodSync(parent, 0o1777);
    expect(() => loadAll(root)).not.toThrow();
  });

  it.skipIf(!isRoot)("refuses an ancestor of the root that another user owns", () => {
    const parent = tempDir();
    const root = path.join(parent, "torii");
    mkdirSync(root);
    writeTree(root, TREE);
    chownSync(parent, FOREIGN_UID, FOREIGN_UID);
    expect(catchConfigError(() => loadAll(root)).file).toBe(parent);
  });

  it("follows a root that is itself a symbolic link, and checks where it leads", () => {
    const real = trustedTree();
    const link = path.join(tempDir(), "link");
    symlinkSync(real, link);
    expect(() => loadAll(link)).not.toThrow();
    chmodSync(path.join(real, "providers"), 0o777);
    expect(catchConfigError(() => loadAll(link)).file).toBe(path.join(real, "providers"));
  });

  it("accepts links that stay inside the root, relative or absolute", () => {
    const root = trustedTree();
    writeFileSync(path.join(root, "shared-rules.yaml"), 'version: "1"\naccept: [get]\n');
    rmSync(path.join(root, "providers/kube/rules.yaml"));
    symlinkSync("../../shared-rules.yaml", path.join(root, "providers/kube/rules.yaml"));
    rmSync(path.join(root, "providers/kube/targets/prod/rules.yaml"));
    symlinkSync(path.join(root, "shared-rules.yaml"), path.join(root, "providers/kube/targets/prod/rules.yaml"));
    const provider = loadRegistry(root).providers.get("kube")!;
    expect(readPolicyTexts(provider, "prod").target?.text).toBe('version: "1"\naccept: [get]\n');
  });

  it.each([
    ["rules.yaml, absolute", "providers/kube/rules.yaml", "absolute"],
    ["rules.yaml, relative through ..", "providers/kube/rules.yaml", "relative"],
    [".env", "providers/kube/.env", "absolute"],
    ["provider.generated.json", "providers/kube/provider.generated.json", "absolute"],
    ["target.yaml", "providers/kube/targets/prod/target.yaml", "relative"],
    ["a provider directory", "providers/kube", "absolute"],
    ["settings.yaml", "settings.yaml", "absolute"],
  ])("refuses a link out of the root: %s", (_what, relative, style) => {
    const root = trustedTree();
    const elsewhere = tempDirectory("torii-outside-");
    outside.push(elsewhere);
    const subject = path.join(root, relative);
    const copy = path.join(elsewhere, path.basename(subject));
    execFileSync("cp", ["-a", subject, copy]);
    rmSync(subject, { recursive: true });
    symlinkSync(style === "absolute" ? copy : path.relative(path.dirname(subject), copy), subject);
    const error = catchConfigError(() => loadAll(root));
    expect(error.message).toMatch(/leads out of the configuration root/u);
    expect(error.message).toContain(subject);
  });

  it("refuses a symbolic link loop instead of hanging", () => {
    const root = trustedTree();
    rmSync(path.join(root, "providers/kube/rules.yaml"));
    symlinkSync("loop-b", path.join(root, "providers/kube/rules.yaml"));
    symlinkSync("rules.yaml", path.join(root, "providers/kube/loop-b"));
    expect(catchConfigError(() => loadAll(root)).message).toMatch(/more than 40 symbolic links/u);
  });

  it("refuses a configuration file that is not a regular file", () => {
    const root = trustedTree();
    rmSync(path.join(root, "providers/kube/rules.yaml"));
    mkdirSync(path.join(root, "providers/kube/rules.yaml"));
    expect(catchConfigError(() => loadAll(root)).message).toMatch(/rules\.yaml: is not a regular file/u);
  });

  it("refuses a path outside the root whatever it is", () => {
    const root = trustedTree();
    expect(() => checkTrustedPath(configTrust(root), path.join(root, "../x"), "file")).toThrow(/outside the configuration root/u);
  });
});

describe.skipIf(process.platform === "win32")("files read per call are checked when read", () => {
  it("a rules file made writable by others after start-up fails the policy load with the fix", () => {
    const root = trustedTree();
    const provider = loadRegistry(root).providers.get("kube")!;
    chmodSync(provider.rulesPath, 0o666);
    expect(catchConfigError(() => readPolicyTexts(provider)).message).toContain(`fix: chmod go-w ${provider.rulesPath}`);
    chmodSync(path.join(root, "providers/kube/targets/prod/rules.yaml"), 0o646);
    chmodSync(provider.rulesPath, 0o644);
    expect(catchConfigError(() => readPolicyTexts(provider, "prod")).file).toBe(path.join(root, "providers/kube/targets/prod/rules.yaml"));
  });

  it("a .env made writable by others is refused, never silently skipped", () => {
    const root = trustedTree();
    const file = path.join(root, "providers/kube/.env");
    chmodSync(file, 0o666);
    expect(catchConfigError(() => readDotenvIfExists(configTrust(root), file)).message).toContain(`fix: chmod go-w ${file}`);
  });

  it("an unsafe ancestor turns up on every per-call read too", () => {
    const root = trustedTree();
    const provider = loadRegistry(root).providers.get("kube")!;
    chmodSync(path.join(root, "providers/kube"), 0o757);
    expect(catchConfigError(() => readPolicyTexts(provider)).file).toBe(path.join(root, "providers/kube"));
    expect(() => readDotenvIfExists(configTrust(root), path.join(root, "providers/kube/targets/prod/.env"))).toThrow(ConfigError);
  });
});

describe.skipIf(process.platform === "win32")("a trust pass (checks made together)", () => {
  it("inspects a shared directory once per pass, the final entry every time, and a new pass afresh", () => {
    const root = trustedTree();
    const shared = path.join(root, "providers/kube");
    const [first, second] = [path.join(shared, "rules.yaml"), path.join(shared, "targets/prod/rules.yaml")];
    const pass = trustPass(configTrust(root));
    expect(checkTrustedPath(pass, first, "file")).toBe(true);
    chmodSync(shared, 0o757);
    // Within the pass the shared directory stands as found; the next pass (the next call) sees the change.
    expect(checkTrustedPath(pass, second, "file")).toBe(true);
    expect(catchConfigError(() => checkTrustedPath(trustPass(configTrust(root)), second, "file")).file).toBe(shared);
    chmodSync(shared, 0o755);
    chmodSync(second, 0o646);
    expect(catchConfigError(() => checkTrustedPath(pass, second, "file")).file).toBe(second);
  });
});

describe("Windows (platform injected): no POSIX owner or mode, links and kinds still checked", () => {
  it.skipIf(process.platform === "win32")("accepts modes and owners that POSIX refuses", () => {
    const root = trustedTree();
    chmodSync(path.join(root, "providers/kube/rules.yaml"), 0o666);
    chmodSync(path.join(root, "providers"), 0o777);
    if (isRoot) chownSync(path.join(root, "providers/kube/.env"), FOREIGN_UID, FOREIGN_UID);
    const trust = configTrust(root, "win32");
    expect(() => loadRegistry(root, trust)).not.toThrow();
    expect(() => loadSettings(root, trust)).not.toThrow();
    expect(trust.policy.uid).toBeUndefined();
  });

  it.skipIf(process.platform === "win32")("still refuses a link out of the root and a file that is not a regular file", () => {
    const root = trustedTree();
    const elsewhere = tempDirectory("torii-outside-");
    outside.push(elsewhere);
    writeFileSync(path.join(elsewhere, ".env"), "A=1\n");
    rmSync(path.join(root, "providers/kube/.env"));
    symlinkSync(path.join(elsewhere, ".env"), path.join(root, "providers/kube/.env"));
    expect(catchConfigError(() => loadRegistry(root, configTrust(root, "win32"))).message).toMatch(/leads out of the configuration root/u);
    rmSync(path.join(root, "providers/kube/.env"));
    mkdirSync(path.join(root, "providers/kube/.env"));
    expect(() => readDotenvIfExists(configTrust(root, "win32"), path.join(root, "providers/kube/.env"))).toThrow(/is not a regular file/u);
  });

  it("skips the owner and mode rule itself", () => {
    expect(ownerAndModeProblem("C:\\x", { uid: 1, mode: 0o777 }, { platform: "win32", uid: undefined })).toBeUndefined();
  });
});

describe("ownerAndModeProblem", () => {
  const policy = { platform: "linux" as const, uid: 1000 };
  it.each([
    [{ uid: 1000, mode: 0o100600 }, undefined],
    [{ uid: 0, mode: 0o100644 }, undefined],
    [{ uid: 1001, mode: 0o100600 }, "chown 1000 /p"],
    [{ uid: 1000, mode: 0o100620 }, "chmod go-w /p"],
    [{ uid: 1000, mode: 0o100602 }, "chmod go-w /p"],
    [{ uid: 1000, mode: 0o41777 }, "chmod go-w /p"],
  ])("%o → %s", (stats, fix) => {
    expect(ownerAndModeProblem("/p", stats, policy)?.fix).toBe(fix);
  });

  it("accepts a sticky world-writable directory only where sticky is allowed", () => {
    expect(ownerAndModeProblem("/tmp", { uid: 0, mode: 0o41777 }, policy, "sticky-ok")).toBeUndefined();
    expect(ownerAndModeProblem("/tmp", { uid: 0, mode: 0o40777 }, policy, "sticky-ok")?.fix).toBe("chmod go-w /tmp");
  });

  it("quotes paths for the shell", () => {
    expect(shellQuote("/a b/it's")).toBe("'/a b/it'\\''s'");
  });
});

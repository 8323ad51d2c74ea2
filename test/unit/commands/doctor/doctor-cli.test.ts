/** `torii doctor`: the server's own load errors, missing CLIs, missing contexts, and a clean bill. */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kubeContextProvider, makeConfigTree } from "../../../support/config-tree.js";
import { makeFakeBin, makeFakeVersionManager, writeExecutable } from "../../../support/fake-clis.js";
import { runCli } from "../../../support/run-cli.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const IDP = {
  "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: "true"\nargv: {parser: plain}\n',
  "providers/idp/rules.yaml": 'version: "1"\naccept: [x]\n',
};

/** A home with no client files, so the real machine's client registrations do not enter the findings. */
function emptyHome(): string {
  return tempDirectory("torii-doctor-home-");
}

/** A home whose `~/.kube/config` (the file the server's kubectl reads) has `contexts`. */
function homeWithKubeconfig(...contexts: string[]): string {
  const home = emptyHome();
  mkdirSync(path.join(home, ".kube"));
  writeFileSync(
    path.join(home, ".kube", "config"),
    `apiVersion: v1\nkind: Config\ncontexts:\n${contexts.map((name) => `  - name: ${name}\n    context: {cluster: c, user: u}\n`).join("")}`,
  );
  return home;
}

describe("torii doctor", () => {
  it("prints the server's ConfigError with file:line:col and exits 1", async () => {
    const root = makeConfigTree({
      "providers/kube/provider.yaml": kubeContextProvider("kubectl").replace("tool: kube", "tool: kube\ntoool: x"),
      "providers/kube/rules.yaml": 'version: "1"\n',
    });
    const result = await runCli(["doctor", "--json"], { TORII_CONFIG_DIR: root });
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; checks: { subject: string; status: string; message: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks[0]?.message).toContain(`${path.join(root, "providers/kube/provider.yaml")}:4:1: unknown field "toool"`);
  });

  it("fails a provider whose CLI is not on PATH and a target whose context is not in the kubeconfig", async () => {
    const root = makeConfigTree({
      ...IDP,
      "providers/kube/provider.yaml": kubeContextProvider("no-such-cli-here"),
      "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
      "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n',
    });
    const result = await runCli(["doctor"], { TORII_CONFIG_DIR: root, HOME: homeWithKubeconfig("other") });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("FAIL cli kube: no-such-cli-here is not on PATH");
    expect(result.stdout).toContain('FAIL target kube/dev: context "dev-ctx" is not in');
    expect(result.stdout).toContain("warn leases kube: no target is active");
  });

  it("passes (exit 0) when nothing would stop a call, reporting warnings with their fixes", async () => {
    const root = makeConfigTree({
      ...IDP,
      "providers/kube/provider.yaml": kubeContextProvider("node"),
      "providers/kube/rules.yaml": 'version: "1"\naccept: []\n',
      "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n',
    });
    const result = await runCli(["doctor"], { TORII_CONFIG_DIR: root, HOME: homeWithKubeconfig("dev-ctx") });
    expect(result.stdout).toContain("ok   target kube/dev: context dev-ctx exists");
    expect(result.stdout).toContain("warn clients: no MCP client file here registers Torii");
    expect(result.stdout).toContain("warn rules kube: kube: no accept rule");
    expect(result.stdout).toContain("fix: torii policy edit kube");
    expect(result.status).toBe(0);
  });

  it.skipIf(process.platform === "win32")("fails an audit log that is a symbolic link, dangling or not, instead of verifying through it", async () => {
    const root = makeConfigTree({ ...IDP, "providers/idp/rules.yaml": 'version: "1"\naccept: [x]\n' });
    const elsewhere = path.join(tempDirectory("torii-audit-elsewhere-"), "audit.jsonl");
    writeFileSync(elsewhere, "");
    symlinkSync(elsewhere, path.join(root, "audit.jsonl"));
    const env = { TORII_CONFIG_DIR: root, HOME: emptyHome() };
    const linked = await runCli(["doctor"], env);
    expect(linked.stdout).toMatch(/^FAIL audit: .*audit\.jsonl is a symbolic link/m);
    expect(linked.stdout).toContain("fix: replace each link with the regular file it points to");
    expect(linked.status).toBe(1);
    rmSync(elsewhere);
    const dangling = await runCli(["doctor"], env);
    expect(dangling.stdout).toMatch(/^FAIL audit: .*audit\.jsonl is a symbolic link/m);
    expect(dangling.stdout).not.toContain("no audit log yet");
  });

  it("reads a target's pinned kubeconfig, not ~/.kube/config, and fails a torn one naming the file", async () => {
    const pinned = path.join(tempDirectory("torii-kube-"), "pinned");
    writeFileSync(pinned, "contexts: [\n", { mode: 0o600 });
    const root = makeConfigTree({
      ...IDP,
      "providers/kube/provider.yaml": kubeContextProvider("node"),
      "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
      "providers/kube/targets/dev/target.yaml": `version: "1"\nname: dev\ncontext: dev-ctx\nkubeconfig: ${pinned}\nidentity: {provider: idp}\n`,
    });
    const result = await runCli(["doctor"], { TORII_CONFIG_DIR: root, HOME: homeWithKubeconfig("dev-ctx") });
    expect(result.stdout).toContain(`FAIL target kube/dev: the kubeconfig ${pinned} is not valid YAML`);
    expect(result.status).toBe(1);
  });

  it("does not fail an identity-only provider (expose: false) for a command it never runs, nor warn that it has no accept rule", async () => {
    const root = makeConfigTree({
      "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\nexpose: false\ncommand: no-such-identity-cli\nargv: {parser: plain}\n',
      "providers/idp/rules.yaml": 'version: "1"\ndeny: ["/.*/"]\n',
      "providers/kube/provider.yaml": kubeContextProvider("node"),
      "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
      "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n',
    });
    const result = await runCli(["doctor"], { TORII_CONFIG_DIR: root, HOME: homeWithKubeconfig("dev-ctx") });
    expect(result.stdout).toContain("ok   cli idp: identity-only (expose: false): no MCP tool, so no-such-identity-cli is never run for the agent");
    expect(result.stdout).not.toContain("rules idp: idp: no accept rule");
    expect(result.status).toBe(0);
  });

  it("fails a root with no provider", async () => {
    const root = makeConfigTree({ "settings.yaml": 'version: "1"\n' });
    const result = await runCli(["doctor"], { TORII_CONFIG_DIR: root });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("torii provider install kubectl --preset readonly");
  });

  it("prints the same start-up failure text the server gives its client (a rules file that does not compile)", async () => {
    const root = makeConfigTree({ ...IDP, "providers/idp/rules.yaml": 'version: "1"\naccept: ["/(/"]\n' });
    const result = await runCli(["doctor"], { TORII_CONFIG_DIR: root, HOME: emptyHome() });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("Torii could not load its configuration");
    expect(result.stdout).toContain(`${path.join(root, "providers/idp/rules.yaml")}:2:`);
  });

  it("checks the client registrations torii agent wrote: registered is ok, an entry whose paths moved fails", async () => {
    const root = makeConfigTree(IDP);
    const home = emptyHome();
    const env = { TORII_CONFIG_DIR: root, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    expect((await runCli(["agent", "install", "claude-code"], env)).status).toBe(0);
    const registered = await runCli(["doctor"], env);
    expect(registered.stdout).toContain(`ok   client claude-code: registered in ${path.join(home, ".claude.json")}`);
    expect(registered.status).toBe(0);

    const file = path.join(home, ".claude.json");
    writeFileSync(file, readFileSync(file, "utf8").replace(process.execPath, "/moved/away/node"));
    const moved = await runCli(["doctor"], env);
    expect(moved.stdout).toContain("FAIL client claude-code: Torii's entry in");
    expect(moved.stdout).toContain("/moved/away/node does not exist");
    expect(moved.stdout).toContain("fix: torii agent install claude-code");
    expect(moved.status).toBe(1);
  });

  it("runs the version probe with what locates the program and its files, never a .env credential", async () => {
    const seen = path.join(tempDirectory("torii-probe-"), "env.json");
    const bin = makeFakeBin({
      kubectl: `require("node:fs").writeFileSync(${JSON.stringify(seen)}, JSON.stringify(process.env)); process.stdout.write("Client Version: v1.31.0\\n");`,
    });
    const kubeconfig = path.join(emptyHome(), "kc");
    writeFileSync(kubeconfig, "apiVersion: v1\nkind: Config\n", { mode: 0o600 });
    const root = makeConfigTree({
      "providers/kc/provider.yaml": 'version: "1"\nname: kc\ntool: kc\ncommand: kubectl\nargv: {parser: plain}\n',
      "providers/kc/rules.yaml": 'version: "1"\naccept: [get]\n',
      "providers/kc/.env": `PATH=${bin.dir}\nKUBECONFIG=${kubeconfig}\nAPI_TOKEN=s3cret-from-dotenv\n`,
    });
    const result = await runCli(["doctor"], { TORII_CONFIG_DIR: root, HOME: emptyHome() });
    expect(result.stdout).toContain(`ok   cli kc: ${path.join(bin.dir, "kubectl")} (1.31.0)`);
    const env = JSON.parse(readFileSync(seen, "utf8")) as Record<string, string>;
    expect(env.PATH).toBe(bin.dir);
    expect(env.KUBECONFIG).toBe(kubeconfig);
    expect(JSON.stringify(env)).not.toContain("s3cret-from-dotenv");
  });

  it.skipIf(process.platform === "win32")(
    "does not start kubectl for its version when the kubeconfig it reads at start is a named pipe (it would block there), and says so",
    async () => {
      const bin = makeFakeBin({}, ["kubectl"]);
      const home = emptyHome();
      mkdirSync(path.join(home, ".kube"));
      const pipe = path.join(home, ".kube", "config");
      execFileSync("mkfifo", ["-m", "600", pipe]);
      const root = makeConfigTree({
        "providers/kc/provider.yaml": 'version: "1"\nname: kc\ntool: kc\ncommand: kubectl\nargv: {parser: plain}\n',
        "providers/kc/rules.yaml": 'version: "1"\naccept: [get]\n',
        "providers/kc/.env": `PATH=${bin.dir}\n`,
      });
      const result = await runCli(["doctor"], { TORII_CONFIG_DIR: root, HOME: home });
      expect(result.stdout).toContain(`warn cli kc: ${path.join(bin.dir, "kubectl")}: its version was not asked: ${pipe}: is not a regular file`);
      expect(bin.ran("kubectl")).toBe(false);
    },
  );

  it("names the version a shim's manager is pinned to, runs the version probe with it, and fails a shim it cannot pin", async () => {
    const manager = makeFakeVersionManager("operator-choice", { kubectl: 'echo "Client Version: v1.31.0"' });
    const pinned = makeConfigTree({
      "providers/kc/provider.yaml": 'version: "1"\nname: kc\ntool: kc\ncommand: kubectl\nargv: {parser: plain}\n',
      "providers/kc/rules.yaml": 'version: "1"\naccept: [get]\n',
      "providers/kc/.env": `PATH=${manager.shims}:/usr/bin:/bin\n`,
    });
    const result = await runCli(["doctor"], { TORII_CONFIG_DIR: pinned, HOME: emptyHome() });
    expect(result.stdout).toContain(`ok   cli kc: ${path.join(manager.shims, "kubectl")} [pinned FAKEENV_VERSION=operator-choice] (1.31.0)`);
    expect(readFileSync(manager.seen, "utf8")).toBe("operator-choice");

    const asdf = tempDirectory("torii-asdf-");
    writeExecutable(path.join(asdf, "shims", "kubectl"), '#!/usr/bin/env bash\n# asdf-plugin: kubectl 1.31.0\nexec /opt/asdf/bin/asdf exec "kubectl" "$@"\n');
    const refused = makeConfigTree({
      "providers/kc/provider.yaml": 'version: "1"\nname: kc\ntool: kc\ncommand: kubectl\nargv: {parser: plain}\n',
      "providers/kc/rules.yaml": 'version: "1"\naccept: [get]\n',
      "providers/kc/.env": `PATH=${path.join(asdf, "shims")}:/usr/bin:/bin\n`,
    });
    const failed = await runCli(["doctor"], { TORII_CONFIG_DIR: refused, HOME: emptyHome() });
    expect(failed.stdout).toMatch(/FAIL cli kc: kubectl is a shim of asdf, which picks its version from the working directory; .*no call can run/u);
  });
});

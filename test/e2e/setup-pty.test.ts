/**
 * `torii setup` end to end through a real pseudo-terminal: the built binary
 * runs under Python's pty.spawn (argv, no shell), and the test answers each
 * prompt only after it has appeared (no fixed sleeps). From an empty root it
 * installs kubectl with the readonly preset, makes a target of a kube context
 * read by the real kubectl, activates it, adds a deny rule with its preview,
 * registers Torii with Claude Code and prints the registration lines; a rerun
 * shows what exists.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENTS } from "../../src/agents/clients.js";
import { ANSI_COLOUR, DOWN, ptySession } from "../support/pty-session.js";
import { CLI_PATH, runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

describe("torii setup in a pseudo-terminal", () => {
  it("takes an empty root to an installed, targeted, activated kubectl with a rule added and Claude Code registered, and reruns idempotently", async () => {
    const home = tempDirectory("torii-setup-home-");
    const root = path.join(home, "torii");
    // The kubeconfig the server's kubectl reads (~/.kube/config); the shell's KUBECONFIG names a decoy it never reads.
    mkdirSync(path.join(home, ".kube"));
    const kubeconfig = path.join(home, ".kube", "config");
    const decoy = path.join(home, "decoy-kubeconfig");
    writeFileSync(decoy, "apiVersion: v1\nkind: Config\ncontexts:\n- name: decoy-ctx\n  context: {cluster: c, user: u}\n", { mode: 0o600 });
    writeFileSync(
      kubeconfig,
      "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: dev-ctx\n  context: {cluster: c, user: u}\n",
      { mode: 0o600 },
    );
    const env = {
      HOME: home,
      TORII_CONFIG_DIR: root,
      KUBECONFIG: decoy,
      TORII_PROVIDER_CATALOG: path.join(path.dirname(path.dirname(CLI_PATH)), "providers"),
    };

    const run = ptySession(["setup"], env);
    await run.expect("⏎ submit");
    const choices = run.output().slice(run.output().lastIndexOf("Install which providers?"));
    const kubectlIndex = ["aws", "az", "gcloud", "kubectl"].filter((name) => new RegExp(`\\b${name}\\b`, "u").test(choices)).indexOf("kubectl");
    run.send(`${DOWN.repeat(kubectlIndex)} \r`);
    await run.expect("Rules to start kubectl with:");
    run.send("\r");
    await run.expect(`kubectl contexts in ${kubeconfig}:`);
    await run.expect("Make targets of which contexts?");
    expect(run.output()).not.toContain("decoy-ctx");
    run.send(" \r");
    await run.expect("Activate a target now");
    run.send(`${DOWN}\r`);
    await run.expect("Review or change rules of:");
    run.send(`${DOWN}\r`);
    await run.expect("Change the rules of kubectl?");
    run.send(`${DOWN}${DOWN}\r`);
    await run.expect("New deny rule");
    run.send("delete\r");
    await run.expect("+ deny delete");
    await run.expect("Write ");
    run.send("\r");
    await run.expect("written:");
    await run.expect("Change the rules of kubectl?");
    run.send("\r");
    await run.expect("Another provider's rules?");
    run.send("\r");
    await run.expect("Register Torii with which clients?");
    run.send(`${DOWN.repeat(CLIENTS.findIndex((client) => client.id === "claude-code"))} \r`);
    await run.expect(`registered Torii with Claude Code in ${path.join(home, ".claude.json")}`);
    await run.expect("claude mcp add torii");
    expect(await run.exited).toBe(0);
    expect((JSON.parse(readFileSync(path.join(home, ".claude.json"), "utf8")) as { mcpServers: { torii: { env: unknown } } }).mcpServers.torii.env).toEqual({
      TORII_CONFIG_DIR: root,
    });

    const rules = readFileSync(path.join(root, "providers/kubectl/rules.yaml"), "utf8");
    expect(rules).toContain("# --- prints credentials ---");
    expect(rules).toMatch(/\n {2}- delete\n/u);
    const allowed = await runCli(["policy", "check", "kubectl", "dev-ctx", "--", "get", "pods"], env);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ decision: "accept" });
    const status = await runCli(["target", "status", "kubectl", "--json"], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ leases: [{ target: "dev-ctx", current: true }] });

    const again = ptySession(["setup"], env);
    await again.expect("kubectl  installed");
    await again.expect("Install which providers?");
    again.send("\r");
    await again.expect("dev-ctx (a target already)");
    await again.expect("Activate a target now");
    again.send("\r");
    await again.expect("Review or change rules of:");
    again.send("\r");
    await again.expect("claude-code     registered");
    await again.expect("Register Torii with which clients?");
    again.send("\r");
    expect(await again.exited).toBe(0);
  });

  it("refuses a stdin that is not a terminal and names the commands to use instead", async () => {
    const result = await runCli(["setup"], { TORII_CONFIG_DIR: tempDirectory("torii-setup-") });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain("stdin is not a terminal");
    expect(result.stderr).toContain("torii provider install <name> --preset readonly");
  });

  it("shows a kube context whose name carries terminal escapes with them written out, never sent to the terminal", async () => {
    const home = tempDirectory("torii-setup-names-");
    const root = path.join(home, "torii");
    const env = { HOME: home, TORII_CONFIG_DIR: root, TORII_PROVIDER_CATALOG: path.join(path.dirname(path.dirname(CLI_PATH)), "providers") };
    // Every bundled provider installed already: the wizard asks nothing before the kube contexts.
    for (const name of ["aws", "az", "gcloud", "kubectl"]) expect((await runCli(["provider", "install", name], env)).status).toBe(0);
    mkdirSync(path.join(home, ".kube"));
    // A context name that sets the terminal's title and clears the screen (a kubeconfig merged from elsewhere).
    writeFileSync(
      path.join(home, ".kube", "config"),
      'apiVersion: v1\nkind: Config\ncontexts:\n- name: "dev\\e]0;torii-title\\a\\e[2Jctx"\n  context: {cluster: c, user: u}\n',
      { mode: 0o600 },
    );
    const run = ptySession(["setup"], env);
    await run.expect("Make targets of which contexts?");
    await run.expect("⏎ submit");
    run.send("\x03");
    expect(await run.exited).toBe(130);
    expect(run.raw()).not.toContain("\u001b]0;torii-title");
    expect(run.raw()).not.toContain("\u0007\u001b[2Jctx");
    expect(run.output()).toContain("  dev\\u{1b}]0;torii-title\\u{7}\\u{1b}[2Jctx");
  });

  it("colours its prompts on a terminal, and prints no colour escape at all under NO_COLOR=1", async () => {
    const promptOnce = async (extra: Record<string, string>): Promise<string> => {
      const home = tempDirectory("torii-setup-colour-");
      const run = ptySession(["setup"], { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii"), ...extra });
      await run.expect("Install which providers?");
      await run.expect("⏎ submit");
      run.send("\x03");
      expect(await run.exited).toBe(130);
      return run.raw();
    };
    expect(await promptOnce({})).toMatch(ANSI_COLOUR);
    const plain = await promptOnce({ NO_COLOR: "1" });
    expect(plain).toContain("Install which providers?");
    expect(plain).not.toMatch(ANSI_COLOUR);
  });
});

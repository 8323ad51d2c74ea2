/**
 * kubectl calls that write a local file (`cp` to a local destination, `kustomize
 * -o`, `cluster-info dump --output-directory`, `proxy --unix-socket`) or run a
 * plugin from PATH (`kubectl foo`, `kubectl create foo`): a broad accept rule
 * never accepts them, a rule naming the command path does. The bundled provider
 * lists them, and the kubectl_context floor lists them for a provider.yaml
 * installed before it did (registry.ts builds the grammar with the floor).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { effectiveLockedOptions, lockedCommandsOf, withFileWriteFloor, withLockedCommandOptionFloor } from "../../../src/config/locked-floor.js";
import { providerFileSchema, toGrammarSpec, toPolicySettings } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { ruleList } from "../../support/policy-helpers.js";

const BUNDLED = readFileSync(fileURLToPath(new URL("../../../providers/kubectl/provider.yaml", import.meta.url)), "utf8");
const STALE = BUNDLED.replace(/\n {2}# Arguments with which kubectl writes[\s\S]*?\n {2}plugins: true/u, "");

/** The policy context the registry builds from a provider.yaml text. */
function buildContext(text: string) {
  const config = providerFileSchema.parse(parse(text));
  return {
    tool: "kubectl",
    grammar: withFileWriteFloor(withLockedCommandOptionFloor(toGrammarSpec(config), config), config),
    lockedOptions: effectiveLockedOptions(config),
    lockedCommands: lockedCommandsOf(config),
    settings: toPolicySettings(config),
  };
}

// Parsing the 67 KB provider.yaml as YAML costs a few hundred ms: once per text, not per decision.
const contexts = new Map<string, ReturnType<typeof buildContext>>();
function registryContext(text: string): ReturnType<typeof buildContext> {
  let context = contexts.get(text);
  if (context === undefined) contexts.set(text, (context = buildContext(text)));
  return context;
}

const decide = (accept: readonly string[], argv: readonly string[], text = BUNDLED, deny: readonly string[] = []) =>
  evaluatePolicy(compilePolicy(registryContext(text), { shared: ruleList(deny, accept) }), argv).decision;

const WRITES: readonly (readonly [string, readonly string[]])[] = [
  ["cp", ["cp", "web-1:/etc/hostname", "/home/op/.kube-old/config"]],
  ["cp", ["-n", "prod", "cp", "--", "web-1:/f", "/home/op/.kube-old/config"]],
  ["kustomize", ["kustomize", "app", "-o", "/home/op/.kube-old/config"]],
  ["kustomize", ["kustomize", "app", "-o/home/op/.kube-old/config"]],
  ["kustomize", ["kustomize", "app", "--output=/home/op/.kube-old/config"]],
  ["cluster-info dump", ["cluster-info", "dump", "--output-directory", "/home/op/.kube-old"]],
  ["proxy", ["proxy", "-u", "/home/op/.aws-old/config"]],
];

describe("kubectl calls that write a local file", () => {
  it.each([
    ["bundled", BUNDLED],
    ["installed before file_writes (the floor)", STALE],
  ])("%s: a regex accept rule does not accept them; a literal rule naming the command path does", (_name, text) => {
    expect(text.includes("file_writes")).toBe(text === BUNDLED);
    for (const [path, argv] of WRITES) {
      const broad = decide(["/.*/"], argv, text);
      expect(broad.result, argv.join(" ")).toBe("unresolved");
      expect(broad.reason).toContain(`kubectl ${path} can write a local file`);
      expect(broad.reason).not.toContain("/home/op");
      expect(decide([path], argv, text).result, argv.join(" ")).toBe("accept");
    }
  });

  it("a shorter literal does not name cluster-info dump; the same commands without the option stay up to the rules", () => {
    expect(decide(["cluster-info"], ["cluster-info", "dump", "--output-directory", "/tmp/d"]).result).toBe("unresolved");
    expect(decide(["cluster-info"], ["cluster-info", "dump"]).result).toBe("accept");
    // kustomize DIR reads a local directory (argv.file_reads): a rule naming kustomize accepts it, a regex does not.
    expect(decide(["kustomize"], ["kustomize", "app"]).result).toBe("accept");
    expect(decide(["/^kustomize /"], ["kustomize", "app"]).result).toBe("unresolved");
    expect(decide(["/^proxy/"], ["proxy", "--port=0"]).result).toBe("accept");
  });

  it("deny rules still decide first", () => {
    expect(decide(["cp"], WRITES[0]?.[1] ?? [], BUNDLED, ["cp"])).toMatchObject({ result: "deny", source: "explicit-deny" });
  });
});

describe("kubectl plugins", () => {
  it.each([
    ["bundled", BUNDLED],
    ["installed before plugins (the floor)", STALE],
  ])("%s: an unknown command word is not accepted by a regex rule, and the reason does not quote it", (_name, text) => {
    const decision = decide(["/.*/"], ["krew-secret-word", "install", "x"], text);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toContain("kubectl would run a plugin program from PATH");
    expect(decision.reason).not.toContain("krew-secret-word");
    expect(decide(["krew-secret-word"], ["krew-secret-word", "install", "x"], text).result).toBe("accept");
  });

  it("an unknown word after a command group (kubectl create foo runs kubectl-create-foo) needs a rule naming both words", () => {
    const decision = decide(["create"], ["create", "foo", "x"]);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toContain('the word after "create" names no sub-command');
    expect(decide(["create foo"], ["create", "foo", "x"]).result).toBe("accept");
    // Known sub-commands and aliases, and operands of commands without sub-commands, are not plugins.
    expect(decide(["create"], ["create", "deploy", "web", "--image=nginx"]).result).toBe("accept");
    expect(decide(["get"], ["get", "pods", "web-1"]).result).toBe("accept");
    expect(decide(["/.*/"], ["top", "pod"]).result).toBe("accept");
  });

  it("no positional (options only) is no plugin, nor is any word of a provider without a command table", () => {
    expect(decide(["/.*/"], ["-n", "x"]).result).toBe("accept");
    const plain = 'version: "1"\nname: kube\ntool: kube\ncommand: kubectl\ntargeting: {mode: kubectl_context}\nargv: {parser: plain}\n';
    expect(decide(["/.*/"], ["anything", "goes"], plain).result).toBe("accept");
  });
});

const STALE_LOCKED = BUNDLED.replace(/\n {2}# Options with which kubectl runs a local program[\s\S]*?(?=\n {2}# `kubectl options`)/u, "");

describe("kubectl options that run a local program or widen local reads", () => {
  const CALLS: readonly (readonly [string, readonly string[]])[] = [
    ["--helm-command", ["kustomize", "app", "--helm-command=/tmp/x/SECRET-helm"]],
    ["--helm-command", ["kustomize", "app", "--helm-command", "/tmp/x/SECRET-helm"]],
    ["--helm-command", ["-n", "prod", "kustomize", "--helm-command", "/tmp/x/SECRET-helm", "app"]],
    ["--enable-helm", ["kustomize", "app", "--enable-helm"]],
    ["--enable-helm", ["kustomize", "app", "--enable-helm=true"]],
    ["--enable-alpha-plugins", ["kustomize", "--enable-alpha-plugins", "app"]],
    ["--mount", ["kustomize", "app", "--mount", "type=bind,src=/home/op/.kube-old,dst=/k"]],
    ["--load-restrictor", ["kustomize", "app", "--load-restrictor=LoadRestrictionsNone"]],
    ["--load-restrictor", ["kustomize", "app", "--load-restrictor", "LoadRestrictionsNone"]],
  ];

  it.each([
    ["bundled", BUNDLED],
    ["installed before the table (the floor)", STALE_LOCKED],
  ])("%s: refused in every spelling whatever the rules say, the reason naming only the option", (_name, text) => {
    expect(text.includes("locked_command_options")).toBe(text === BUNDLED);
    for (const [option, argv] of CALLS) {
      const decision = decide(["/.*/", "kustomize"], argv, text);
      expect(decision.result, argv.join(" ")).toBe("deny");
      expect(decision.reason).toContain(`sets ${option} of "kustomize"`);
      expect(decision.reason).toMatch(/run a local program|read local files outside/u);
      expect(decision.reason).not.toMatch(/SECRET|LoadRestrictionsNone|\/home\/op/u);
    }
  });

  it("a literal kustomize rule does not allow them; abbreviations are unknown to kubectl (pflag has none) and are not accepted; plain kustomize stays up to the rules", () => {
    expect(decide(["/.*/"], ["kustomize", "app", "--helm-comm=/tmp/x"]).result).not.toBe("accept");
    expect(decide(["/.*/"], ["kustomize", "app", "--load-restr=LoadRestrictionsNone"]).result).not.toBe("accept");
    expect(decide(["kustomize"], ["kustomize", "app", "--helm-kube-version=1.32"]).result).toBe("accept");
    // apply -k has none of these options: kubectl refuses them there, and so does the grammar.
    expect(decide(["/.*/"], ["apply", "-k", "app", "--enable-helm"]).result).not.toBe("accept");
    // A literal rule naming the command path does not allow them either.
    expect(decide(["kustomize"], ["kustomize", "app", "--helm-command", "/tmp/x"]).result).toBe("deny");
  });
});

describe("kubectl proxy and port-forward options that serve beyond the call", () => {
  const CALLS: readonly (readonly [string, string, readonly string[]])[] = [
    ["proxy", "--www", ["proxy", "--www=/home/op/notes"]],
    ["proxy", "--www", ["proxy", "-w", "/home/op/notes", "--port=0"]],
    ["proxy", "--www", ["proxy", "-w/home/op/notes"]],
    ["proxy", "--address", ["proxy", "--address", "0.0.0.0"]],
    ["proxy", "--accept-hosts", ["proxy", "--accept-hosts=.*"]],
    ["proxy", "--disable-filter", ["proxy", "--disable-filter"]],
    ["proxy", "--reject-paths", ["proxy", "--reject-paths=^$"]],
    ["port-forward", "--address", ["port-forward", "--address=0.0.0.0", "pod/web", "8080:80"]],
    ["port-forward", "--address", ["-n", "prod", "port-forward", "pod/web", "8080:80", "--address", "0.0.0.0"]],
  ];

  it.each([
    ["bundled", BUNDLED],
    ["installed before the table (the floor)", STALE_LOCKED],
  ])("%s: refused in every spelling whatever the rules say; the defaults (loopback, no static files) stay up to the rules", (_name, text) => {
    for (const [command, option, argv] of CALLS) {
      const decision = decide(["/.*/", command], argv, text);
      expect(decision.result, argv.join(" ")).toBe("deny");
      expect(decision.reason).toContain(`sets ${option} of "${command}"`);
      expect(decision.reason).not.toMatch(/\/home\/op|0\.0\.0\.0/u);
    }
    expect(decide(["proxy"], ["proxy", "--port=8001"], text).result).toBe("accept");
    expect(decide(["port-forward"], ["port-forward", "pod/web", "8080:80"], text).result).toBe("accept");
  });
});

describe("kubectl -o formats that read a template file", () => {
  it("-o jsonpath-file=, go-template-file, custom-columns-file and templatefile are refused in every spelling; inline templates stay up to the rules", () => {
    for (const argv of [
      ["get", "pods", "-o", "jsonpath-file=/home/op/.aws-old/credentials"],
      ["get", "pods", "-ojsonpath-file=/home/op/.aws-old/credentials"],
      ["get", "pods", "-o=go-template-file", "--template", "/home/op/.aws-old/credentials"],
      ["get", "pods", "--output=go-template-file", "--template=/home/op/.aws-old/credentials"],
      ["get", "pods", "--output", "custom-columns-file=/home/op/.aws-old/credentials"],
      ["get", "pods", "-o", "templatefile", "--template", "/home/op/.aws-old/credentials"],
      ["create", "configmap", "x", "--from-literal=a=b", "--dry-run=client", "-o", "go-template-file=/home/op/.aws-old/credentials"],
    ]) {
      const decision = decide(["/.*/"], argv, STALE_LOCKED);
      expect(decision.result, argv.join(" ")).toBe("deny");
      expect(decision.reason).toContain("sets --output of any command");
      expect(decision.reason).not.toContain("/home/op");
    }
    expect(decide(["/.*/"], ["get", "pods", "-o", "jsonpath={.items[*].spec.securityContext.seccompProfile}"]).result).toBe("accept");
    expect(decide(["/.*/"], ["get", "pods", "-o", "go-template", "--template={{.kind}}"]).result).toBe("accept");
    expect(decide(["/.*/"], ["get", "pods", "-o", "yaml"]).result).toBe("accept");
  });
});

/**
 * The pflag model (kubectl): docs/policy.md "pflag (kubectl)".
 */
import { describe, expect, it } from "vitest";
import { compileGrammar } from "../../../../src/policy/grammar/option-table.js";
import { KUBECTL_LOCKED, kubectl, kubectlSpec } from "../../../support/grammars.js";
import { canon, canonicalOf, rejectionOf } from "../../../support/policy-helpers.js";

const k = kubectl();
const open = compileGrammar(kubectlSpec, []);

describe("pflag: one canonical argv per invocation", () => {
  it("--f=v, --f v, -fv, -f=v and -f v are the same option", () => {
    const want = ["get", "pods", "--namespace=kube-system"];
    for (const spelling of [["--namespace=kube-system"], ["--namespace", "kube-system"], ["-nkube-system"], ["-n=kube-system"], ["-n", "kube-system"]]) {
      expect(canon(k, ["get", "pods", ...spelling])).toEqual(want);
    }
  });

  it("flags are read anywhere before --, and options are sorted by name after the positionals", () => {
    expect(canon(k, ["-n", "x", "get", "-o", "json", "pods", "-A"])).toEqual(["get", "pods", "--all-namespaces", "--namespace=x", "--output=json"]);
  });

  it("_ equals - in long names", () => {
    expect(canon(k, ["get", "--all_namespaces", "--show_labels", "--request_timeout=5s"])).toEqual([
      "get",
      "--all-namespaces",
      "--request-timeout=5s",
      "--show-labels",
    ]);
  });

  it("long names are not abbreviated (--names=x is an unknown option, not --namespace)", () => {
    expect(rejectionOf(open, ["get", "--names=x"]).reason).toContain("unknown option --names");
    expect(rejectionOf(open, ["get", "--names", "x"]).kind).toBe("argv-rejected");
  });

  it("an unknown long option is refused in an agent argv, with or without =, and named after _ normalisation", () => {
    expect(rejectionOf(k, ["get", "--no_headers=true"]).reason).toContain("unknown option --no-headers");
  });

  it("a value may contain =", () => {
    expect(canon(k, ["get", "-l", "app=web"])).toEqual(["get", "--selector=app=web"]);
    expect(canon(k, ["get", "--selector=app=web"])).toEqual(["get", "--selector=app=web"]);
  });
});

describe("pflag: short clusters", () => {
  it("boolean letters are consumed until a value-taking letter", () => {
    expect(canon(k, ["get", "-Aw"])).toEqual(["get", "--all-namespaces", "--watch"]);
  });

  it("a value-taking letter takes the rest of the cluster", () => {
    expect(canon(k, ["get", "-Aojson"])).toEqual(["get", "--all-namespaces", "--output=json"]);
  });

  it("a value-taking letter takes the rest after an optional =", () => {
    expect(canon(k, ["get", "-Ao=json"])).toEqual(["get", "--all-namespaces", "--output=json"]);
  });

  it("a value-taking letter at the end of a cluster takes the next token", () => {
    expect(canon(k, ["get", "-Ao", "json"])).toEqual(["get", "--all-namespaces", "--output=json"]);
  });

  it("a letter after a value-taking letter is part of the value, not an option (-ns is namespace s)", () => {
    expect(canon(k, ["get", "-ns"])).toEqual(["get", "--namespace=s"]);
  });

  it("-Ashttps://x is -A -s https://x, so the locked --server is refused", () => {
    const rejection = rejectionOf(k, ["get", "pods", "-Ashttps://x"]);
    expect(rejection).toMatchObject({ kind: "locked-option", option: "--server", token: "-Ashttps://x", index: 2 });
  });

  it("-n= is -n with the value =, as pflag's parseSingleShortArg reads it", () => {
    expect(canon(k, ["get", "-n="])).toEqual(["get", "--namespace=="]);
  });

  it("-A= is -A followed by the unknown shorthand =, refused as pflag fails on it", () => {
    expect(rejectionOf(k, ["get", "-A="]).kind).toBe("argv-rejected");
  });

  it("an unknown short letter is refused (it could take a value that hides a locked option)", () => {
    const rejection = rejectionOf(k, ["get", "-Aq"]);
    expect(rejection.kind).toBe("argv-rejected");
    expect(rejection.reason).toContain("-q");
  });
});

describe("pflag: switches and optional values", () => {
  it.each(["1", "t", "T", "true", "TRUE", "True"])("switch spelling %s is true, canonical --flag", (value) => {
    expect(canon(k, ["get", `--watch=${value}`])).toEqual(["get", "--watch"]);
    expect(canon(k, ["get", `-w=${value}`])).toEqual(["get", "--watch"]);
  });

  it.each(["0", "f", "F", "false", "FALSE", "False"])("switch spelling %s is false, canonical --flag=false", (value) => {
    expect(canon(k, ["get", `--watch=${value}`])).toEqual(["get", "--watch=false"]);
  });

  it("a switch never takes the next token", () => {
    expect(canon(k, ["get", "--watch", "false"])).toEqual(["get", "false", "--watch"]);
  });

  it("a switch with a non-boolean value is refused for the agent but kept in a rule", () => {
    expect(rejectionOf(k, ["get", "--watch=yes"]).kind).toBe("argv-rejected");
    expect(canon(k, ["get", "--watch=yes"], "rule")).toEqual(["get", "--watch=yes"]);
  });

  it("an optional-value option takes a value only with =", () => {
    expect(canon(k, ["apply", "--dry-run", "server"])).toEqual(["apply", "server", "--dry-run"]);
    expect(canon(k, ["apply", "--dry-run=server"])).toEqual(["apply", "--dry-run=server"]);
  });
});

describe("pflag: command scopes", () => {
  it("command-local options apply under their command path (-f is --follow under logs, --filename under apply)", () => {
    expect(canon(k, ["logs", "web", "-f"])).toEqual(["logs", "web", "--follow"]);
    expect(canon(k, ["apply", "-f", "x.yaml"])).toEqual(["apply", "--filename=x.yaml"]);
  });

  it("the command path is found first with the global options, as cobra does", () => {
    expect(canon(k, ["-n", "x", "get", "-w", "pods"])).toEqual(["get", "pods", "--namespace=x", "--watch"]);
  });

  it("a command option written before its full command path is refused", () => {
    expect(rejectionOf(k, ["-w", "get", "pods"]).kind).toBe("argv-rejected");
    expect(rejectionOf(k, ["rollout", "-w", "status", "x"]).kind).toBe("argv-rejected");
  });

  it("an option of another command is unknown here", () => {
    expect(rejectionOf(k, ["logs", "web", "-o", "json"]).kind).toBe("argv-rejected");
  });

  it("the longest declared command path wins", () => {
    expect(canon(k, ["rollout", "status", "deploy/x", "-w"])).toEqual(["rollout", "status", "deploy/x", "--watch"]);
  });
});

describe("pflag: refusals", () => {
  it("an unknown long option without = is refused: Torii cannot tell whether it swallows the next token", () => {
    const rejection = rejectionOf(k, ["get", "--bogus", "pods"]);
    expect(rejection).toMatchObject({ kind: "argv-rejected", token: "--bogus", index: 1 });
  });

  it("a separate value starting with - is refused (--namespace --server=x)", () => {
    const rejection = rejectionOf(k, ["get", "--namespace", "--server=x"]);
    expect(rejection).toMatchObject({ kind: "argv-rejected", token: "--namespace", index: 1 });
    expect(rejection.reason).toContain("--namespace=VALUE");
  });

  it("a lone - is a value, not an option", () => {
    expect(canon(k, ["apply", "-f", "-"])).toEqual(["apply", "--filename=-"]);
    expect(canon(k, ["get", "-"])).toEqual(["get", "-"]);
  });

  it("a single-valued option given twice is refused, a repeatable one is kept in order", () => {
    expect(rejectionOf(k, ["get", "-n", "a", "-n", "b"]).reason).toContain("more than once");
    expect(canon(k, ["apply", "-f", "b", "-f", "a"])).toEqual(["apply", "--filename=b", "--filename=a"]);
  });

  it("a missing value at the end is refused", () => {
    expect(rejectionOf(k, ["get", "-n"]).reason).toContain("needs a value");
  });

  it("---name and --=x are bad flag syntax", () => {
    expect(rejectionOf(k, ["get", "---namespace=x"]).kind).toBe("argv-rejected");
    expect(rejectionOf(k, ["get", "--=x"]).kind).toBe("argv-rejected");
  });

  it("a locked option is refused under its long, =, _ and short spellings", () => {
    for (const argv of [["--context=x"], ["--context", "x"], ["--insecure_skip_tls_verify"], ["-s", "x"], ["-sx"], ["-s=x"]]) {
      expect(rejectionOf(k, ["get", ...argv]).kind).toBe("locked-option");
    }
  });

  it("a locked option missing from the table swallows its value like a value-taking global", () => {
    expect(KUBECTL_LOCKED).toContain("--user");
    expect(rejectionOf(k, ["get", "--user", "admin"])).toMatchObject({ kind: "locked-option", option: "--user" });
  });
});

describe("pflag: the -- tail", () => {
  it("tokens after -- are never parsed as options", () => {
    const canonical = canonicalOf(k, ["exec", "web", "--", "sh", "-c", "--server=x"]);
    expect(canonical).toEqual({ positionals: ["exec", "web"], options: [], hasTail: true, tail: ["sh", "-c", "--server=x"] });
  });

  it("tail tokens still get the raw-token checks (NUL, look-alike dash, forbidden prefix)", () => {
    const withPrefix = compileGrammar({ ...kubectlSpec, forbiddenValuePrefixes: ["file://"] }, []);
    expect(rejectionOf(k, ["exec", "web", "--", "a\0b"])).toMatchObject({ kind: "argv-rejected", index: 3 });
    expect(rejectionOf(k, ["exec", "web", "--", "ok", "\u2013x"])).toMatchObject({ kind: "argv-rejected", index: 4 });
    expect(rejectionOf(withPrefix, ["exec", "web", "--", "FILE:///etc/passwd"])).toMatchObject({ kind: "forbidden-value", index: 3 });
  });

  it("a separate option value gets the raw-token checks", () => {
    expect(rejectionOf(k, ["get", "-n", "a\0b"])).toMatchObject({ kind: "argv-rejected", index: 2 });
    expect(rejectionOf(k, ["get", "-n", "\u2212x"])).toMatchObject({ kind: "argv-rejected", index: 2 });
  });
});

describe("pflag: rule mode (lenient)", () => {
  it("a locked option in a rule is not refused", () => {
    expect(canon(k, ["get", "--context=prod"], "rule")).toEqual(["get", "--context=prod"]);
  });

  it("a value-taking option without a value means any value", () => {
    expect(canonicalOf(k, ["get", "pods", "-n"], "rule").options).toEqual(["--namespace"]);
    expect(canonicalOf(k, ["get", "-n", "-w"], "rule").options).toEqual(["--namespace", "--watch"]);
  });

  it("an unknown long option without = is kept, and a repeat is allowed", () => {
    expect(canon(k, ["get", "--bogus", "-n", "a", "-n", "b"], "rule")).toEqual(["get", "--bogus", "--namespace=a", "--namespace=b"]);
  });

  it("a NUL byte is refused even in a rule", () => {
    expect(rejectionOf(k, ["get", "a\0"], "rule").kind).toBe("argv-rejected");
  });
});

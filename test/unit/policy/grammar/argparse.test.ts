/**
 * The argparse model (aws, az): docs/policy.md "argparse (aws, az, gcloud)".
 */
import { describe, expect, it } from "vitest";
import { compileGrammar } from "../../../../src/policy/grammar/option-table.js";
import type { GrammarSpec } from "../../../../src/policy/grammar/types.js";
import { aws, awsSpec, az, azSpec } from "../../../support/grammars.js";
import { canon, canonicalOf, rejectionOf } from "../../../support/policy-helpers.js";

const a = aws();
const z = az();
const awsOpen = compileGrammar(awsSpec, []);

describe("argparse: long options and prefixes", () => {
  it("a long option may be abbreviated to any unambiguous prefix, also in the =value form", () => {
    expect(canon(awsOpen, ["s3", "ls", "--prof", "dev"])).toEqual(["s3", "ls", "--profile=dev"]);
    expect(canon(awsOpen, ["s3", "ls", "--prof=dev"])).toEqual(["s3", "ls", "--profile=dev"]);
    expect(canon(awsOpen, ["s3", "ls", "--p", "dev"])).toEqual(["s3", "ls", "--profile=dev"]);
  });

  it("an ambiguous prefix is refused and the candidates are named", () => {
    const rejection = rejectionOf(awsOpen, ["s3", "ls", "--cli", "5"]);
    expect(rejection.kind).toBe("argv-rejected");
    expect(rejection.reason).toContain("--cli-connect-timeout");
    expect(rejection.reason).toContain("--cli-read-timeout");
  });

  it("an ambiguous prefix that could be a locked option is refused as that locked option", () => {
    expect(rejectionOf(a, ["s3", "ls", "--no"])).toMatchObject({ kind: "locked-option", option: "--no-sign-request" });
  });

  it("an exact name wins over the longer names it prefixes", () => {
    const spec: GrammarSpec = {
      parser: "argparse",
      forbiddenValuePrefixes: [],
      commands: [],
      options: [
        { name: "--verbose", value: "none", repeatable: false },
        { name: "--verbose-level", value: "required", repeatable: false },
      ],
    };
    const g = compileGrammar(spec, []);
    expect(canon(g, ["x", "--verbose"])).toEqual(["x", "--verbose"]);
    expect(rejectionOf(g, ["x", "--verb"]).kind).toBe("argv-rejected");
  });

  it("_ is not - for argparse: --ca_bundle is not --ca-bundle and stays in the body", () => {
    expect(canon(a, ["s3", "ls", "--ca_bundle", "x"])).toEqual(["s3", "ls", "--ca_bundle", "x"]);
  });

  it("a locked option is refused under its exact name, a prefix and the = form", () => {
    for (const argv of [["--endpoint-url", "x"], ["--endpoint", "x"], ["--end=x"], ["--no-verify-ssl"], ["--no-v"]]) {
      expect(rejectionOf(a, ["s3", "ls", ...argv]).kind).toBe("locked-option");
    }
  });

  it("a switch given a value is refused, as argparse does", () => {
    expect(rejectionOf(a, ["s3", "ls", "--debug=1"]).reason).toContain("takes no value");
    expect(rejectionOf(a, ["s3", "ls", "--deb="]).kind).toBe("argv-rejected");
  });

  it("whitespace or non-ASCII in an option name is refused", () => {
    expect(rejectionOf(a, ["s3", "ls", "--foo bar"]).kind).toBe("argv-rejected");
    expect(rejectionOf(a, ["s3", "ls", "--d\u00e9bug"]).kind).toBe("argv-rejected");
  });

  it("--=x is refused; ---x is an unknown token kept in the body, as argparse passes it on", () => {
    expect(rejectionOf(a, ["s3", "--=x"]).kind).toBe("argv-rejected");
    expect(canon(a, ["s3", "---x"])).toEqual(["s3", "---x"]);
  });
});

describe("argparse: body and known options", () => {
  it("known options are moved after the body and sorted by name; unknown options stay in the body in order", () => {
    expect(canon(a, ["--output", "json", "ec2", "describe-instances", "--instance-ids", "i-1", "--debug", "--filters", "Name=x"])).toEqual([
      "ec2",
      "describe-instances",
      "--instance-ids",
      "i-1",
      "--filters",
      "Name=x",
      "--debug",
      "--output=json",
    ]);
  });

  it("a global option before or after the command gives the same canonical argv", () => {
    expect(canon(a, ["--query", "x", "s3", "ls"])).toEqual(canon(a, ["s3", "ls", "--query", "x"]));
  });

  it("a separate value starting with - is refused, - alone and = forms are allowed", () => {
    expect(rejectionOf(a, ["s3", "ls", "--query", "-x"]).reason).toContain("--query=VALUE");
    expect(canon(a, ["s3", "ls", "--query", "-"])).toEqual(["s3", "ls", "--query=-"]);
    expect(canon(a, ["s3", "ls", "--query=-x"])).toEqual(["s3", "ls", "--query=-x"]);
  });

  it("negative numbers are positionals, like argparse with no numeric option", () => {
    expect(canon(a, ["ec2", "x", "-1", "-2.5", "-.5"])).toEqual(["ec2", "x", "-1", "-2.5", "-.5"]);
  });

  it("a single-valued option given twice is refused", () => {
    expect(rejectionOf(a, ["s3", "ls", "--output", "json", "--out=text"]).reason).toContain("more than once");
  });

  it("after -- everything is an argument, and each tail token gets the raw-token checks", () => {
    expect(canonicalOf(z, ["vm", "list", "--", "--subscription=x"])).toEqual({
      positionals: ["vm", "list"],
      options: [],
      hasTail: true,
      tail: ["--subscription=x"],
    });
    expect(rejectionOf(a, ["s3", "cp", "--", "fileb://x"])).toMatchObject({ kind: "forbidden-value", index: 3 });
    expect(rejectionOf(z, ["vm", "create", "--", "@~/.azure/x"])).toMatchObject({ kind: "forbidden-value", index: 3 });
  });
});

describe("argparse: a CLI that drops every -- (aws, double_dash: ignored)", () => {
  it("a -- before the service, after it, after the operation or repeated is dropped: one canonical argv, no tail", () => {
    const plain = canonicalOf(a, ["ec2", "run-instances", "--image-id", "x", "--region-x"]);
    for (const spelled of [
      ["--", "ec2", "run-instances", "--image-id", "x", "--region-x"],
      ["ec2", "--", "run-instances", "--image-id", "x", "--region-x"],
      ["ec2", "run-instances", "--", "--image-id", "x", "--region-x"],
      ["ec2", "--", "--", "run-instances", "--image-id", "--", "x", "--region-x", "--"],
    ]) {
      expect(canonicalOf(a, spelled), spelled.join(" ")).toEqual(plain);
    }
    expect(plain.hasTail).toBe(false);
  });

  it("a global option after a dropped -- is read as the global option (a locked one is refused)", () => {
    expect(rejectionOf(a, ["s3", "ls", "--", "--profile=x"])).toMatchObject({ kind: "locked-option", option: "--profile" });
    expect(rejectionOf(a, ["s3", "--", "ls", "--prof", "x"])).toMatchObject({ kind: "locked-option", option: "--profile" });
    expect(canon(a, ["s3", "--", "ls", "--output", "text"])).toEqual(["s3", "ls", "--output=text"]);
  });
});

describe("argparse: short options (az)", () => {
  it("-o json, -o=json and -ojson are equal", () => {
    for (const spelling of [["-o", "json"], ["-o=json"], ["-ojson"], ["--output", "json"], ["--out=json"]]) {
      expect(canon(z, ["vm", "list", ...spelling])).toEqual(["vm", "list", "--output=json"]);
    }
  });

  it("boolean shorts cluster, and a value-taking short takes the rest", () => {
    expect(canon(z, ["vm", "list", "-hojson"])).toEqual(["vm", "list", "--help", "--output=json"]);
    expect(canon(z, ["vm", "list", "-ho", "json"])).toEqual(["vm", "list", "--help", "--output=json"]);
  });

  it("inside a cluster the value keeps its = (argparse splits at = only for the token's first option)", () => {
    expect(canon(z, ["vm", "list", "-ho=json"])).toEqual(["vm", "list", "--help", "--output==json"]);
    expect(canon(z, ["vm", "list", "-o=json"])).toEqual(["vm", "list", "--output=json"]);
    expect(rejectionOf(z, ["vm", "list", "-hh=1"]).kind).toBe("argv-rejected");
  });

  it("an unknown letter after a boolean short is refused; an unknown single-dash token is the command's own", () => {
    expect(rejectionOf(z, ["vm", "list", "-hz"]).kind).toBe("argv-rejected");
    expect(canon(z, ["vm", "list", "-g", "rg"])).toEqual(["vm", "list", "-g", "rg"]);
  });

  it("a locked global short after a command switch in one cluster is refused (az reads -rS x as -r -S x)", () => {
    const locked = compileGrammar({ ...azSpec, options: [...azSpec.options, { name: "--tenant", short: "-T", value: "required", repeatable: false }] }, [
      "--tenant",
    ]);
    for (const token of ["-rT", "-rTother", "-rqT=other"]) {
      expect(rejectionOf(locked, ["vm", "list", token, "other"]), token).toMatchObject({ kind: "locked-option", option: "--tenant" });
    }
    expect(canon(locked, ["vm", "list", "-rt", "x"])).toEqual(["vm", "list", "-rt", "x"]);
  });

  it("a boolean short with =value is refused", () => {
    expect(rejectionOf(z, ["vm", "list", "-h=1"]).kind).toBe("argv-rejected");
  });

  it("--s is an unambiguous prefix of --subscription and refused as locked", () => {
    expect(rejectionOf(z, ["vm", "list", "--s", "x"])).toMatchObject({ kind: "locked-option", option: "--subscription", token: "--s", index: 2 });
  });

  it("a value starting with @ is refused, also after = and as a separate value", () => {
    for (const argv of [["--parameters", "@p.json"], ["--parameters=@p.json"], ["-o", "@x"], ["@-"]]) {
      expect(rejectionOf(z, ["deployment", "create", ...argv]).kind).toBe("forbidden-value");
    }
  });
});

describe("argparse: rule mode", () => {
  it("a known value-taking option without a value means any value", () => {
    expect(canonicalOf(a, ["s3", "ls", "--output"], "rule").options).toEqual(["--output"]);
  });

  it("locked options are not refused in a rule", () => {
    expect(canon(a, ["s3", "ls", "--prof=x"], "rule")).toEqual(["s3", "ls", "--profile=x"]);
  });
});

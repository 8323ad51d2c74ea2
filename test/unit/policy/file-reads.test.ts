/**
 * Calls that make the CLI read a local path with no marker (`argv.file_reads`):
 * held from broad accept rules and short prefix grants exactly like a file
 * write, in every spelling argparse reads; a value that is empty or `-` reads
 * nothing. Paths into a credential store are refused whatever the rules.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { GrammarSpec } from "../../../src/policy/grammar/types.js";
import { AWS_LOCKED, awsSpec, azSpec, context } from "../../support/grammars.js";
import { ruleList } from "../../support/policy-helpers.js";

const awsReading: GrammarSpec = {
  ...awsSpec,
  fileReads: [
    { command: ["s3api", "put-object"], option: "--body" },
    { command: ["cloudformation", "package"], option: "--template-file" },
  ],
};
const azReading: GrammarSpec = {
  ...azSpec,
  fileReads: [
    { command: ["monitor", "log-analytics", "query-pack", "query", "search"], option: "--tags" },
    { command: ["deployment", "group", "create"], option: "--parameters", short: "-p" },
  ],
};
const gcloudReading: GrammarSpec = { ...azSpec, forbiddenValuePrefixes: [], fileReads: [{ command: ["builds", "submit"], operand: "source" }] };

function decide(spec: GrammarSpec, accept: readonly string[], argv: readonly string[], deny: readonly string[] = []) {
  const tool = spec === awsReading ? "aws" : "az";
  return evaluatePolicy(compilePolicy(context(tool, spec, tool === "aws" ? AWS_LOCKED : ["--subscription"]), { shared: ruleList(deny, accept) }), argv)
    .decision;
}

const PUT = ["s3api", "put-object", "--bucket", "b", "--key", "k"];
const SEARCH = ["monitor", "log-analytics", "query-pack", "query", "search", "-g", "g", "--cluster-name", "q"];
const DEPLOY = ["deployment", "group", "create", "-g", "g", "--template-file", "t.json"];

describe("calls that read a local path with no marker", () => {
  it.each([
    ["--body PATH", [...PUT, "--body", "/home/op/notes.txt"]],
    ["--body=PATH", [...PUT, "--body=/home/op/notes.txt"]],
    ["--bo PATH (a prefix)", [...PUT, "--bo", "/home/op/notes.txt"]],
    ["--bod=PATH", [...PUT, "--bod=notes.txt"]],
    ["before the operation", ["s3api", "--body=notes.txt", "put-object", "--bucket", "b", "--key", "k"]],
  ])("aws %s: a broad accept does not accept it, a rule naming the command does; the hold needs the whole command path", (_name, argv) => {
    const decision = decide(awsReading, ["/.*/", "s3api"], argv);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toContain("s3api put-object reads a local file or directory at the path given by --body");
    expect(decision.reason).not.toContain("notes");
    // A prefix grant must cover the whole command path (`s3api` alone does not fit).
    expect(decision.result === "unresolved" ? decision.fileWrite : undefined).toMatchObject({ command: ["s3api", "put-object"] });
    const hold = decision.result === "unresolved" ? decision.fileWrite : undefined;
    expect(hold?.minimumPrefix).toBeGreaterThanOrEqual(2);
    if (argv[1] === "put-object") expect(decide(awsReading, ["s3api put-object"], argv).result).toBe("accept");
  });

  it.each([
    ["--tags PATH", [...SEARCH, "--tags", "./tags.json"]],
    ["--tags=PATH", [...SEARCH, "--tags=tags.yaml"]],
    ["--ta PATH", [...SEARCH, "--ta", "tags.json"]],
    ["shorthand key=PATH", [...SEARCH, "--tags", "k=./f.json"]],
    ["-p PATH", [...DEPLOY, "-p", "params.json"]],
    ["-pPATH", [...DEPLOY, "-pparams.json"]],
    ["-p=PATH", [...DEPLOY, "-p=params.json"]],
    ["--parameters PATH", [...DEPLOY, "--parameters", "params.json"]],
  ])("az %s: held from a broad accept and a short literal", (_name, argv) => {
    for (const broad of ["/.*/", "/^([a-z0-9][a-z0-9-]* )+(list|show|search|create)( |$)/", argv[0] as string]) {
      const decision = decide(azReading, [broad], argv);
      expect(decision.result, broad).toBe("unresolved");
      expect(decision.reason).toMatch(/reads a local file or directory at the path given by (--tags|--parameters)/u);
    }
    expect(decide(azReading, [argv.slice(0, argv[0] === "monitor" ? 5 : 3).join(" ")], argv).result).toBe("accept");
  });

  it("an empty value or - reads nothing; without the option or without the table the broad rule accepts", () => {
    expect(decide(awsReading, ["/.*/"], [...PUT, "--body", "-"]).result).toBe("accept");
    expect(decide(awsReading, ["/.*/"], [...PUT, "--body="]).result).toBe("accept");
    expect(decide(awsReading, ["/.*/"], PUT).result).toBe("accept");
    expect(decide({ ...awsSpec }, ["/.*/"], [...PUT, "--body", "notes.txt"]).result).toBe("accept");
  });

  it("an operand row holds every call of its command (no SOURCE uploads the working directory)", () => {
    expect(decide(gcloudReading, ["/.*/"], ["builds", "submit"]).result).toBe("unresolved");
    expect(decide(gcloudReading, ["/.*/"], ["builds", "submit", "./app"]).reason).toContain("by its source operand");
    expect(decide(gcloudReading, ["builds submit"], ["builds", "submit", "./app"]).result).toBe("accept");
    expect(decide(gcloudReading, ["/.*/"], ["builds", "list"]).result).toBe("accept");
  });

  it("deny rules still decide first", () => {
    expect(decide(awsReading, ["s3api put-object"], [...PUT, "--body", "x"], ["s3api put-object"]).result).toBe("deny");
  });
});

describe("paths into a credential store", () => {
  it.each([
    ["~/.aws/credentials", ".aws"],
    ["/root/.AWS/credentials", ".aws"],
    ["../../.azure/msal_token_cache.json", ".azure"],
    ["k=~/.azure/azureProfile.json", ".azure"],
    ["C:\\Users\\op\\.kube\\config", ".kube"],
    ["~/.config/gcloud/credentials.db", ".config/gcloud"],
    ["/home/op/.config/torii/providers/aws/.env", ".config/torii"],
    ["credentials.db", "credentials.db"],
    ["msal_token_cache.json", "msal_token_cache.json"],
    [".env", ".env"],
    ["./prod.env", ".env"],
    ["app/.env.local", ".env"],
    // Dot segments resolved, Windows' dropped trailing dots (merged-diff review).
    ["~/.config/./torii/rules.yaml", ".config/torii"],
    ["/root/.config/./gcloud/properties", ".config/gcloud"],
    ["~/.config/x/../gcloud/configurations", ".config/gcloud"],
    ["C:\\Users\\a\\.aws.\\credentials", ".aws"],
    // A folder that holds every store below it.
    ["~", "the home directory"],
    ["~/", "the home directory"],
    ["/home/op/.config", ".config"],
    ["~/.config/", ".config"],
  ])("%s is refused whatever the rules, naming the store and not the value", (value, store) => {
    for (const argv of [
      [...PUT, "--body", value],
      [...PUT, `--body=${value}`],
      [...PUT, "--metadata", `k=${value}`],
    ]) {
      const decision = decide(awsReading, ["/.*/", "s3api put-object"], argv);
      expect(decision).toMatchObject({ result: "deny", source: "forbidden-value" });
      expect(decision.reason).toContain(`(${store})`);
      if (value !== store) expect(decision.reason).not.toContain(value);
    }
    const az = decide(azReading, ["/.*/"], [...SEARCH, "--tags", value]);
    expect(az).toMatchObject({ result: "deny", source: "forbidden-value" });
  });

  it("names that only resemble a store stay up to the rules", () => {
    for (const value of ["s3://b/aws/credentials", "/home/op/.aws-old/x", "environment", "credentials", "my.envoy"]) {
      expect(decide(awsReading, ["/.*/"], [...PUT, "--key", value]).result, value).toBe("accept");
    }
  });
});

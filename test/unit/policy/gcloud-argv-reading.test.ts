/**
 * gcloud reads its argv in two ways argparse alone does not (docs/policy.md,
 * "argparse"): it scans the whole argv for `--configuration` and `--flags-file`
 * before parsing (named_configs._FindFlagValue, calliope cli._ApplyFlagsFile),
 * so they act after `--` and among operands too (`argv.prescanned_options`);
 * and it reads no abbreviated flag (parser_extensions._get_option_tuples), so
 * `--config` is a command's own flag, not `--configuration` (`argv.abbreviations:
 * none`). Through the bundled gcloud provider as the server builds it, and the
 * schema and grammar fields on their own.
 */
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { providerPolicyContext } from "../../../src/config/policy-context.js";
import { loadProviderDocument, toGrammarSpec } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { canonicalise } from "../../../src/policy/grammar/canonicalise.js";
import { compileGrammar } from "../../../src/policy/grammar/option-table.js";
import type { GrammarSpec } from "../../../src/policy/grammar/types.js";
import { bundledPolicyContext, bundledProviderConfig, canon, rejectionOf, ruleList } from "../../support/policy-helpers.js";
import { expectConfigErrorAt, tempDir, writeTree, yaml } from "../config/temp-tree.js";

const gcloud = bundledPolicyContext("gcloud");
// Broad rules for the commands below, so only the grammar's reading can refuse them.
const ACCEPT = ["dataproc", "info", "help", "builds", "deployment-manager", "compute instances list"];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(gcloud, { shared: ruleList([], ACCEPT) }), argv).decision;
const SPARK = ["dataproc", "jobs", "submit", "spark", "--cluster=c", "--region=r", "--class=Main"];

describe("gcloud: --configuration and --flags-file are read at any position", () => {
  it.each([
    ["after --, = form", [...SPARK, "--", "--configuration=other"]],
    ["after --, separate value", [...SPARK, "--", "arg", "--configuration", "other"]],
    ["a flags file after --", [...SPARK, "--", "--flags-file=/tmp/f.yaml"]],
    ["a flags file after --, separate value", [...SPARK, "--", "--flags-file", "/tmp/f.yaml"]],
    ["a flags file as an operand after a command flag", ["compute", "instances", "list", "--filter", "x", "--", "--flags-file=f.yaml"]],
    ["before the command", ["--configuration=other", "info"]],
  ])("%s is refused as the locked option", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decision.reason).toMatch(/--configuration|--flags-file/u);
  });

  it("the same call without them stays up to the rules, and a job argument that only resembles them runs", () => {
    expect(decide([...SPARK, "--", "arg"]).result).toBe("accept");
    // gcloud compares the whole word or `--name=`: a longer flag name is not the prescanned one.
    expect(decide([...SPARK, "--", "--configuration-file=x", "--flags-filex"]).result).toBe("accept");
  });

  it("property: a call that runs, with either one inserted at any place, is never accepted by the grammar", () => {
    const grammar = compileGrammar(gcloud.grammar, gcloud.lockedOptions);
    const word = fc.constantFrom("compute", "instances", "list", "vm-1", "--zone=z", "--format=json", "--filter", "name:x", "--quiet", "--", "arg", "-q");
    const prescanned = fc.constantFrom("--configuration=other", "--configuration", "--flags-file=f.yaml", "--flags-file", "--flags-file=-");
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), prescanned, fc.nat(), (argv, token, at) => {
        fc.pre(canonicalise(argv, grammar).ok);
        const inserted = [...argv.slice(0, at % (argv.length + 1)), token, ...argv.slice(at % (argv.length + 1))];
        expect(canonicalise(inserted, grammar).ok).toBe(false);
      }),
      { seed: 20261202, numRuns: 400 },
    );
  });

  it("the provider names exactly gcloud's two prescanned flags, each of them locked", () => {
    const argv = bundledProviderConfig("gcloud").argv;
    expect(argv?.prescanned_options).toEqual(["--configuration", "--flags-file"]);
    for (const name of argv?.prescanned_options ?? []) expect(gcloud.lockedOptions).toContain(name);
  });
});

describe("gcloud: no abbreviated flags", () => {
  const grammar = compileGrammar(gcloud.grammar, gcloud.lockedOptions);

  it("a prefix of a global flag is the command's own token, not the global flag", () => {
    expect(canon(grammar, ["info", "--verb=debug"])).toEqual(["info", "--verb=debug"]);
    expect(canon(grammar, ["info", "--form", "json"])).toEqual(["info", "--form", "json"]);
  });

  it("a command's own --config (builds submit, deployment-manager) is not read as the locked --configuration", () => {
    expect(decide(["deployment-manager", "deployments", "create", "d", "--config=app.yaml"]).result).toBe("accept");
    expect(canon(grammar, ["builds", "submit", "--config", "cloudbuild.yaml", "--no-source"])).toEqual([
      "builds",
      "submit",
      "--config",
      "cloudbuild.yaml",
      "--no-source",
    ]);
  });

  it("full names of locked flags are still refused in both forms", () => {
    expect(rejectionOf(grammar, ["info", "--project=other"])).toMatchObject({ kind: "locked-option", option: "--project" });
    expect(rejectionOf(grammar, ["info", "--account", "a@b"])).toMatchObject({ kind: "locked-option", option: "--account" });
  });
});

describe("a gcloud provider.yaml installed before prescanned_options and abbreviations (the parser floor)", () => {
  /** The bundled gcloud provider without the two fields, as an operator tree installed earlier holds it. */
  function olderTree(command = "gcloud") {
    const config = { ...bundledProviderConfig("gcloud"), command };
    if (config.argv !== undefined) {
      delete config.argv.prescanned_options;
      delete config.argv.abbreviations;
    }
    return providerPolicyContext(config);
  }
  const decideOlder = (argv: readonly string[], command?: string) =>
    evaluatePolicy(compilePolicy(olderTree(command), { shared: ruleList([], ["/.*/"]) }), argv).decision;

  it.each([
    ["gcloud", ["compute", "instances", "list", "--", "--configuration=other"]],
    ["gcloud", [...SPARK, "--", "--flags-file", "/tmp/f.yaml"]],
    ["/usr/lib/google-cloud-sdk/bin/gcloud", ["compute", "instances", "list", "--", "--configuration", "other"]],
    ["C:\\Program Files\\Google\\Cloud SDK\\bin\\gcloud.cmd", ["compute", "instances", "list", "--", "--configuration=other"]],
  ])("%s: %j is refused under accept /.*/", (command, argv) => {
    expect(decideOlder(argv, command)).toMatchObject({ result: "deny" });
  });

  it("reads no abbreviated flag: a command's own --config is not the locked --configuration", () => {
    expect(decideOlder(["deployment-manager", "deployments", "create", "d", "--config=app.yaml"]).result).toBe("accept");
    expect(canon(compileGrammar(olderTree().grammar, olderTree().lockedOptions), ["info", "--verb=debug"])).toEqual(["info", "--verb=debug"]);
  });
});

describe("argv.prescanned_options and argv.abbreviations on their own", () => {
  const spec: GrammarSpec = {
    parser: "argparse",
    forbiddenValuePrefixes: [],
    commands: [],
    options: [{ name: "--profile", value: "required", repeatable: false }],
  };

  it("abbreviations: none reads only full names; the default reads prefixes", () => {
    expect(canon(compileGrammar(spec, []), ["x", "--prof=a"])).toEqual(["x", "--profile=a"]);
    expect(canon(compileGrammar({ ...spec, abbreviations: "none" }, []), ["x", "--prof=a"])).toEqual(["x", "--prof=a"]);
  });

  it("a prescanned option is locked even when the locked list omits it, and refused after -- too", () => {
    const grammar = compileGrammar({ ...spec, prescannedOptions: ["--setup"] }, []);
    expect(rejectionOf(grammar, ["x", "--", "--setup=y"])).toMatchObject({ kind: "locked-option", option: "--setup", index: 2 });
    expect(rejectionOf(grammar, ["x", "--setup", "y"])).toMatchObject({ kind: "locked-option", option: "--setup" });
    // Rule text is read leniently: an operator's rule is never refused for naming it.
    expect(canon(grammar, ["x", "--", "--setup=y"], "rule")).toEqual(["x", "--", "--setup=y"]);
  });

  it("the schema refuses a prescanned option that is not locked, abbreviations off argparse, and a repeat", () => {
    const root = tempDir();
    const file = path.join(root, "provider.yaml");
    const head = ['version: "1"', "name: g", "tool: g", "command: g", "targeting:", "  locked_options: [--setup]", "argv:"];
    writeTree(root, { "provider.yaml": yaml(...head, "  parser: argparse", "  prescanned_options: [--setup, --other]") });
    expectConfigErrorAt(() => loadProviderDocument(file), file, 9, 33, /--other must be a locked option/u);
    writeTree(root, { "provider.yaml": yaml(...head, "  parser: argparse", "  prescanned_options: [--setup, --setup]") });
    expectConfigErrorAt(() => loadProviderDocument(file), file, 9, 33, /listed more than once/u);
    writeTree(root, { "provider.yaml": yaml(...head, "  parser: pflag", "  abbreviations: none") });
    expectConfigErrorAt(() => loadProviderDocument(file), file, 9, 18, /argparse parser only/u);
    writeTree(root, { "provider.yaml": yaml(...head, "  parser: argparse", "  abbreviations: none", "  prescanned_options: [--setup]") });
    expect(toGrammarSpec(loadProviderDocument(file).value)).toMatchObject({ abbreviations: "none", prescannedOptions: ["--setup"] });
  });
});

describe("gcloud: removed_env holds what switches gcloud's parser or interpreter", () => {
  it.each(["_ARGCOMPLETE", "_ARGCOMPLETE_*", "_ARC_DEBUG", "COMP_LINE", "COMP_POINT", "COMP_WORDBREAKS", "VIRTUAL_ENV", "CLOUDSDK_*"])("%s", (name) => {
    expect(bundledProviderConfig("gcloud").auth?.removed_env).toContain(name);
  });
});

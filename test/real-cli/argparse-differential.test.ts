/**
 * P7 (threats.md §4): the argparse model against Python's real argparse (3.11),
 * set up with the AWS CLI v1 global options exactly as the installed `awscli`
 * package declares them (awscli/data/cli.json), and with the az test grammar.
 *
 * The oracle (test/support/argparse_oracle.py) is spawned once per file, with
 * argv only and no shell, and fed a few thousand argv sampled by fast-check with
 * a fixed seed. With no locked options our model only expands prefixes, so:
 *
 *  - whenever ours accepts, Python accepts, reads the same options with the same
 *    values, and leaves exactly our body (positionals, unknown options, `--` tail);
 *  - whenever Python refuses (ambiguous prefix, missing value, explicit argument
 *    on a switch…), ours refuses;
 *  - where ours refuses and Python accepts, the refusal is one of the documented
 *    conservative ones (dash-leading separate value, repeated option, whitespace
 *    or non-ASCII in an option name), checked against what Python actually read.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalise } from "../../src/policy/grammar/canonicalise.js";
import { compileGrammar, type CompiledGrammar } from "../../src/policy/grammar/option-table.js";
import type { CanonicalArgv, GrammarSpec, OptionSpec } from "../../src/policy/grammar/types.js";
import { azSpec } from "../support/grammars.js";
import { testPython } from "../support/test-python.js";

const ORACLE = fileURLToPath(new URL("../support/argparse_oracle.py", import.meta.url));
const SEED = 20261130;
const SAMPLES = 2500;

type OracleResponse =
  { error: string; kind: "syntax" } | { occurrences: [string, string | true][]; extras: string[]; error: string | null; kind: "value" | null };

/**
 * One oracle process. `describe` asks for the AWS options (an answer the oracle flushes at once); `askLast`
 * sends the remaining requests, ends the oracle's input (it flushes the rest when its input ends) and
 * resolves to their answers, in order, once it has exited cleanly.
 */
interface Oracle {
  describe(): Promise<unknown>;
  askLast(requests: readonly unknown[]): Promise<unknown[]>;
}

/** Starts the oracle. The file asks it twice (the AWS options, then every argv built from them): one python process, not two. */
function startOracle(): Oracle {
  // .ci/run exports TORII_TEST_PYTHON: a python3 that can import awscli.
  const child = spawn(testPython(), [ORACLE], { stdio: ["pipe", "pipe", "pipe"], shell: false });
  let pending = "";
  let stderr = "";
  const lines: string[] = [];
  /** The ask waiting for its answers: how many, and what to call when they have come. */
  let waiting: { count: number; resolve: (answers: unknown[]) => void; reject: (error: Error) => void } | undefined;
  const deliver = (): void => {
    if (waiting === undefined || lines.length < waiting.count) return;
    const { count, resolve } = waiting;
    waiting = undefined;
    resolve(lines.splice(0, count).map((line) => JSON.parse(line) as unknown));
  };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (pending + chunk).split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts.filter((line) => line !== ""));
    deliver();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  // An oracle that exits before answering fails the ask waiting on it instead of leaving it hanging.
  void exited.then(
    (code) => waiting?.reject(new Error(`argparse oracle exited with ${String(code)} after ${String(lines.length)} answers: ${stderr}`)),
    (error: unknown) => waiting?.reject(error instanceof Error ? error : new Error(String(error))),
  );
  const ask = (requests: readonly unknown[], last: boolean): Promise<unknown[]> =>
    new Promise((resolve, reject) => {
      waiting = { count: requests.length, resolve, reject };
      const text = requests.map((request) => JSON.stringify(request)).join("\n") + "\n";
      if (last) child.stdin.end(text);
      else child.stdin.write(text);
      deliver();
    });
  return {
    async describe() {
      const [description] = await ask([{ describe: "aws" }], false);
      return description;
    },
    async askLast(requests) {
      const answers = await ask(requests, true);
      const code = await exited;
      if (code !== 0) throw new Error(`argparse oracle exited with ${String(code)}: ${stderr}`);
      if (lines.length > 0 || pending !== "") throw new Error(`argparse oracle answered ${String(lines.length)} more lines than it was asked`);
      return answers;
    },
  };
}

// ---------------------------------------------------------------------------
// argv generation: option names, all their prefixes (ambiguous ones included),
// `=value` forms, words, dash-leading values, `--`, unknown options, spaces.
// ---------------------------------------------------------------------------

function tokenPool(options: readonly OptionSpec[], extra: readonly string[]): string[] {
  const tokens = new Set<string>([
    "s3",
    "ls",
    "ec2",
    "describe-instances",
    "json",
    "text",
    "xml",
    "on",
    "auto",
    "5",
    "x",
    "",
    "-",
    "-1",
    "-2.5",
    "-x",
    "--",
    "--foo",
    "--foo=bar",
    "--instance-ids",
    "i-1",
    "---x",
    "--=x",
    "-x y",
    "--foo bar",
    "a b",
    ...extra,
  ]);
  for (const option of options) {
    for (let length = 3; length <= option.name.length; length += 1) {
      const prefix = option.name.slice(0, length);
      tokens.add(prefix);
      tokens.add(`${prefix}=json`);
      tokens.add(`${prefix}=`);
    }
    tokens.add(`${option.name} x`);
  }
  return [...tokens].sort();
}

function sampleArgv(pool: readonly string[], seed: number): string[][] {
  return fc.sample(fc.array(fc.constantFrom(...pool), { maxLength: 7 }), { seed, numRuns: SAMPLES });
}

// ---------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------

/** Our canonical options as [name, value|true] pairs. */
function ourOccurrences(canonical: CanonicalArgv, grammar: CompiledGrammar): [string, string | true][] {
  return canonical.options.map((token) => {
    const equals = token.indexOf("=");
    const name = equals === -1 ? token : token.slice(0, equals);
    const spec = grammar.global.byLong.get(name);
    if (spec === undefined) throw new Error(`canonical option ${token} is not in the table`);
    return equals === -1 ? [name, true] : [name, token.slice(equals + 1)];
  });
}

const sortPairs = (pairs: readonly [string, string | true][]): string[] => pairs.map((pair) => JSON.stringify(pair)).sort();

/** The documented conservative refusals (docs/policy.md), by reason. */
type Refusal = "dash-leading-value" | "repeated-option" | "option-name-characters";

function refusalKind(reason: string): Refusal | undefined {
  if (reason.includes('starts with "-"')) return "dash-leading-value";
  if (reason.includes("more than once")) return "repeated-option";
  if (reason.includes("non-ASCII, control or space")) return "option-name-characters";
  return undefined;
}

interface Findings {
  bothAccept: number;
  bothRefuse: number;
  pythonValueErrors: number;
  refusals: Record<Refusal, number>;
}

function compare(parser: string, grammar: CompiledGrammar, argvs: readonly string[][], answers: readonly unknown[]): Findings {
  const findings: Findings = {
    bothAccept: 0,
    bothRefuse: 0,
    pythonValueErrors: 0,
    refusals: { "dash-leading-value": 0, "repeated-option": 0, "option-name-characters": 0 },
  };
  argvs.forEach((argv, i) => {
    const python = answers[i] as OracleResponse;
    const ours = canonicalise(argv, grammar, "agent");
    const where = `${parser} ${JSON.stringify(argv)}: python ${JSON.stringify(python)}, ours ${JSON.stringify(ours)}`;
    if (ours.ok) {
      // Ours accepts: Python reads the same options and leaves our body.
      expect(python.kind, where).not.toBe("syntax");
      if ("occurrences" in python) {
        if (python.kind === "value") findings.pythonValueErrors += 1;
        expect(sortPairs(ourOccurrences(ours.canonical, grammar)), where).toEqual(sortPairs(python.occurrences));
        const body = [...ours.canonical.positionals, ...(ours.canonical.hasTail ? ["--", ...ours.canonical.tail] : [])];
        expect(body, where).toEqual(python.extras);
      }
      findings.bothAccept += 1;
      return;
    }
    if (python.kind === "syntax") {
      findings.bothRefuse += 1;
      return;
    }
    // Ours refuses, Python accepts: only a documented conservative refusal, and
    // Python's reading must show the reason is real.
    const kind = refusalKind(ours.rejection.reason);
    expect(kind, where).toBeDefined();
    if (kind === undefined) return;
    findings.refusals[kind] += 1;
    const names = python.occurrences.map(([name]) => name);
    if (kind === "repeated-option") {
      expect(new Set(names).size, where).toBeLessThan(names.length);
    } else if (kind === "dash-leading-value") {
      // Python took a dash-leading value as a separate token (argparse reads `-1` or
      // a token with a space as a value) or the token was the option's own value.
      const separate = python.occurrences.some(([, value]) => typeof value === "string" && value.startsWith("-"));
      expect(separate, where).toBe(true);
    } else {
      // The token has whitespace or a non-ASCII character where an option name is; Python saw a positional.
      expect(
        argv.some((token) => token.startsWith("-") && /\s|[^\x21-\x7e]/u.test(token.split("=")[0] ?? "")),
        where,
      ).toBe(true);
    }
  });
  return findings;
}

// ---------------------------------------------------------------------------

const AZ_NAME = "az-test-grammar";

/**
 * Pinned argv with the relation each must show (also sent to the oracle), so
 * the known agreements and refusals are checked whatever the sample contains.
 */
const PINNED: readonly { parser: "aws" | "az"; argv: string[]; relation: "same" | "both-refuse" | Refusal }[] = [
  { parser: "aws", argv: ["--prof", "x", "s3", "ls"], relation: "same" },
  { parser: "aws", argv: ["s3", "ls", "--reg=eu-west-1", "--endpoint", "https://x"], relation: "same" },
  { parser: "aws", argv: ["--ca_bundle", "x", "s3"], relation: "same" },
  { parser: "aws", argv: ["--output", "xml", "s3"], relation: "same" },
  { parser: "aws", argv: ["s3", "--", "--profile=x"], relation: "same" },
  { parser: "aws", argv: ["--no", "s3"], relation: "both-refuse" },
  { parser: "aws", argv: ["--cli", "5"], relation: "both-refuse" },
  { parser: "aws", argv: ["--debug=1"], relation: "both-refuse" },
  { parser: "aws", argv: ["s3", "--region"], relation: "both-refuse" },
  { parser: "aws", argv: ["--region", "--debug"], relation: "both-refuse" },
  { parser: "aws", argv: ["--=x"], relation: "both-refuse" },
  { parser: "aws", argv: ["--region", "-1"], relation: "dash-leading-value" },
  { parser: "aws", argv: ["--query", "-a b"], relation: "dash-leading-value" },
  { parser: "aws", argv: ["--region", "a", "--reg", "b"], relation: "repeated-option" },
  { parser: "aws", argv: ["--prof x", "s3"], relation: "option-name-characters" },
  { parser: "az", argv: ["vm", "-ho=json"], relation: "same" },
  { parser: "az", argv: ["vm", "-hojson", "-g", "rg"], relation: "same" },
  { parser: "az", argv: ["vm", "--o", "json"], relation: "both-refuse" },
  { parser: "az", argv: ["vm", "-hx"], relation: "both-refuse" },
  { parser: "az", argv: ["vm", "-h=1"], relation: "both-refuse" },
];
let awsGrammar: CompiledGrammar;
let awsOptions: OptionSpec[];
const azGrammar = compileGrammar(azSpec, []);
let awsArgv: string[][];
let azArgv: string[][];
let answers: unknown[];

beforeAll(async () => {
  const oracle = startOracle();
  const description = (await oracle.describe()) as { options: { name: string; value: "none" | "required" }[] };
  awsOptions = description.options.map((option) => ({ name: option.name, value: option.value, repeatable: false }));
  const spec: GrammarSpec = { parser: "argparse", options: awsOptions, commands: [], forbiddenValuePrefixes: [] };
  awsGrammar = compileGrammar(spec, []);
  awsArgv = sampleArgv(tokenPool(awsOptions, []), SEED);
  azArgv = sampleArgv(tokenPool(azSpec.options, ["-o", "-ojson", "-o=json", "-ho", "-hojson", "-ho=json", "-hh", "-h=1", "-hx", "-oh", "-h-"]), SEED + 1);
  // The same oracle process for the rest of the file: define the az parser, then every argv.
  answers = await oracle.askLast([
    { define: AZ_NAME, options: azSpec.options },
    ...awsArgv.map((argv) => ({ parser: "aws", argv })),
    ...azArgv.map((argv) => ({ parser: AZ_NAME, argv })),
    ...PINNED.map((pin) => ({ parser: pin.parser === "az" ? AZ_NAME : "aws", argv: pin.argv })),
  ]);
});

describe("argparse model vs Python argparse", () => {
  it("the oracle declares the AWS CLI global options of the installed awscli (switches and value options)", () => {
    const names = awsOptions.map((option) => option.name);
    expect(names).toEqual(
      expect.arrayContaining(["--debug", "--endpoint-url", "--no-verify-ssl", "--profile", "--region", "--ca-bundle", "--cli-read-timeout"]),
    );
    expect(awsOptions.find((option) => option.name === "--no-verify-ssl")?.value).toBe("none");
    expect(awsOptions.find((option) => option.name === "--region")?.value).toBe("required");
  });

  it("AWS CLI global parser: ours accepts ⇒ Python reads the same; Python refuses ⇒ ours refuses; other refusals are documented", () => {
    const findings = compare("aws", awsGrammar, awsArgv, answers.slice(1, 1 + awsArgv.length));
    if (process.env.TORII_DIFF_REPORT === "1") console.error("aws", JSON.stringify(findings));
    // The sample must exercise every branch, or the comparison proves little.
    expect(findings.bothAccept).toBeGreaterThan(SAMPLES / 10);
    expect(findings.bothRefuse).toBeGreaterThan(SAMPLES / 10);
    expect(findings.pythonValueErrors).toBeGreaterThan(0);
    expect(findings.refusals["dash-leading-value"]).toBeGreaterThan(0);
    expect(findings.refusals["repeated-option"]).toBeGreaterThan(0);
    expect(findings.refusals["option-name-characters"]).toBeGreaterThan(0);
  });

  it("az test grammar (short options, clusters): the same three relations hold", () => {
    const findings = compare("az", azGrammar, azArgv, answers.slice(1 + awsArgv.length, 1 + awsArgv.length + azArgv.length));
    if (process.env.TORII_DIFF_REPORT === "1") console.error("az", JSON.stringify(findings));
    expect(findings.bothAccept).toBeGreaterThan(SAMPLES / 10);
    expect(findings.bothRefuse).toBeGreaterThan(SAMPLES / 10);
    expect(findings.refusals["repeated-option"]).toBeGreaterThan(0);
  });

  it.each(PINNED.map((pin, i) => [pin.relation, pin.parser, JSON.stringify(pin.argv), i] as const))("pinned: %s (%s %s)", (relation, parser, _argv, i) => {
    const pin = PINNED[i]!;
    const grammar = parser === "az" ? azGrammar : awsGrammar;
    const python = answers[1 + awsArgv.length + azArgv.length + i] as OracleResponse;
    const ours = canonicalise(pin.argv, grammar, "agent");
    const where = `${JSON.stringify(python)} / ${JSON.stringify(ours)}`;
    if (relation === "both-refuse") {
      expect(python.kind, where).toBe("syntax");
      expect(ours.ok, where).toBe(false);
    } else if (relation === "same") {
      expect(ours.ok && "occurrences" in python, where).toBe(true);
      compare(parser, grammar, [pin.argv], [python]);
    } else {
      expect(python.kind, where).not.toBe("syntax");
      expect(ours.ok ? undefined : refusalKind(ours.rejection.reason), where).toBe(relation);
      compare(parser, grammar, [pin.argv], [python]);
    }
  });
});

/**
 * The command-table index against the full scan it replaced, over the bundled
 * providers' real tables (file writes and reads, locked commands, command-scoped
 * locked options, their floors included): a second copy of the policy modules,
 * whose rowsStartingWith hands back every row, is the full scan. Calls are a
 * table row's command path bent the ways an agent may spell it (a word
 * upper-cased or cut to a prefix, a release track before it, a word left out,
 * `--`, an option or a group word put between its words) and both copies must
 * find the same write, read, locked-command rejection and decision. (vi.doMock:
 * the file runs in the isolated project, vitest.config.ts.)
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { ProviderPolicyContext } from "../../../../src/policy/types.js";
import { compilePolicy } from "../../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../../src/policy/evaluate.js";
import { localFileRead } from "../../../../src/policy/file-reads.js";
import { localFileWrite } from "../../../../src/policy/file-writes.js";
import { findLockedCommandUse, type ParsedArgv } from "../../../../src/policy/grammar/locked-commands.js";
import type { CompiledGrammar } from "../../../../src/policy/grammar/option-table.js";
import { bundledPolicyContext, ruleList } from "../../../support/policy-helpers.js";
import { propertyRuns } from "../../../support/property-runs.js";

interface PolicyModules {
  readonly compilePolicy: typeof compilePolicy;
  readonly evaluatePolicy: typeof evaluatePolicy;
  readonly localFileRead: typeof localFileRead;
  readonly localFileWrite: typeof localFileWrite;
  readonly findLockedCommandUse: typeof findLockedCommandUse;
}

/** The policy modules as they were before the index: every row a candidate, in table order. */
async function fullScanModules(): Promise<PolicyModules> {
  vi.doMock("../../../../src/policy/grammar/rows-by-leading-words.js", () => ({ rowsStartingWith: <Row>(rows: readonly Row[]) => rows }));
  vi.resetModules();
  try {
    const [compile, evaluate, reads, writes, locked] = await Promise.all([
      import("../../../../src/policy/compile.js"),
      import("../../../../src/policy/evaluate.js"),
      import("../../../../src/policy/file-reads.js"),
      import("../../../../src/policy/file-writes.js"),
      import("../../../../src/policy/grammar/locked-commands.js"),
    ]);
    return {
      compilePolicy: compile.compilePolicy,
      evaluatePolicy: evaluate.evaluatePolicy,
      localFileRead: reads.localFileRead,
      localFileWrite: writes.localFileWrite,
      findLockedCommandUse: locked.findLockedCommandUse,
    };
  } finally {
    vi.doUnmock("../../../../src/policy/grammar/rows-by-leading-words.js");
  }
}

const indexed: PolicyModules = { compilePolicy, evaluatePolicy, localFileRead, localFileWrite, findLockedCommandUse };
let fullScan: PolicyModules;

beforeAll(async () => {
  fullScan = await fullScanModules();
  // The copies differ: the full scan's module is not the indexed one.
  expect(fullScan.localFileWrite).not.toBe(localFileWrite);
});

/** Every command path and option name the grammar's command tables hold. */
function tableWords(grammar: CompiledGrammar): { paths: string[][]; options: string[]; tokens: string[] } {
  const rows = [...grammar.fileWrites, ...grammar.fileReads, ...grammar.lockedCommands, ...grammar.lockedCommandOptions];
  const paths = rows.map((row) => [...row.command]);
  const options = [
    ...grammar.fileWrites.flatMap((row) => [row.option, row.short]),
    ...grammar.fileReads.flatMap((row) => [row.option, row.short]),
    ...grammar.lockedCommandOptions.flatMap((row) => row.options),
    ...grammar.parentOptions.flatMap((row) => [...row.values, ...row.switches]),
  ].filter((option): option is string => option !== undefined);
  const tokens = [...new Set([...paths.flat(), ...options, ...grammar.lockedCommands.flatMap((row) => row.except)])].sort();
  return {
    paths,
    options: options.length === 0 ? ["--x"] : [...new Set(options)].sort(),
    tokens: [...tokens, "--", "-", "beta", "alpha", "preview", "x", "127.0.0.1:1", "0.0.0.0:1"],
  };
}

/** A row's path as an agent may spell it. */
function callArb(grammar: CompiledGrammar): fc.Arbitrary<string[]> {
  const { paths, options, tokens } = tableWords(grammar);
  return fc
    .record({
      path: fc.constantFrom(...paths),
      inserts: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...tokens)), { maxLength: 4 }),
      drop: fc.option(fc.nat(), { nil: undefined }),
      upper: fc.option(fc.nat(), { nil: undefined }),
      cut: fc.option(fc.nat(), { nil: undefined }),
      tail: fc.array(fc.constantFrom(...tokens), { maxLength: 3 }),
      // An option before the path (with a value or none): the canonical positionals then differ from the command words.
      lead: fc.option(fc.tuple(fc.constantFrom(...options), fc.option(fc.constantFrom(...tokens), { nil: undefined })), { nil: undefined }),
    })
    .map(({ path, inserts, drop, upper, cut, tail, lead }) => {
      const argv = [...path];
      if (upper !== undefined && argv.length > 0) argv[upper % argv.length] = (argv[upper % argv.length] as string).toUpperCase();
      if (cut !== undefined && argv.length > 0) {
        const at = cut % argv.length;
        argv[at] = (argv[at] as string).slice(0, Math.max(1, Math.ceil((argv[at] as string).length / 2)));
      }
      if (drop !== undefined && argv.length > 0) argv.splice(drop % argv.length, 1);
      for (const [at, token] of inserts) argv.splice(at % (argv.length + 1), 0, token);
      const before = lead === undefined ? [] : lead[1] === undefined ? [lead[0]] : [lead[0], lead[1]];
      return [...before, ...argv, ...tail];
    });
}

/** The call as findLockedCommandUse reads a parse: words before `--` are positionals (options left in the body), the rest the tail. */
function parsed(argv: readonly string[]): ParsedArgv {
  const dash = argv.indexOf("--");
  const sites = argv.map((token, index) => ({ token, index }));
  return dash === -1 ? { positionals: sites, options: [], tail: [] } : { positionals: sites.slice(0, dash), options: [], tail: sites.slice(dash + 1) };
}

describe.each(["aws", "az", "gcloud", "kubectl"])("the %s tables: the index finds what the full scan finds", (provider) => {
  const context: ProviderPolicyContext = bundledPolicyContext(provider);
  const rules = { shared: ruleList([], ["/.*/"]) };

  it("for file writes and reads, locked commands and options, and the decision", () => {
    const policy = indexed.compilePolicy(context, rules);
    const scanned = fullScan.compilePolicy(context, rules);
    const grammar = policy.grammar;
    expect(grammar.fileWrites.length + grammar.fileReads.length + grammar.lockedCommands.length + grammar.lockedCommandOptions.length).toBeGreaterThan(0);
    fc.assert(
      fc.property(callArb(grammar), (argv) => {
        const call = { positionals: argv, options: argv.filter((token) => token.startsWith("--") && token !== "--") };
        expect(indexed.localFileWrite(grammar, call)).toEqual(fullScan.localFileWrite(grammar, call));
        expect(indexed.localFileRead(grammar, call)).toEqual(fullScan.localFileRead(grammar, call));
        const tables = [grammar.lockedCommands, grammar.lockedCommandOptions, grammar.parentOptions] as const;
        expect(indexed.findLockedCommandUse(parsed(argv), ...tables)).toEqual(fullScan.findLockedCommandUse(parsed(argv), ...tables));
        expect(indexed.evaluatePolicy(policy, argv).decision).toEqual(fullScan.evaluatePolicy(scanned, argv).decision);
      }),
      { numRuns: propertyRuns(800) },
    );
  });
});

describe("a table the operator edits is indexed afresh", () => {
  it("a locked command added to the same grammar after a call was evaluated refuses that call", () => {
    const context = bundledPolicyContext("kubectl");
    const rules = { shared: ruleList([], ["/.*/"]) };
    const argv = ["get", "configmaps", "--namespace", "team-a"];
    expect(evaluatePolicy(compilePolicy(context, rules), argv).decision.result).toBe("accept");
    // As a reload reads an edited provider.yaml: the same grammar spec, another locked-command table.
    const edited = {
      ...context,
      lockedCommands: [...(context.lockedCommands ?? []), { command: ["get", "configmaps"], except: [], why: "an operator's edit" }],
    };
    const decision = evaluatePolicy(compilePolicy(edited, rules), argv).decision;
    expect(decision.result).toBe("deny");
    expect(decision.reason).toContain("an operator's edit");
    // And the table before the edit still reads as it did.
    expect(evaluatePolicy(compilePolicy(context, rules), argv).decision.result).toBe("accept");
  });
});

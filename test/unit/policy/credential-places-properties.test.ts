/**
 * Properties of the credential-place refusal (red team 11 F2): any path inside
 * or above a credential store, in any mix of the spellings a CLI resolves
 * without a shell (case folding with ſ and the Kelvin sign, trailing dots,
 * 8.3 short names, globs, `x/..` detours, either separator, `~`, `$HOME`, a
 * relative path from the child's working directory), is refused, and as an
 * `s3 sync` source under a rule accepting it is denied; paths in a project
 * under /tmp are not refused. fast-check with a fixed seed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { credentialPlaceIn, type CredentialPlaces } from "../../../src/policy/grammar/credential-places.js";
import { AWS_LOCKED, awsSpec, context } from "../../support/grammars.js";
import { ruleList } from "../../support/policy-helpers.js";
import { propertyRuns } from "../../support/property-runs.js";

const PLACES: CredentialPlaces = {
  homes: ["/home/alice"],
  cwd: "/tmp/proj",
  userName: "alice",
  stores: ["/srv/torii", "/srv/kube/prod.yaml"],
  variables: { HOME: "/home/alice" },
};
const params = { seed: 20261211, numRuns: propertyRuns(1000), plugins: [fc.interruptAfterTimeLimit(60_000, { failOnInterrupt: true })] };
const policy = compilePolicy(context("aws", awsSpec, AWS_LOCKED), { shared: ruleList([], ["s3 sync"]) });

/** Store paths (segments below `/`), each a store or a file inside one. */
const STORES = [
  ["home", "alice", ".aws", "credentials"],
  ["home", "alice", ".config", "gcloud", "credentials.db"],
  ["home", "alice", ".azure", "msal_token_cache.json"],
  ["home", "alice", ".kube", "config"],
  ["home", "bob", ".kube"],
  ["root", ".aws", "config"],
  ["srv", "torii", "providers", "aws", ".env"],
  ["srv", "kube", "prod.yaml"],
];
const SPELLINGS = ["as-is", "upper", "long-s", "kelvin", "trailing-dot", "short", "glob-first", "glob-last", "detour"] as const;
type Spelling = (typeof SPELLINGS)[number];

/** One segment as a CLI on a case-insensitive file system still resolves it to the same name. */
function spell(segment: string, how: Spelling): string[] {
  const squashed = segment.replace(/[. ]/gu, "").slice(0, 6).toUpperCase();
  switch (how) {
    case "as-is":
      return [segment];
    case "upper":
      return [segment.toUpperCase()];
    case "long-s":
      return [segment.replaceAll("s", "\u017F")];
    case "kelvin":
      return [segment.replaceAll("k", "\u212A")];
    case "trailing-dot":
      return [`${segment}.`];
    case "short":
      return squashed === "" ? [segment] : [`${squashed}~1`];
    case "glob-first":
      return [`?${segment.slice(1)}`];
    case "glob-last":
      return [`${segment.slice(0, -1)}*`];
    case "detour":
      return ["zz", "..", segment];
  }
}

const placeArb = fc
  .record({
    store: fc.constantFrom(...STORES),
    cut: fc.nat(),
    below: fc.array(fc.stringMatching(/^[a-z0-9_-]{1,8}$/u), { maxLength: 2 }),
    spellings: fc.array(fc.constantFrom(...SPELLINGS), { minLength: 8, maxLength: 8 }),
    separator: fc.constantFrom("/", "\\", "//"),
    start: fc.constantFrom("absolute", "tilde", "home-variable", "relative"),
  })
  .map(({ store, cut, below, spellings, separator, start }) => {
    const length = cut % (store.length + 1);
    const segments = length === store.length ? [...store, ...below] : store.slice(0, length);
    const inHome = segments[0] === "home" && segments[1] === "alice";
    const rest = start !== "absolute" && start !== "relative" && inHome ? segments.slice(2) : segments;
    const head = rest === segments ? (start === "relative" ? "../.." : "") : start === "tilde" ? "~" : "$HOME";
    const written = rest.flatMap((segment, i) => spell(segment, spellings[i % spellings.length] ?? "as-is"));
    return head === "" && written.length === 0 ? "/" : [head, ...written].join(separator);
  });

describe("credential places, as properties", () => {
  it("any spelling of a path inside or above a store is refused, and denied as an s3 sync source under `s3 sync`", () => {
    fc.assert(
      fc.property(placeArb, (token) => {
        expect(credentialPlaceIn(token, PLACES), token).toBeDefined();
        expect(evaluatePolicy(policy, ["s3", "sync", token, "s3://b/"], PLACES).decision, token).toMatchObject({ result: "deny", source: "forbidden-value" });
      }),
      params,
    );
  });

  it("paths in the project under /tmp are left to the rules, written relative or absolute", () => {
    const projectArb = fc
      .tuple(fc.array(fc.stringMatching(/^[a-z0-9_-]{1,10}$/u), { minLength: 1, maxLength: 4 }), fc.constantFrom("./", "", "/tmp/proj/"))
      .map(([segments, head]) => `${head}${segments.join("/")}`);
    fc.assert(
      fc.property(projectArb, (token) => {
        expect(credentialPlaceIn(token, PLACES), token).toBeUndefined();
      }),
      params,
    );
  });
});

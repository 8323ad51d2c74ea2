/**
 * Differential check of urllib-proxy.ts against CPython's own urllib (the
 * python3 on PATH, or TORII_TEST_PYTHON): whenever some environment order
 * makes Python use a proxy for a destination (bypass check on the netloc, then
 * the scheme's proxy, as botocore asks), proxyFor must name one. The oracle
 * (test/support/urllib_oracle.py) calls only urllib's environment functions:
 * no network. Skipped when no python3 runs.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { fc } from "../support/property-test.js";
import { proxyFor } from "../../src/pipeline/identity/urllib-proxy.js";
import { testInterpreter, testPython } from "../support/test-python.js";

const ORACLE = fileURLToPath(new URL("../support/urllib_oracle.py", import.meta.url));
const PYTHON = testPython();
// A python that starts has urllib (the standard library): the interpreter the global setup resolved, no probe process.
const hasPython = testInterpreter() !== undefined;

test.skipIf(!hasPython)("proxyFor is never laxer than Python's urllib", () => {
  const name = fc.constantFrom(
    "HTTPS_PROXY",
    "https_proxy",
    "Https_Proxy",
    "HTTPS_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "No_Proxy",
    "NO_proxy",
    "ALL_PROXY",
    "REQUEST_METHOD",
  );
  const value = fc.oneof(
    fc.constantFrom(
      "",
      "http://p:1",
      "*",
      " *",
      "*,",
      ",*",
      "sts.internal",
      ".internal",
      "STS.INTERNAL",
      "sts.internal:8443",
      "internal:",
      "[::1]",
      "::1",
      "127.0.0.1",
      "localhost, sts.internal",
      "..internal",
      "\x85internal",
      "sts.internal\t",
      "a,,b",
      ":8443",
    ),
    fc.string({ maxLength: 6 }),
  );
  const env = fc.uniqueArray(fc.tuple(name, value), { selector: ([n]) => n, maxLength: 5 });
  const dest = fc.tuple(
    fc.constantFrom("https", "http"),
    fc.constantFrom(
      "sts.internal",
      "sts.internal:8443",
      "STS.Internal:443",
      "x.sts.internal",
      "[::1]:8443",
      "127.0.0.1:1",
      "internal",
      "sts.internal.",
      "sts.internal:",
      "169.254.169.254",
      "[fd00:ec2::254]",
    ),
  );
  // 1000 fixed-seed cases (every order of up to five variables each) keep the oracle near a second.
  const cases = fc.sample(fc.record({ env, dests: fc.array(dest, { minLength: 1, maxLength: 4 }) }), { numRuns: 1000, seed: 7 });
  const answers = JSON.parse(execFileSync(PYTHON, [ORACLE], { input: JSON.stringify(cases), maxBuffer: 1 << 26, shell: false }).toString()) as boolean[][];
  expect(answers).toHaveLength(cases.length);
  const lax: unknown[] = [];
  cases.forEach((c, i) => {
    c.dests.forEach(([scheme, netloc], j) => {
      const torii = proxyFor(Object.fromEntries(c.env), { scheme, netloc }) !== undefined;
      if (answers[i]?.[j] === true && !torii) lax.push({ env: c.env, scheme, netloc });
    });
  });
  expect(lax.slice(0, 5)).toEqual([]);
});

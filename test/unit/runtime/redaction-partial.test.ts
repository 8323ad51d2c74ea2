/**
 * A program that prints part of a long secret (partial-values.ts): a run of
 * 23 or more of its characters is masked but for less than a block (12
 * characters) at each edge; a short piece (the last 4 characters of a key) is
 * not; the fixed text of a structured value is not masked in ordinary output;
 * and the masking is no oracle for the character after a known piece.
 */
import { describe, expect, test } from "vitest";
import { createRedactor } from "../../../src/runtime/redaction.js";

const KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY";
const MARK = "[redacted:AWS_SECRET_ACCESS_KEY]";
const redactor = createRedactor([{ name: "AWS_SECRET_ACCESS_KEY", value: KEY }]);

describe("a part of a long value", () => {
  test("90 % of it, from either end, is masked but for less than a block at each edge", () => {
    const head = KEY.slice(0, 36);
    const tail = KEY.slice(4);
    for (const part of [head, tail, KEY.slice(5, 35)]) {
      const out = redactor.redact(`secret: ${part}…`);
      expect(out, part).toContain(MARK);
      // What is left of the part is its edges, each shorter than a block.
      const left = out.replace("secret: ", "").replace("…", "").split(MARK);
      for (const piece of left) expect(piece.length, part).toBeLessThan(12);
    }
  });

  test("the last 4 characters, or a short prefix, are left as they are; 23 characters are not", () => {
    expect(redactor.redact(KEY.slice(0, 23))).toContain(MARK);
    for (const text of [`****************${KEY.slice(-4)}`, `${KEY.slice(0, 8)}…`, `key ${KEY.slice(-11)}`]) expect(redactor.redact(text)).toBe(text);
  });

  test("a PEM key printed in part (re-wrapped, cut short) is masked", () => {
    const body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs";
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${body.match(/.{1,64}/gu)?.join("\n") ?? ""}\n-----END RSA PRIVATE KEY-----\n`;
    const pemRedactor = createRedactor([{ name: "TLS_KEY", value: pem }]);
    const printed = `-----BEGIN RSA PRIVATE KEY-----\n${
      body
        .slice(0, 80)
        .match(/.{1,40}/gu)
        ?.join("\n") ?? ""
    }\n(truncated)`;
    const out = pemRedactor.redact(printed);
    expect(out).toContain("[redacted:TLS_KEY]");
    expect(out).not.toContain(body.slice(12, 24));
  });
});

describe("ordinary output", () => {
  test("the fixed text of a structured value is not masked elsewhere", () => {
    const url = createRedactor([{ name: "DATABASE_URL", value: "postgres://app_user:Xq8vR2mT9wLpZ4k@db.internal:5432/app" }]);
    const log = "connecting to postgres://app_user:****@db.internal:5432/app\n";
    expect(url.redact(log)).toBe(log);
    // The password's block is masked where it is printed, with or without the rest.
    expect(url.redact("login app_user Xq8vR2mT9wLpZ4k@db")).toContain("[redacted:DATABASE_URL]");
    const pem = createRedactor([
      { name: "TLS_KEY", value: `-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSj\n-----END PRIVATE KEY-----\n` },
    ]);
    const cert = "-----BEGIN PUBLIC KEY-----\n-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n";
    expect(pem.redact(cert)).toBe(cert);
    // A value naming a file shares its directories with the other paths the program prints.
    const path = createRedactor([{ name: "KUBECONFIG", value: "/tmp/torii-run-0vvN1q/kubeconfig.yaml" }]);
    const printed = "PATH=/tmp/torii-run-0vvN1q/bin:/usr/bin\n";
    expect(path.redact(printed)).toBe(printed);
  });
});

describe("a random value that starts like a path", () => {
  test("a key starting with `/` (1 base64 key in 64) still has its pieces masked", () => {
    const slashKey = "/K7MDENGbPxRfiCYzEXAMPLEKEYwJalrXUtnFEMIq";
    const slashRedactor = createRedactor([{ name: "AWS_SECRET_ACCESS_KEY", value: slashKey }]);
    const out = slashRedactor.redact(`secret: ${slashKey.slice(1, 37)}…`);
    expect(out).toContain(MARK);
    expect(out).not.toContain(slashKey.slice(12, 24));
    expect(out).not.toContain(slashKey.slice(24, 36));
  });
});

describe("ordinary cloud output around a structured value", () => {
  test("a region, an endpoint or an account number that a value holds is not masked in other names", () => {
    const values = createRedactor([
      { name: "IMAGE", value: "123456789012.dkr.ecr.us-east-1.amazonaws.com/app:v1" },
      { name: "KUBE_CONTEXT", value: "arn:aws:eks:us-east-1:123456789012:cluster/prod" },
      { name: "ROLE", value: "arn:aws:iam::123456789012:role/deploy-role-prod" },
    ]);
    const output = [
      '"Endpoint": "https://sts.us-east-1.amazonaws.com"',
      '"Arn": "arn:aws:eks:us-east-1:123456789012:cluster/staging"',
      '"Arn": "arn:aws:iam::123456789012:role/deploy-role-staging"',
      "",
    ].join("\n");
    expect(values.redact(output)).toBe(output);
  });
});

describe("no oracle for the next character", () => {
  test("a known start of the value followed by each guess redacts alike whether the guess is right or not", () => {
    // An agent that knows the first 17 characters (more than a block) learns nothing of the 18th.
    const known = KEY.slice(0, 17);
    const outputs = new Set<string>();
    for (const guess of [KEY[17] ?? "", "A", "b", "7", "/"]) {
      const out = redactor.redact(`${known}${guess}`);
      expect(out.endsWith(guess)).toBe(true);
      outputs.add(out.slice(0, -1));
    }
    expect(outputs.size).toBe(1);
    // The known block itself is masked: the rule is on, and still says nothing of the guess.
    expect([...outputs][0]).toContain(MARK);
  });
});

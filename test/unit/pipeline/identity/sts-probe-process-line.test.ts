/**
 * The relative credential_process check read as /bin/sh and shlex.split read the
 * line (process-line.ts); kept beside sts-probe.test.ts, which another branch edits.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { stsInputsOf } from "../../../../src/pipeline/identity/aws-call-plan.js";
import { processLineRunsFromWorkingDirectory } from "../../../../src/pipeline/identity/process-line.js";
import { probeCallerIdentity, runsFromWorkingDirectory } from "../../../../src/pipeline/identity/sts-probe.js";
import { startStsStub, type StsStub } from "../../../support/sts-stub.js";
import { tempDirectory } from "../../../support/temp-dirs.js";
import { herePlace } from "../../../support/process-place.js";

describe("runsFromWorkingDirectory splits the line as /bin/sh (SDK) and shlex.split (botocore) do", () => {
  // python3 -c 'import shlex; print(shlex.split(LINE)[0])' prints the relative program for each of these;
  // /bin/sh -c LINE runs it from the working directory too.
  test.each([
    ['"x"/creds', "x/creds"],
    ['""./creds', "./creds"],
    ["''./creds", "./creds"],
    ['a"b c/d"', "ab c/d"],
    ["x\u00a0y/creds", "x\u00a0y/creds"], // U+00A0 is \s for JS, not a separator for shlex or sh
    ["'./a b' x", "./a b"],
    ['"./unclosed x', "(shlex raises)"],
    ["./trailing\\", "(shlex raises)"],
    ['"" --flag', ""],
    ["creds; ./evil", "(sh runs ./evil second)"],
    ["creds && ./evil", "(sh runs ./evil second)"],
    ["PATH=. creds", "(sh searches . for creds)"],
    ["a\rb/creds", "a\rb/creds (sh does not split on \\r)"],
    ["~/bin/creds", "~/bin/creds (shlex leaves ~)"],
  ])("%j runs %j from the working directory", (line) => {
    expect(runsFromWorkingDirectory(line)).toBe(true);
  });

  test.each(["/usr/local/bin/creds --x", '"/opt/my creds/x" a', "'/opt/x'/y --json", "aws-vault export --format=json prod", "bin\\ name --x", "\t creds"])(
    "%j runs an absolute or PATH program",
    (line) => {
      expect(runsFromWorkingDirectory(line)).toBe(false);
    },
  );
});

describe("on Windows a backslash separates directories (cmd.exe, botocore's Windows splitter)", () => {
  test.each(["bin\\creds", '"bin"\\creds --x', "C:creds", "..\\x\u00a0y"])("%j runs from the working directory", (line) => {
    expect(processLineRunsFromWorkingDirectory(line, "win32")).toBe(true);
  });
  test.each(["C:\\tools\\creds.exe --x", '"C:\\Program Files\\x\\creds.exe" a', "aws-vault export --format=json prod"])("%j does not", (line) => {
    expect(processLineRunsFromWorkingDirectory(line, "win32")).toBe(false);
  });
});

describe("the SDK's source order is not the CLI's (botocore: web identity, SSO, credentials file, process, config-file keys)", () => {
  let stub: StsStub;
  let dir: string;
  beforeAll(async () => {
    stub = await startStsStub({ identities: { AKIAONE: { account: "111111111111" } } });
    dir = tempDirectory("torii-rev-secrets-");
  });
  afterAll(async () => stub.close());

  test("static keys in the config file beside a relative credential_process: the CLI runs the process, the check must refuse", async () => {
    const planted = path.join(dir, "planted");
    const marker = path.join(dir, "planted-ran");
    writeFileSync(planted, `#!/bin/sh\ntouch '${marker}'\necho '{"Version": 1, "AccessKeyId": "AKIAONE", "SecretAccessKey": "x"}'\n`, { mode: 0o755 });
    const config = path.join(dir, "config");
    writeFileSync(
      config,
      `[profile mixed]\nregion = eu-west-1\nendpoint_url = ${stub.url}\naws_access_key_id = AKIAONE\naws_secret_access_key = s3cr3t\ncredential_process = ${path.relative(process.cwd(), planted)}\n`,
    );
    writeFileSync(path.join(dir, "credentials"), "");
    const inputs = stsInputsOf(
      { HOME: dir, AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: path.join(dir, "credentials") },
      "mixed",
      undefined,
      herePlace(),
    );
    const result = await probeCallerIdentity(inputs, new AbortController().signal);
    // Refused before anything runs: the mixed sources are ambiguous (credential-chain.ts) and the process is relative.
    // Before: { kind: "identity", account: "111111111111", cacheable: true } — the SDK used the static keys.
    expect(result).toMatchObject({ kind: "failed", code: expect.stringMatching(/^(?:AmbiguousCredentialSource|RelativeCredentialProcess)$/u) });
    expect(existsSync(marker)).toBe(false);
  });

  test("a quoted relative directory: the SDK's probe itself runs the planted program from the working directory", async () => {
    // A directory right in the working directory (the agent's project), named without a slash.
    const sub = mkdtempSync(path.join(process.cwd(), "rev-q-"));
    onTestFinished(() => rmSync(sub, { recursive: true, force: true }));
    const planted = path.join(sub, "planted");
    const marker = path.join(sub, "planted-ran");
    writeFileSync(planted, `#!/bin/sh\ntouch '${marker}'\necho '{"Version": 1, "AccessKeyId": "AKIAONE", "SecretAccessKey": "x"}'\n`, { mode: 0o755 });
    const relativeDir = path.relative(process.cwd(), sub);
    const config = path.join(sub, "config");
    // `"dir"/planted`: sh and shlex both read ./dir/planted; runsFromWorkingDirectory reads the program as `dir`.
    writeFileSync(config, `[profile q]\nregion = eu-west-1\nendpoint_url = ${stub.url}\ncredential_process = "${relativeDir}"/planted\n`);
    writeFileSync(path.join(sub, "credentials"), "");
    const inputs = stsInputsOf({ HOME: sub, AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: path.join(sub, "credentials") }, "q", undefined, herePlace());
    const result = await probeCallerIdentity(inputs, new AbortController().signal);
    // expected: RelativeCredentialProcess, nothing run; actual: identity 111111111111 and the planted program ran
    // The refusal says what to write instead (before: no detail, the operator read only the code).
    expect(result).toMatchObject({ kind: "failed", code: "RelativeCredentialProcess", detail: expect.stringContaining("absolute path") });
    expect(existsSync(marker)).toBe(false);
  });
});

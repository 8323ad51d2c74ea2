/**
 * The account check against the real AWS SDK and the local STS stub, for the
 * identity residuals of the attack round: a `credential_process` runs with the
 * child's environment and place, as under the CLI, and an interpreter's script
 * is held to a program's rule; `source_profile` loops, the legacy
 * `aws_security_token` and blank region variables are refused before anything
 * is sent or run; each AWS file is read once per check.
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, createReadStream, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { externalDataInterceptor } from "@smithy/core/config";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { stsInputsOf, type ProcessPlace } from "../../../../src/pipeline/identity/aws-call-plan.js";
import { probeCallerIdentity } from "../../../../src/pipeline/identity/sts-probe.js";
import { startStsStub, type StsStub } from "../../../support/sts-stub.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;
const CREDENTIALS_JSON = '{"Version": 1, "AccessKeyId": "AKIAPROC", "SecretAccessKey": "proc-secret"}';

let stub: StsStub;
let top: string;
/** The child's working directory: the agent's project. */
let project: string;
const saved = { ...process.env };

beforeAll(async () => {
  stub = await startStsStub({ identities: { AKIAPROC: { account: "111111111111" }, AKIAONE: { account: "222222222222" } } });
  top = tempDirectory("torii-child-process-");
  project = path.join(top, "project");
  mkdirSync(project);
});

afterAll(async () => {
  for (const key of ["TORII_PROBE_MARK", "TORII_SERVER_ONLY"]) {
    if (saved[key] === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = saved[key];
  }
  await stub.close();
});

/** The place of a child running in `cwd` (the project unless told). */
function placeIn(cwd: string = project): ProcessPlace {
  return { cwd, selfDir: path.join(top, "torii"), platform: process.platform };
}

let counter = 0;
/** Probes profile `p` (or `options.profile`) of a fresh config (with `credentials`), the child's environment `env` on top of the files and PATH. */
async function probeWith(
  config: string,
  options: { credentials?: string; env?: Record<string, string>; cwd?: string; region?: string; profile?: string } = {},
) {
  counter += 1;
  const dir = path.join(top, `files-${String(counter)}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "config"), config);
  writeFileSync(path.join(dir, "credentials"), options.credentials ?? "");
  const env = {
    HOME: dir,
    PATH: "/usr/local/bin:/usr/bin:/bin",
    AWS_CONFIG_FILE: path.join(dir, "config"),
    AWS_SHARED_CREDENTIALS_FILE: path.join(dir, "credentials"),
    ...options.env,
  };
  return probeCallerIdentity(stsInputsOf(env, options.profile ?? "p", options.region, placeIn(options.cwd)), new AbortController().signal);
}

const profile = (name: string, lines: string): string => `[profile ${name}]\nregion = eu-west-1\nendpoint_url = ${stub.url}\n${lines}`;

/** An executable script at `file` that leaves `marker` and prints credentials. */
function helper(file: string, marker: string, body = ""): void {
  writeFileSync(file, `#!/bin/sh\n${body}touch '${marker}'\necho '${CREDENTIALS_JSON}'\n`);
  chmodSync(file, 0o755);
}

/** A Python script at `file` that leaves `marker` and prints credentials. */
function pythonHelper(file: string, marker: string): void {
  writeFileSync(file, `open(${JSON.stringify(marker)}, "w").close()\nprint(${JSON.stringify(CREDENTIALS_JSON)})\n`);
}

posixOnly("a credential_process runs with the child's environment and place, as under the CLI", () => {
  test("the helper sees the child's variables and working directory, never the server's", async () => {
    const trusted = path.join(top, "trusted-env");
    mkdirSync(trusted);
    const record = path.join(top, "env-record");
    const marker = path.join(top, "env-ran");
    helper(path.join(trusted, "creds"), marker, `printf '%s|%s|%s' "$TORII_PROBE_MARK" "\${TORII_SERVER_ONLY-unset}" "$(pwd)" > '${record}'\n`);
    // The server's own environment says otherwise: the probe must not hand it to the helper.
    process.env.TORII_PROBE_MARK = "server-value";
    process.env.TORII_SERVER_ONLY = "leaked";
    const result = await probeWith(profile("p", `credential_process = ${path.join(trusted, "creds")} --json\n`), { env: { TORII_PROBE_MARK: "child-value" } });
    expect(result).toMatchObject({ kind: "identity", account: "111111111111" });
    // Before: "server-value|leaked|<the server's working directory>" (the SDK's exec with the server's environment).
    expect(readFileSync(record, "utf8")).toBe(`child-value|unset|${project}`);
  });

  test("a bare program name is found through the child's PATH, not the server's", async () => {
    const childBin = path.join(top, "child-bin");
    const serverBin = path.join(top, "server-bin");
    mkdirSync(childBin);
    mkdirSync(serverBin);
    const childMarker = path.join(top, "child-bin-ran");
    const serverMarker = path.join(top, "server-bin-ran");
    helper(path.join(childBin, "torii-path-helper"), childMarker);
    helper(path.join(serverBin, "torii-path-helper"), serverMarker);
    const savedPath = process.env.PATH;
    process.env.PATH = `${serverBin}:/usr/bin:/bin`;
    onTestFinished(() => {
      process.env.PATH = savedPath;
    });
    const result = await probeWith(profile("p", "credential_process = torii-path-helper\n"), { env: { PATH: `${childBin}:/usr/bin:/bin` } });
    expect(result).toMatchObject({ kind: "identity", account: "111111111111" });
    expect(existsSync(childMarker)).toBe(true);
    expect(existsSync(serverMarker)).toBe(false);
  });
});

/**
 * The runner and the files' snapshot reach the SDK through internal hooks
 * (externalDataInterceptor's token and file records). An SDK that stops
 * reading either must not make the check fall back to the SDK's own ways (its
 * exec runs the line through /bin/sh with the server's environment, its
 * reader reads the files again): every check is refused instead, naming the fix.
 */
posixOnly("an SDK that no longer takes the runner or the snapshot fails the check closed", () => {
  function trustedHelper(name: string): { readonly line: string; readonly marker: string } {
    const dir = path.join(top, name);
    mkdirSync(dir);
    const marker = path.join(top, `${name}-ran`);
    helper(path.join(dir, "creds"), marker);
    return { line: `credential_process = ${path.join(dir, "creds")}\n`, marker };
  }

  test("the runner missing from the SDK's token record: refused, the helper never runs with the server's environment", async () => {
    const record = externalDataInterceptor.getTokenRecord();
    const runner = record.exec;
    Reflect.deleteProperty(record, "exec");
    onTestFinished(() => {
      record.exec = runner;
    });
    const { line, marker } = trustedHelper("hook-exec");
    const before = stub.requests.length;
    const result = await probeWith(profile("p", line));
    // Before: { kind: "identity" }, the helper having run through the SDK's exec, with the server's environment.
    expect(result).toMatchObject({ kind: "failed", code: "SdkHooksMissing", detail: expect.stringContaining("npm ci") });
    expect(existsSync(marker)).toBe(false);
    expect(stub.requests.length).toBe(before);
  });

  test("the SDK's file record ignored: refused before the SDK reads the files again", async () => {
    const original = externalDataInterceptor.interceptFile.bind(externalDataInterceptor);
    externalDataInterceptor.interceptFile = () => undefined;
    onTestFinished(() => {
      externalDataInterceptor.interceptFile = original;
    });
    const { line, marker } = trustedHelper("hook-file");
    const result = await probeWith(profile("p", line));
    // Before: { kind: "identity" }, the SDK having read the files again.
    expect(result).toMatchObject({ kind: "failed", code: "SdkHooksMissing" });
    expect(existsSync(marker)).toBe(false);
  });
});

posixOnly("a credential_process still running when the check ends", () => {
  test("one that ignores SIGTERM is killed all the same", async () => {
    const dir = path.join(top, "stubborn");
    mkdirSync(dir);
    const fifo = path.join(dir, "alive");
    execFileSync("mkfifo", [fifo]);
    // SIGTERM ignored, kept across exec; `sleep` holds the FIFO open until it dies, so its end is the FIFO's.
    const file = path.join(dir, "creds");
    writeFileSync(file, `#!/bin/sh\ntrap '' TERM\nexec 3>"$TORII_ALIVE"\necho up >&3\nexec sleep 1000\n`);
    chmodSync(file, 0o755);
    const alive = createReadStream(fifo, { encoding: "utf8" });
    const up = once(alive, "data");
    const gone = once(alive, "end");
    alive.resume();
    const controller = new AbortController();
    counter += 1;
    const files = path.join(top, `files-${String(counter)}`);
    mkdirSync(files);
    writeFileSync(path.join(files, "config"), profile("p", `credential_process = ${file}\n`));
    writeFileSync(path.join(files, "credentials"), "");
    const env = {
      HOME: files,
      PATH: "/usr/bin:/bin",
      AWS_CONFIG_FILE: path.join(files, "config"),
      AWS_SHARED_CREDENTIALS_FILE: path.join(files, "credentials"),
      TORII_ALIVE: fifo,
    };
    const result = probeCallerIdentity(stsInputsOf(env, "p", undefined, placeIn()), controller.signal);
    await up;
    controller.abort();
    await expect(result).resolves.toEqual({ kind: "canceled" });
    // Before: the helper outlived the check (SIGTERM, the signal's default kill, ignored): the FIFO never ends.
    await gone;
  });
});

/**
 * `python3 creds.py`: the interpreter is found through PATH, the script in the
 * working directory (the agent's project). The script must be absolute and pass
 * the program's trust rule; options that read code are refused with it.
 */
posixOnly("an interpreter's script is held to the rule of a program", () => {
  /** A script planted in the server's working directory (where the SDK's own exec ran it) and in the child's. */
  function planted(name: string, write: (file: string, marker: string) => void): { readonly marker: string } {
    const marker = path.join(top, `${name}-ran`);
    for (const dir of [process.cwd(), project]) {
      const file = path.join(dir, name);
      write(file, marker);
      onTestFinished(() => rmSync(file, { force: true }));
    }
    return { marker };
  }

  test.each([
    ["python3 torii_planted_a.py", "torii_planted_a.py", pythonHelper],
    ["python3 -m torii_planted_b", "torii_planted_b.py", pythonHelper],
    ["sh torii_planted_c.sh", "torii_planted_c.sh", helper],
    ["/bin/sh torii_planted_d.sh --json", "torii_planted_d.sh", helper],
    ["env python3 torii_planted_e.py", "torii_planted_e.py", pythonHelper],
  ])("%j is refused and the planted script never runs", async (line, name, write) => {
    const { marker } = planted(name, write);
    const before = stub.requests.length;
    const result = await probeWith(profile("p", `credential_process = ${line}\n`));
    // Before: { kind: "identity", account: "111111111111" }, the planted script having run from the working directory.
    expect(result).toMatchObject({ kind: "failed", code: "CredentialProcessRefused" });
    expect(existsSync(marker)).toBe(false);
    expect(stub.requests.length).toBe(before);
    // The detail says what to change and never repeats the line's words.
    expect(JSON.stringify(result)).not.toContain("torii_planted");
  });

  /** A program in a trusted directory, `body` its shell script: it reads or runs what its arguments name. */
  function trustedProgram(name: string, body: string): string {
    const dir = path.join(top, `trusted-${name}`);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  // A program that is on no list: a reader of scripts (`sed -f`, `gdb -x`, `vim -S`, `m4`, `expect`) takes
  // its code from a bare relative name, which is the project's file: refused by what the argument names.
  test("a program on no list given a bare relative file of the working directory: refused, the file never read", async () => {
    const reader = trustedProgram("torii-script-reader", 'while [ "$1" = -f ]; do shift; done; exec /bin/sh "$1"');
    const { marker } = planted("torii_planted_f.sh", helper);
    // A link to nothing yet: the agent can make its target after the check.
    const dangling = path.join(project, "torii_dangling_f.sh");
    symlinkSync(path.join(top, "not-yet-there.sh"), dangling);
    onTestFinished(() => rmSync(dangling, { force: true }));
    for (const line of [`${reader} -f torii_planted_f.sh`, `${reader} --script=torii_planted_f.sh`, `${reader} -f torii_dangling_f.sh`]) {
      const result = await probeWith(profile("p", `credential_process = ${line}\n`));
      // Before: { kind: "identity" }, the planted script having run from the working directory.
      expect(result).toMatchObject({ kind: "failed", code: "CredentialProcessRefused", detail: expect.stringContaining("absolute") });
      expect(existsSync(marker)).toBe(false);
      expect(JSON.stringify(result)).not.toContain("torii_planted");
    }
  });

  // A tracer, namespace or sandbox wrapper runs the program after it: `strace python3 -m x` is `python3 -m x`.
  test.each(["strace", "unshare", "ltrace", "firejail", "setpriv", "valgrind"])(
    "%s before an interpreter is refused like env, and the planted module never runs",
    async (wrapper) => {
      const file = trustedProgram(wrapper, 'exec "$@"');
      const { marker } = planted("torii_planted_g.py", pythonHelper);
      const result = await probeWith(profile("p", `credential_process = ${file} python3 -m torii_planted_g\n`));
      // Before: { kind: "identity" }, the planted module having run from the working directory.
      expect(result).toMatchObject({ kind: "failed", code: "CredentialProcessRefused" });
      expect(existsSync(marker)).toBe(false);
    },
  );

  // Interpreter names beyond a plain version: free-threaded (`python3.13t`), debug builds, IPython.
  test.each(["python3.13t", "python3.12-dbg", "python3m", "ipython3", "jython"])("%s -m is refused like python3 -m", async (name) => {
    const file = trustedProgram(name, 'exec python3 "$@"');
    const { marker } = planted("torii_planted_i.py", pythonHelper);
    const result = await probeWith(profile("p", `credential_process = ${file} -m torii_planted_i\n`));
    // Before: { kind: "identity" }, the planted module having run from the working directory.
    expect(result).toMatchObject({ kind: "failed", code: "CredentialProcessRefused" });
    expect(existsSync(marker)).toBe(false);
  });

  // A version manager's shim (asdf, pyenv, rbenv, mise: `~/.asdf/shims/aws-vault`) picks the program it runs by
  // files of the working directory (`.tool-versions` may name `path:` anything): the project chooses what runs.
  test("a version manager's shim is refused: it picks what to run by the working directory's files", async () => {
    const shims = path.join(top, "version-manager", "shims");
    mkdirSync(shims, { recursive: true });
    const shim = path.join(shims, "torii-cred-helper");
    writeFileSync(shim, '#!/bin/sh\nexec /bin/sh "$(cat .torii-tool-version)"\n');
    chmodSync(shim, 0o755);
    const { marker } = planted("torii_planted_h.sh", helper);
    for (const dir of [process.cwd(), project]) {
      writeFileSync(path.join(dir, ".torii-tool-version"), path.join(dir, "torii_planted_h.sh"));
      onTestFinished(() => rmSync(path.join(dir, ".torii-tool-version"), { force: true }));
    }
    const result = await probeWith(profile("p", `credential_process = ${shim} export --format=json\n`));
    // Before: { kind: "identity" }, the shim having run the script the project's version file named.
    expect(result).toMatchObject({ kind: "failed", code: "CredentialProcessRefused", detail: expect.stringContaining("shim") });
    expect(existsSync(marker)).toBe(false);
  });

  test("an absolute script others can write is refused like a program there; the same script in a trusted place runs", async () => {
    const open = path.join(top, "world-writable");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const openMarker = path.join(top, "open-script-ran");
    helper(path.join(open, "creds.sh"), openMarker);
    const refused = await probeWith(profile("p", `credential_process = /bin/sh ${path.join(open, "creds.sh")}\n`));
    // Before: identity, the script in the world-writable directory having run.
    expect(refused).toMatchObject({ kind: "failed", code: "CredentialProcessRefused" });
    expect(existsSync(openMarker)).toBe(false);

    const trusted = path.join(top, "trusted-script");
    mkdirSync(trusted);
    const marker = path.join(top, "trusted-script-ran");
    helper(path.join(trusted, "creds.sh"), marker);
    await expect(probeWith(profile("p", `credential_process = /bin/sh ${path.join(trusted, "creds.sh")}\n`))).resolves.toMatchObject({
      kind: "identity",
      account: "111111111111",
    });
    expect(existsSync(marker)).toBe(true);
  });

  test("an absolute program others can write is refused", async () => {
    const open = path.join(top, "world-writable-program");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const marker = path.join(top, "open-program-ran");
    helper(path.join(open, "creds"), marker);
    const result = await probeWith(profile("p", `credential_process = ${path.join(open, "creds")}\n`));
    expect(result).toMatchObject({ kind: "failed", code: "CredentialProcessRefused" });
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a source_profile loop is refused before anything is read from STS or run", () => {
  const ROLE = "role_arn = arn:aws:iam::111111111111:role/R\n";
  test.each([
    ["a -> a", [["p", "p"]], "p -> p"],
    [
      "a -> b -> a",
      [
        ["p", "b"],
        ["b", "p"],
      ],
      "p -> b -> p",
    ],
    [
      "a -> b -> c -> b",
      [
        ["p", "b"],
        ["b", "c"],
        ["c", "b"],
      ],
      "p -> b -> c -> b",
    ],
  ])("%s", async (_shape, links, loop) => {
    const config = links.map(([name = "", source = ""]) => profile(name, `${ROLE}source_profile = ${source}\n`)).join("");
    const before = stub.requests.length;
    const result = await probeWith(config);
    // Before: { kind: "session-invalid", code: "CredentialsProviderError" }, read as "log in again".
    expect(result).toMatchObject({ kind: "failed", code: "SourceProfileCycle", detail: expect.stringContaining(loop) });
    expect(stub.requests.length).toBe(before);
  });

  posixOnly("loops through a credential_process", () => {
    test("a loop whose profiles name a credential_process never runs it", async () => {
      const trusted = path.join(top, "loop-bin");
      mkdirSync(trusted);
      const marker = path.join(top, "loop-ran");
      helper(path.join(trusted, "creds"), marker);
      const config = `${profile("p", `source_profile = b\n`)}${profile("b", `credential_process = ${path.join(trusted, "creds")}\nsource_profile = p\n`)}`;
      const result = await probeWith(config);
      expect(result).toMatchObject({ kind: "failed", code: "SourceProfileCycle" });
      expect(existsSync(marker)).toBe(false);
    });
  });
});

describe("only the profiles the credential chain reaches are judged", () => {
  test("a credential_process past the chain's source (a source_profile beside keys, which neither reader follows) is not refused", async () => {
    // `p` takes its own keys and has no role: its source_profile leads to a section neither botocore nor the SDK reads.
    const config = `${profile("p", "source_profile = far\n")}${profile("far", "credential_process = bin/creds\n")}`;
    const result = await probeWith(config, { credentials: "[p]\naws_access_key_id = AKIAONE\naws_secret_access_key = s3cr3t\n" });
    // Before: { kind: "failed", code: "RelativeCredentialProcess" }, for a program no reader would start.
    expect(result).toMatchObject({ kind: "identity", account: "222222222222" });
  });

  test("the same credential_process is refused once the chain reaches it (a role over it)", async () => {
    const config = `${profile("p", "role_arn = arn:aws:iam::111111111111:role/R\nsource_profile = far\n")}${profile("far", "credential_process = bin/creds\n")}`;
    await expect(probeWith(config)).resolves.toMatchObject({ kind: "failed", code: "RelativeCredentialProcess" });
  });
});

posixOnly("a profile whose section botocore finds elsewhere than the SDK is refused", () => {
  // botocore files `[profile sso-session.s]` as profile `sso-session.s` and `[sso-session s]` as an SSO session; the
  // SDK files both under `sso-session.s`, the later one's keys only. botocore (1.43) runs bin/creds from the project.
  test("[profile sso-session.s] beside [sso-session s] in the config file", async () => {
    const config = `${profile("sso-session.s", "credential_process = bin/creds\n")}[sso-session s]\nregion = eu-west-1\nendpoint_url = ${stub.url}\naws_access_key_id = AKIAONE\naws_secret_access_key = s3cr3t\n`;
    const result = await probeWith(config, { profile: "sso-session.s" });
    // Before: { kind: "identity", account: "222222222222" }: the SDK signed with the session section's keys.
    expect(result).toMatchObject({ kind: "failed", code: "IniDialectNotSupported", detail: expect.stringContaining("[sso-session s]") as unknown });
  });

  // The SDK files the credentials file's `[profile x]` as profile `profile.x` (over the config file's
  // `[profile profile.x]`), botocore as profile `profile x`: only the config file's credential_process runs under the CLI.
  test("[profile x] in the credentials file, for profile profile.x", async () => {
    const trusted = path.join(top, "trusted-prefixed");
    mkdirSync(trusted);
    const marker = path.join(top, "prefixed-ran");
    helper(path.join(trusted, "creds"), marker);
    const config = profile("profile.x", "credential_process = bin/creds\n");
    const result = await probeWith(config, { profile: "profile.x", credentials: `[profile x]\ncredential_process = ${path.join(trusted, "creds")}\n` });
    // Before: { kind: "identity", account: "111111111111" }: the SDK ran the trusted helper, never judging bin/creds.
    expect(result).toMatchObject({ kind: "failed", code: "IniDialectNotSupported", detail: expect.stringContaining("[profile x]") as unknown });
    expect(existsSync(marker)).toBe(false);
  });
});

describe("aws_security_token, the legacy name of aws_session_token, is held to the same rule", () => {
  const KEYS = "aws_access_key_id = AKIAONE\naws_secret_access_key = s3cr3t\n";
  test("a non-empty aws_security_token (botocore signs with it, the SDK never reads it) is refused, naming no value", async () => {
    const before = stub.requests.length;
    const result = await probeWith(profile("p", ""), { credentials: `[p]\n${KEYS}aws_security_token = legacy-token-value\n` });
    // Before: { kind: "identity", account: "222222222222" }: the probe signed without the token the CLI sends.
    expect(result).toMatchObject({ kind: "failed", code: "LegacySessionTokenNotSupported" });
    expect(JSON.stringify(result)).not.toContain("legacy-token-value");
    expect(stub.requests.length).toBe(before);
  });

  test("one beside an aws_session_token of another value is refused; of the same value, both sign alike", async () => {
    const other = await probeWith(profile("p", ""), { credentials: `[p]\n${KEYS}aws_session_token = one\naws_security_token = two\n` });
    expect(other).toMatchObject({ kind: "failed", code: "LegacySessionTokenNotSupported" });
    const same = await probeWith(profile("p", ""), { credentials: `[p]\n${KEYS}aws_session_token = one\naws_security_token = one\n` });
    expect(same).toMatchObject({ kind: "identity", account: "222222222222" });
  });

  test("in a role's source profile too", async () => {
    const config = `${profile("p", "role_arn = arn:aws:iam::111111111111:role/R\nsource_profile = keys\n")}${profile("keys", "")}`;
    const result = await probeWith(config, { credentials: `[keys]\n${KEYS}aws_security_token = legacy-token-value\n` });
    expect(result).toMatchObject({ kind: "failed", code: "LegacySessionTokenNotSupported" });
  });
});

describe("a blank region variable in the child's environment is refused, pinned region or not", () => {
  const KEYS = "[p]\naws_access_key_id = AKIAONE\naws_secret_access_key = s3cr3t\n";
  test.each([
    ["AWS_REGION", "", "eu-west-2"],
    ["AWS_REGION", " ", undefined],
    ["AWS_DEFAULT_REGION", "", "eu-west-2"],
    ["AWS_DEFAULT_REGION", "\t", "eu-west-2"],
  ])("%s=%j (pinned region %s)", async (name, value, region) => {
    // The control: the variable unset, the same profile is confirmed.
    await expect(probeWith(profile("p", ""), { credentials: KEYS, ...(region === undefined ? {} : { region }) })).resolves.toMatchObject({ kind: "identity" });
    const before = stub.requests.length;
    const result = await probeWith(profile("p", ""), { credentials: KEYS, env: { [name]: value }, ...(region === undefined ? {} : { region }) });
    // Before (AWS_REGION, or a pinned region): { kind: "identity" }, while the programs the CLI starts read the blank value.
    expect(result).toMatchObject({ kind: "failed", code: "BlankRegion" });
    expect(stub.requests.length).toBe(before);
  });
});

describe("a web identity token file named by a relative path", () => {
  // The SDK looks the path up in its token record first (where `exec` is the runner) and reads it relative to
  // the server's directory; the CLI reads it relative to the child's, the agent's project.
  test.each(["exec", "token", "sub/token"])("%j is refused, naming the fix", async (file) => {
    const before = stub.requests.length;
    const result = await probeWith(profile("p", `role_arn = arn:aws:iam::111111111111:role/R\nweb_identity_token_file = ${file}\n`));
    // Before: the SDK took the runner as the token (`exec`) or read the server's directory.
    expect(result).toMatchObject({ kind: "failed", code: "RelativeWebIdentityTokenFile", detail: expect.stringContaining("absolute path") });
    expect(stub.requests.length).toBe(before);
  });
});

describe("the SDK's token record holds the process runner under `exec`", () => {
  test("an sso-session named exec is refused rather than read as a token", async () => {
    const config =
      "[profile p]\nsso_session = exec\nsso_account_id = 111111111111\nsso_role_name = Dev\nregion = eu-west-1\n" +
      "[sso-session exec]\nsso_start_url = https://torii-test.awsapps.com/start\nsso_region = us-east-2\n";
    await expect(probeWith(config)).resolves.toMatchObject({ kind: "failed", code: "SsoSessionNameNotSupported" });
  });
});

/**
 * A config file that answers another text at each reading: a named pipe fed by
 * a writer process that hands the first reader one text and every later reader
 * another, waiting for each reader to close before the next (an open for
 * writing without blocking fails once no reader is left). The check must
 * judge and resolve the first text only.
 */
const WRITER = `
const fs = require("node:fs");
const [fifo, first, later] = process.argv.slice(1);
for (let round = 0; ; round += 1) {
  fs.writeFileSync(fifo, round === 0 ? first : later);
  for (;;) {
    try { fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); } catch { break; }
  }
}
`;

posixOnly("each AWS file is read once per check, and that text is what the checks and the SDK read", () => {
  test("a config file whose text changes between readings: the check resolves the first text only", async () => {
    const dir = path.join(top, "changing");
    mkdirSync(dir);
    const fifo = path.join(dir, "config");
    execFileSync("mkfifo", [fifo]);
    writeFileSync(path.join(dir, "credentials"), "");
    const first = profile("p", "aws_access_key_id = AKIAONE\naws_secret_access_key = s3cr3t\n");
    const later = profile("p", "aws_access_key_id = AKIAPROC\naws_secret_access_key = s3cr3t\n");
    const writer = spawn(process.execPath, ["-e", WRITER, fifo, first, later], { stdio: "ignore" });
    onTestFinished(() => {
      writer.kill("SIGKILL");
    });
    const env = { HOME: dir, PATH: "/usr/bin:/bin", AWS_CONFIG_FILE: fifo, AWS_SHARED_CREDENTIALS_FILE: path.join(dir, "credentials") };
    const result = await probeCallerIdentity(stsInputsOf(env, "p", undefined, placeIn()), new AbortController().signal);
    // Before: account 111111111111, the keys of the later text, which the SDK's own (third) reading got while
    // the chain walk had read the first one.
    expect(result).toMatchObject({ kind: "identity", account: "222222222222" });
  });
});

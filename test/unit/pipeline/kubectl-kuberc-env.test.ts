/**
 * kubectl from 1.34 reads `~/.kube/kuberc` (aliases, command defaults) unless
 * `KUBECTL_KUBERC` is "false" (cmd.go: `!cmdutil.KubeRC.IsDisabled()`); stripping
 * the server's `KUBECTL_*` (removed_env) left the feature on. The bundled
 * kubectl fixes it "false" in every child, over the server's environment and
 * every `.env` layer (red team 22, policy F3), so a kuberc's aliases and defaults
 * never change what a call's words do.
 */
import { describe, expect, it } from "vitest";
import type { ProviderEntry } from "../../../src/config/registry.js";
import { childEnvOf, type ChildPlanDeps } from "../../../src/pipeline/child-plan.js";
import { bundledProviderConfig } from "../../support/policy-helpers.js";

const kubectl = { name: "kubectl", tool: "kubectl", config: bundledProviderConfig("kubectl") } as unknown as ProviderEntry;
const deps: ChildPlanDeps = {
  serverEnv: { PATH: "/usr/bin:/bin", HOME: "/home/op", KUBECTL_KUBERC: "true", KUBERC: "/home/op/other-kuberc" },
  platform: "linux",
  selfDir: "/opt/torii",
  cwd: "/home/op/proj",
};

describe("kubectl's child environment: kuberc is off", () => {
  it("fixes KUBECTL_KUBERC=false over the server's environment and a .env that turns it on", () => {
    const child = childEnvOf(kubectl, [new Map([["KUBECTL_KUBERC", "true"]])], {}, deps);
    expect(child.KUBECTL_KUBERC).toBe("false");
    expect(child.KUBERC).toBeUndefined();
  });

  it("an operator tree installed before the bundled provider fixed it (no fixed_env entry) still gets it: the runtime floor", () => {
    const { runtime, ...older } = kubectl.config;
    const withoutIt = { ...older, runtime: { ...runtime, fixed_env: {} } };
    const child = childEnvOf({ ...kubectl, config: withoutIt } as unknown as ProviderEntry, [], {}, deps);
    expect(child.KUBECTL_KUBERC).toBe("false");
    const noRuntime = childEnvOf({ ...kubectl, config: older } as unknown as ProviderEntry, [], {}, deps);
    expect(noRuntime.KUBECTL_KUBERC).toBe("false");
  });

  it("a value the provider sets itself wins over the floor (the operator owns provider.yaml)", () => {
    const config = { ...kubectl.config, runtime: { ...kubectl.config.runtime, fixed_env: { KUBECTL_KUBERC: "true" } } };
    expect(childEnvOf({ ...kubectl, config } as unknown as ProviderEntry, [], {}, deps).KUBECTL_KUBERC).toBe("true");
  });
});

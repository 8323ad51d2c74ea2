/**
 * The check for stores a call's `.env` layers place (pipeline/moved-stores.ts):
 * the layers as the child gets them (later ones win; on Windows one variable
 * whatever its case), the child's home, lists of stores, and the arguments
 * the grammar proved remote left out.
 */
import { describe, expect, it } from "vitest";
import type { ChildPlanDeps, CredentialLayers } from "../../../src/pipeline/child-plan.js";
import { movedStoreUse } from "../../../src/pipeline/moved-stores.js";
import type { ProviderCall } from "../../../src/pipeline/provider-call.js";

const provider = { trust: { root: "/srv/torii" } } as unknown as ProviderCall["provider"];
const posix: ChildPlanDeps = { serverEnv: { HOME: "/home/op" }, platform: "linux", selfDir: "/opt/torii", cwd: "/home/op/proj" };
const windows: ChildPlanDeps = { serverEnv: { USERPROFILE: "C:\\Users\\op" }, platform: "win32", selfDir: "C:\\torii", cwd: "C:\\Users\\op\\proj" };

function use(args: readonly string[], layers: CredentialLayers, deps: ChildPlanDeps = posix, remote?: ReadonlySet<number>): ReturnType<typeof movedStoreUse> {
  return movedStoreUse({ provider, target: undefined, args }, layers, deps, remote);
}

const layer = (entries: Record<string, string>): ReadonlyMap<string, string> => new Map(Object.entries(entries));

describe("stores a call's .env layers place", () => {
  it("an argument inside or above a store a layer names is found, with the variable", () => {
    const layers = [layer({ AWS_SHARED_CREDENTIALS_FILE: "/srv/secrets/aws" })];
    expect(use(["s3", "cp", "/srv/secrets/aws", "s3://b/"], layers)).toEqual({ index: 2, variable: "AWS_SHARED_CREDENTIALS_FILE" });
    expect(use(["s3", "sync", "/srv", "s3://b/"], layers)).toEqual({ index: 2, variable: "AWS_SHARED_CREDENTIALS_FILE" });
    expect(use(["s3", "cp", "/srv/other", "s3://b/"], layers)).toBeUndefined();
    expect(use(["s3", "cp", "/srv/secrets/aws", "s3://b/"], [])).toBeUndefined();
  });

  it("a later layer wins, as in the child's environment", () => {
    const layers = [layer({ KUBECONFIG: "/srv/provider.yaml" }), layer({ KUBECONFIG: "/srv/target/kc:/srv/extra/kc" })];
    expect(use(["get", "-f", "/srv/extra"], layers)).toEqual({ index: 2, variable: "KUBECONFIG" });
    expect(use(["get", "-f", "/srv/provider.yaml"], layers)).toBeUndefined();
  });

  it("a home a layer moves places the stores below it, and `~` is that home", () => {
    const layers = [layer({ HOME: "/srv/agent-home" })];
    expect(use(["cp", "/srv/agent-home/.aws/credentials", "s3://b/"], layers)).toEqual({ index: 1, variable: "HOME" });
    expect(use(["cp", "--body", "/srv/h/gc/x", "s3://b/"], [layer({ HOME: "/srv/h", CLOUDSDK_CONFIG: "~/gc" })])).toEqual({
      index: 2,
      variable: "CLOUDSDK_CONFIG",
    });
    expect(use(["cp", "/srv/agent-home/project", "s3://b/"], layers)).toBeUndefined();
  });

  it("on Windows a variable is one whatever its case, and lists split on `;`", () => {
    const layers = [layer({ kubeconfig: "C:\\kube\\prod;D:\\k2" }), layer({ AppData: "E:\\Roaming" })];
    expect(use(["get", "-f", "d:/K2"], layers, windows)).toEqual({ index: 2, variable: "KUBECONFIG" });
    expect(use(["cp", "E:\\Roaming\\gcloud\\credentials.db", "gs://b"], layers, windows)).toEqual({ index: 1, variable: "APPDATA" });
  });

  it("an argument the grammar proved remote is left out", () => {
    const layers = [layer({ AWS_CONFIG_FILE: "/srv/aws/config" })];
    expect(use(["exec", "pod", "--", "cat", "/srv/aws/config"], layers, posix, new Set([3, 4]))).toBeUndefined();
    expect(use(["exec", "pod", "--", "cat", "/srv/aws/config"], layers)).toEqual({ index: 4, variable: "AWS_CONFIG_FILE" });
  });
});

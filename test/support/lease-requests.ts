/**
 * The configuration the lease-request tests share (e2e and browser): a
 * kubectl-like provider with two targets, `prod` and `dev`, behind a
 * non-target-aware identity provider, and a reader of the live leases.
 */
import path from "node:path";
import { LeaseStore, liveAuthorizations } from "../../src/state/lease-store.js";
import { kubeContextProvider, makeConfigTree } from "./config-tree.js";

/** A config root with `kube` (deny delete, accept get) and its targets `prod` and `dev`; `settings` is settings.yaml's text. */
export function leaseRequestTree(settings: string): string {
  return makeConfigTree({
    "settings.yaml": settings,
    "providers/kube/provider.yaml": kubeContextProvider("recorder"),
    "providers/kube/rules.yaml": 'version: "1"\ndeny: [delete]\naccept: [get]\n',
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: idp}\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n',
    "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: recorder\n',
    "providers/idp/rules.yaml": 'version: "1"\n',
  });
}

/** The `kube` targets whose lease is live now under `root`. */
export function liveKubeTargets(root: string): string[] {
  const read = new LeaseStore(path.join(root, "providers", "kube")).read();
  if (!read.ok) throw read.error;
  return liveAuthorizations(read.state, new Date()).map((lease) => lease.target);
}

/**
 * The second credential-places check, for stores only the operator's `.env`
 * knows: a provider or target `.env` (or a stored session) may move
 * AWS_SHARED_CREDENTIALS_FILE, KUBECONFIG, CLOUDSDK_CONFIG, HOME and the like,
 * and is read only after the allow (invariant "authorise before
 * authenticate"), so the first check (pipeline/credential-places.ts, before
 * the rules) cannot know those places. This one runs once the layers are
 * read and before the child starts, on the same agent argv, with the child's
 * view: its home and variables as the layers set them.
 */
import path from "node:path";
import { storesNamedBy, storeVariableReachedBy } from "../policy/grammar/credential-places.js";
import type { ChildPlanDeps, CredentialLayers } from "./child-plan.js";
import { credentialPlacesFor } from "./credential-places.js";
import type { ProviderCall } from "./provider-call.js";

/** The first argument that reaches a store a layer names, and the variable that names it (never its value). */
export interface MovedStoreUse {
  readonly index: number;
  readonly variable: string;
}

/** The first agent argument inside or above a store the call's `.env` layers place, or `undefined`. */
export function movedStoreUse(
  call: Pick<ProviderCall, "provider" | "target" | "args">,
  layers: CredentialLayers,
  deps: ChildPlanDeps,
  remote: ReadonlySet<number> = new Set(),
): MovedStoreUse | undefined {
  const win32 = deps.platform === "win32";
  // Later layers win, as in the child's environment; Windows names are one variable whatever their case.
  const layered = new Map<string, string>();
  for (const layer of layers) for (const [name, value] of layer) layered.set(win32 ? name.toUpperCase() : name, value);
  const named = [...layered].flatMap(([name, value]) => storesNamedBy(name, value, win32 ? path.win32.delimiter : path.posix.delimiter));
  if (named.length === 0) return undefined;
  const inherited = Object.entries(deps.serverEnv).filter(([name]) => !layered.has(win32 ? name.toUpperCase() : name));
  const places = credentialPlacesFor({
    env: { ...Object.fromEntries(inherited), ...Object.fromEntries(layered) },
    platform: deps.platform,
    cwd: deps.cwd,
    root: call.provider.trust.root,
    kubeconfig: call.target?.config.kubeconfig,
  });
  for (const [index, token] of call.args.entries()) {
    if (remote.has(index)) continue;
    const variable = storeVariableReachedBy(token, places, named);
    if (variable !== undefined) return { index, variable };
  }
  return undefined;
}

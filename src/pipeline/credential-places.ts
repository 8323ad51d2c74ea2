/**
 * Where a call's credential stores are, as the server knows them before the
 * allow (policy/grammar/credential-places.ts refuses a token inside or above
 * one). Only what needs no `.env`, session or credential read: the child's
 * homes and working directory, the configuration root (identities' sessions
 * live below it), the target's `kubeconfig:` pin, Windows' roaming folder and
 * the store files the server's own environment names. A store a `.env` moves
 * elsewhere (AWS_SHARED_CREDENTIALS_FILE=/srv/x) is not known here: reading
 * the `.env` before the allow is what the pipeline order forbids, so
 * moved-stores.ts checks those once the layers are read.
 */
import os from "node:os";
import path from "node:path";
import { isStoreVariable, type CredentialPlaces } from "../policy/grammar/credential-places.js";
import { accountName } from "../runtime/account-name.js";
import type { ChildPlanDeps } from "./child-plan.js";
import type { ProviderCall } from "./provider-call.js";

/** What the caller knows about the call's place. */
export interface PlaceInputs {
  /** The environment the child's allowlisted variables come from (the server's, or the operator CLI's). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  /** The child's working directory. */
  readonly cwd: string;
  /** The configuration root. */
  readonly root: string;
  /** The target's `kubeconfig:` pin, when it has one. */
  readonly kubeconfig?: string | undefined;
}

/** Variables whose value is a home or a folder of stores (a token may spell them). */
const PLACE_VARIABLES = ["HOME", "USERPROFILE", "HOMEDRIVE", "HOMEPATH", "SYSTEMDRIVE", "APPDATA", "LOCALAPPDATA", "XDG_CONFIG_HOME"];

/** The places of one call, from data the caller already holds. */
export function credentialPlacesFor(inputs: PlaceInputs): CredentialPlaces {
  const { env, platform } = inputs;
  const paths = platform === "win32" ? path.win32 : path.posix;
  const value = (name: string): string | undefined => {
    const key = platform === "win32" ? Object.keys(env).find((candidate) => candidate.toUpperCase() === name) : name;
    const found = key === undefined ? undefined : env[key];
    return found === undefined || found === "" ? undefined : found;
  };
  const homes = unique([value(platform === "win32" ? "USERPROFILE" : "HOME"), value("HOME"), os.homedir()]);
  const variables = Object.fromEntries(PLACE_VARIABLES.flatMap((name) => (value(name) === undefined ? [] : [[name, value(name) as string]])));
  const named = Object.keys(env)
    .filter(isStoreVariable)
    .flatMap((name) => (env[name] ?? "").split(paths.delimiter));
  const appData = value("APPDATA");
  const roaming = appData === undefined ? [] : [paths.join(appData, "gcloud"), paths.join(appData, "torii"), paths.join(appData, "azure")];
  const config = value("XDG_CONFIG_HOME");
  const xdg = config === undefined ? [] : [paths.join(config, "gcloud"), paths.join(config, "torii")];
  const stores = unique([inputs.root, inputs.kubeconfig, ...named, ...roaming, ...xdg]).filter((store) => paths.isAbsolute(store));
  return { homes, cwd: inputs.cwd, userName: accountName(), stores, variables, hostNames: [os.hostname()] };
}

function unique(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((entry): entry is string => entry !== undefined && entry !== ""))];
}

/** Places per target (or provider) and server: the inputs do not change while a server runs. */
const placesCache = new WeakMap<object, { readonly deps: ChildPlanDeps; readonly places: CredentialPlaces }>();

/** The places of a server call: its target's kubeconfig pin, the server's environment and working directory. */
export function callPlaces(call: Pick<ProviderCall, "provider" | "target">, deps: ChildPlanDeps): CredentialPlaces {
  const key = call.target ?? call.provider;
  const cached = placesCache.get(key);
  if (cached?.deps === deps) return cached.places;
  const places = credentialPlacesFor({
    env: deps.serverEnv,
    platform: deps.platform,
    cwd: deps.cwd,
    root: call.provider.trust.root,
    kubeconfig: call.target?.config.kubeconfig,
  });
  placesCache.set(key, { deps, places });
  return places;
}

/** The places as this process sees them (the operator CLI, `torii_policy`): its environment and working directory. */
export function processPlaces(root: string, kubeconfig?: string): CredentialPlaces {
  return credentialPlacesFor({ env: process.env, platform: process.platform, cwd: process.cwd(), root, kubeconfig });
}

/**
 * The identity provider `torii setup` creates for kubectl targets.
 *
 * A `kubectl_context` target must name an identity provider that is not
 * target-aware, and every bundled provider is. kubectl's credentials come from
 * the kubeconfig (auth strategy `inherited`, nothing to validate), so the
 * provider only gives those targets an auth scope. `expose: false` keeps it out
 * of the agent's tool list; as a second wall its command is `true` and its
 * rules deny every argv (`/.*\/` is a deny, which no grant or approval gets past).
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { providerConfigPath, providerDir, providersDir, rulesPath } from "../../config/paths.js";
import { writeFileAtomic } from "../../state/atomic-write.js";

/** Its provider (and tool) name. */
export const KUBE_IDENTITY = "kube-identity";

const PROVIDER_YAML = `# Created by torii setup: the identity provider of the kubectl targets. Their
# credentials come from the kubeconfig; this provider only gives them an auth
# scope. It is no MCP tool (expose: false), runs \`true\` and its rules deny
# every call: it is not for agents.
version: "1"
name: ${KUBE_IDENTITY}
tool: ${KUBE_IDENTITY}
description: "Identity scope of the kubectl targets. Not for agents: every call is denied."
expose: false
command: "true"
auth:
  strategy: inherited
argv:
  parser: plain
`;

const RULES_YAML = `version: "1"
deny:
  - '/.*/'   # every call: this provider exists only as the kubectl targets' identity provider
accept: []
`;

/** Creates the provider under `root` unless it exists; returns whether it was created. */
export async function ensureKubeIdentity(root: string): Promise<boolean> {
  const dir = providerDir(root, KUBE_IDENTITY);
  if (existsSync(providerConfigPath(dir))) return false;
  mkdirSync(providersDir(root), { recursive: true, mode: 0o700 });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(rulesPath(dir), Buffer.from(RULES_YAML, "utf8"));
  await writeFileAtomic(path.join(dir, "provider.yaml"), Buffer.from(PROVIDER_YAML, "utf8"));
  return true;
}

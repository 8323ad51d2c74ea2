import { expect, test } from "vitest";
import { exposedProviders } from "../../../../src/config/exposure.js";
import { loadRegistry } from "../../../../src/config/registry.js";
import { ensureKubeIdentity, KUBE_IDENTITY } from "../../../../src/commands/setup/kube-identity.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

test("the identity provider torii setup creates for kubectl targets is installed but is no MCP tool", async () => {
  const root = tempDirectory("torii-kube-identity-");
  expect(await ensureKubeIdentity(root)).toBe(true);
  const registry = loadRegistry(root);
  expect(registry.providersByName.get(KUBE_IDENTITY)?.config.expose).toBe(false);
  expect(exposedProviders(registry).map((provider) => provider.name)).not.toContain(KUBE_IDENTITY);
  expect(await ensureKubeIdentity(root)).toBe(false);
});

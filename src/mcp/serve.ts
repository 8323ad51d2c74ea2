/**
 * `torii` (no arguments) and `torii mcp`: serve MCP on stdio.
 *
 * Start-up loads the whole configuration (pipeline/server-configuration.ts).
 * A configuration that fails to load starts nothing that runs commands: the
 * server then only explains the failure (serve-config-error.ts). Stdout
 * carries JSON-RPC only; diagnostics go to stderr. The transport is Torii's
 * own (./stdio/transport.ts): it bounds each message by `max_message_bytes`
 * and answers invalid ones instead of dropping them. Shutdown on stdin
 * end/close and signals is serve-lifecycle.ts's: calls in flight are aborted
 * (their process groups killed), audit records flushed.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AuditLog } from "../audit/audit-log.js";
import { ScopeMutex } from "../pipeline/scope-mutex.js";
import { createCallAudit } from "../pipeline/call-audit.js";
import { FileGrantGate, FileLeaseGate } from "../pipeline/file-gates.js";
import { headlessApprover } from "../pipeline/gates.js";
import { invoke, type InvokeDeps } from "../pipeline/invoke.js";
import { loadServerConfiguration, startupFailureOf, type ConfigurationLoad, type ServerConfiguration } from "../pipeline/server-configuration.js";
import { Semaphore } from "../runtime/concurrency.js";
import { launch } from "../runtime/launcher.js";
import { policyTool } from "./policy-tool.js";
import { providerTool } from "./provider-tool.js";
import { serveConfigurationError } from "./serve-config-error.js";
import { logToStderr, serveUntilClosed } from "./serve-lifecycle.js";
import { createServer, type CreatedServer } from "./server.js";

/** Serves until the client goes away; returns the process exit code (1 when only a start-up failure was served). */
export async function serveStdio(version: string): Promise<number> {
  const loadAgain = (): ConfigurationLoad => loadServerConfiguration({ env: process.env, platform: process.platform, homedir: os.homedir() });
  const load = loadAgain();
  if (!load.ok) return serveConfigurationError(version, load.failure, loadAgain);
  let served: { created: CreatedServer; pendingAudit: Set<Promise<void>> };
  try {
    served = buildServer(version, load.configuration);
  } catch (error) {
    return serveConfigurationError(version, startupFailureOf(error, load.configuration.root), loadAgain);
  }
  const { configuration } = load;
  await serveUntilClosed(served.created, {
    maxMessageBytes: configuration.settings.maxMessageBytes,
    beforeClose: () => Promise.allSettled([...served.pendingAudit]),
    started: () => {
      logToStderr(`serving ${configuration.registry.providers.size} provider(s) from ${configuration.root}`);
    },
  });
  return 0;
}

function buildServer(
  version: string,
  { root, registry, settings, policies }: ServerConfiguration,
): { created: CreatedServer; pendingAudit: Set<Promise<void>> } {
  const audit = new AuditLog(path.join(root, "audit.jsonl"));
  const slots = new Semaphore(settings.maxConcurrentCalls);

  const deps: InvokeDeps = {
    registry,
    settings,
    policies,
    leases: new FileLeaseGate(),
    grants: new FileGrantGate((event, scope, file) => {
      void audit.append({ call_id: randomUUID(), scope, event, detail: file });
    }),
    approver: headlessApprover,
    launch,
    authScopes: new ScopeMutex(),
    serverEnv: process.env,
    platform: process.platform,
    selfDir: path.dirname(fileURLToPath(import.meta.url)),
    cwd: process.cwd(),
  };

  const pendingAudit = new Set<Promise<void>>();
  const tools = [
    ...[...registry.providers.values()].map((provider) =>
      providerTool(provider, {
        newCallId: () => randomUUID(),
        auditFor: (callId, scope) => createCallAudit(audit, { callId, scope }),
        async run(call) {
          const release = await slots.acquire(call.signal);
          try {
            return await invoke(call, deps);
          } finally {
            release();
            void call.audit.flush();
            const flushed = call.audit.settled();
            pendingAudit.add(flushed);
            void flushed.finally(() => pendingAudit.delete(flushed));
          }
        },
      }),
    ),
    policyTool(registry, policies),
  ];
  return { created: createServer(tools, version), pendingAudit };
}

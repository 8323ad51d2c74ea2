/**
 * `torii` (no arguments) and `torii mcp`: serve MCP on stdio.
 *
 * Start-up loads the whole configuration; a configuration that fails to load
 * starts nothing. Stdout carries JSON-RPC only; diagnostics go to stderr. The
 * transport is Torii's own (./stdio/transport.ts): it bounds each message by
 * `max_message_bytes` and answers invalid ones instead of dropping them. The
 * transport does not notice stdin closing, so the server watches stdin itself
 * and shuts down cleanly on end/close, SIGINT and SIGTERM: calls in flight are
 * aborted (their process groups killed), audit records flushed.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AuditLog } from "../audit/audit-log.js";
import { ScopeMutex } from "../pipeline/scope-mutex.js";
import { resolveConfigRoot } from "../config/paths.js";
import { loadRegistry } from "../config/registry.js";
import { loadSettings } from "../config/settings.js";
import { createCallAudit } from "../pipeline/call-audit.js";
import { FileGrantGate, FileLeaseGate } from "../pipeline/file-gates.js";
import { headlessApprover } from "../pipeline/gates.js";
import { invoke, type InvokeDeps } from "../pipeline/invoke.js";
import { PolicyCache } from "../pipeline/policy-cache.js";
import { Semaphore } from "../runtime/concurrency.js";
import { launch } from "../runtime/launcher.js";
import { policyTool } from "./policy-tool.js";
import { providerTool } from "./provider-tool.js";
import { createServer } from "./server.js";
import { BoundedStdioTransport } from "./stdio/transport.js";

/** Where stdio MCP servers may write: never stdout. */
function log(message: string): void {
  process.stderr.write(`torii: ${message}\n`);
}

export async function serveStdio(version: string): Promise<void> {
  const root = resolveConfigRoot(process.env, process.platform, os.homedir());
  const registry = loadRegistry(root);
  if (registry.providers.size === 0) {
    const bundled = fileURLToPath(new URL("../../providers/", import.meta.url));
    throw new Error(
      `no providers installed under ${root}: copy a bundled provider directory from ${bundled} (kubectl, aws, az, gcloud) into ${path.join(root, "providers")} ` +
        "(torii init creates the configuration root)",
    );
  }
  const settings = loadSettings(root);
  const audit = new AuditLog(path.join(root, "audit.jsonl"));
  const slots = new Semaphore(settings.maxConcurrentCalls);
  const policies = new PolicyCache();

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
            void call.audit.flush({ durable: true });
            const flushed = call.audit.settled();
            pendingAudit.add(flushed);
            void flushed.finally(() => pendingAudit.delete(flushed));
          }
        },
      }),
    ),
    policyTool(registry, policies),
  ];
  const created = createServer(tools, version);
  const { server } = created;
  const transport = new BoundedStdioTransport({ maxMessageBytes: settings.maxMessageBytes, log });

  let closing: Promise<void> | undefined;
  const shutdown = (why: string): Promise<void> => {
    closing ??= (async () => {
      log(`shutting down (${why})`);
      await created.cleanup();
      await Promise.allSettled([...pendingAudit]);
      await server.close().catch(() => undefined);
    })();
    return closing;
  };

  process.stdin.on("end", () => void shutdown("stdin ended"));
  process.stdin.on("close", () => void shutdown("stdin closed"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  transport.onerror = (error) => {
    log(`transport error: ${error.message}`);
  };

  await server.connect(transport);
  log(`serving ${registry.providers.size} provider(s) from ${root}`);
  await new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await shutdown("transport closed");
}

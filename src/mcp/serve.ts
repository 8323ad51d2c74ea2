/**
 * `torii` (no arguments) and `torii mcp`: serve MCP on stdio.
 *
 * Start-up loads the whole configuration (pipeline/server-configuration.ts)
 * and builds the tool list; the call side (call-path.ts: pipeline, launcher,
 * audit writer, approval page) is imported with the first tool call.
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
import { exposedProviders } from "../config/exposure.js";
import { staleProviders, staleProvidersLine } from "../config/provider-freshness.js";
import { createCallAudit } from "../pipeline/call-audit.js";
import { loadServerConfiguration, startupFailureOf, type ConfigurationLoad, type ServerConfiguration } from "../pipeline/server-configuration.js";
import { toriiCodeDirectory } from "../runtime/own-code.js";
import { lazyCallPath } from "./lazy-call-path.js";
import { policyTool } from "./policy-tool.js";
import { providerTool } from "./provider-tool.js";
import { serveConfigurationError } from "./serve-config-error.js";
import { raiseOptimisationThreshold } from "./call-tiering.js";
import { holdOptimisingCompiler, releaseOptimisingCompiler } from "./start-up-tiering.js";
import { logToStderr, serveUntilClosed, STDOUT_DRAIN_MS, STDOUT_STALL_MS } from "./serve-lifecycle.js";
import { millisecondsFrom } from "./test-periods.js";
import { createServer, type CreatedServer } from "./server.js";
import { releaseYoungGeneration } from "./young-generation.js";

/** A built server and what its shutdown must wait for. */
interface Served {
  readonly created: CreatedServer;
  /** Hands the transport's `whenWritable` to the call path (set before the first call can arrive). */
  readonly outputRoomFrom: (room: () => Promise<void> | undefined) => void;
  readonly pendingAudit: Set<Promise<void>>;
  readonly closeApprovals: () => Promise<void>;
  /** Records in the audit that the server gave up on its client (when a call ever loaded the audit log; none ran otherwise). */
  readonly recordStall: (why: string) => void;
}

/** What the server's entry (cli.ts) is told about the server's life. */
export interface ServeHooks {
  /**
   * Start-up's work is done: called once, after the first tools/list answer or
   * before the first tool call's work, whichever comes first (cli.ts stores the
   * bundle's code cache then, while the start-up V8 flags still hold: V8 refuses
   * a cache made under other flags).
   */
  readonly startedUp?: () => void;
}

/** Serves until the client goes away; returns the process exit code (1 when only a start-up failure was served). */
export async function serveStdio(version: string, hooks: ServeHooks = {}): Promise<number> {
  holdOptimisingCompiler();
  const loadAgain = (): ConfigurationLoad => loadServerConfiguration({ env: process.env, platform: process.platform, homedir: os.homedir() });
  const load = loadAgain();
  if (!load.ok) return serveConfigurationError(version, load.failure, loadAgain);
  let served: Served;
  try {
    served = buildServer(version, load.configuration, hooks);
  } catch (error) {
    return serveConfigurationError(version, startupFailureOf(error, load.configuration.root), loadAgain);
  }
  const { configuration } = load;
  await serveUntilClosed(served.created, {
    maxMessageBytes: configuration.settings.maxMessageBytes,
    drainMs: millisecondsFrom(process.env, "TORII_STDOUT_DRAIN_MS", STDOUT_DRAIN_MS),
    stallMs: millisecondsFrom(process.env, "TORII_STDOUT_STALL_MS", STDOUT_STALL_MS),
    stalled: served.recordStall,
    transport: (transport) => {
      served.outputRoomFrom(() => transport.whenWritable());
    },
    beforeClose: async () => {
      await served.closeApprovals();
      await Promise.allSettled([...served.pendingAudit]);
    },
    started: () => {
      // Before the "serving" line, so a reader that waits for it has seen this one too.
      const stale = staleProviders(configuration.registry.providers.values());
      if (stale.length > 0) logToStderr(staleProvidersLine(stale));
      logToStderr(`serving ${configuration.registry.providers.size} provider(s) from ${configuration.root}`);
    },
  });
  return 0;
}

function buildServer(version: string, configuration: ServerConfiguration, hooks: ServeHooks): Served {
  const { registry, policies } = configuration;
  let pendingStartedUp = hooks.startedUp;
  const startedUp = (): void => {
    const hook = pendingStartedUp;
    pendingStartedUp = undefined;
    hook?.();
  };
  // The call side is loaded with the first call (call-path.ts): tools/list needs none of it.
  // Fixed now, as before the call side was lazy: a working directory removed later cannot make the first call's load fail.
  let outputRoom: () => Promise<void> | undefined = () => undefined;
  const place = { cwd: process.cwd(), selfDir: toriiCodeDirectory(), outputRoom: () => outputRoom() };
  const callPath = lazyCallPath(() => {
    startedUp();
    releaseYoungGeneration();
    releaseOptimisingCompiler();
    raiseOptimisationThreshold();
    return import("./call-path.js").then(({ createCallPath }) => createCallPath(configuration, place));
  }, logToStderr);

  const pendingAudit = new Set<Promise<void>>();
  const tools = [
    // Identity-only providers (expose: false) are no tool: the agent can neither list nor call them.
    ...exposedProviders(registry).map((provider) =>
      providerTool(provider, {
        newCallId: () => randomUUID(),
        auditFor: (callId, scope) => createCallAudit(callPath.auditSink, { callId, scope }),
        async run(call) {
          try {
            return await (await callPath.get()).run(call);
          } finally {
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
  return {
    created: createServer(tools, version, { listed: startedUp }),
    outputRoomFrom: (room) => {
      outputRoom = room;
    },
    pendingAudit,
    closeApprovals: () => callPath.close(),
    recordStall: (why) => {
      const recorded = callPath
        .ifLoaded()
        .then((loaded) => loaded?.audit.append({ call_id: randomUUID(), scope: "server", event: "client-stalled", detail: `${why}; calls in flight aborted` }));
      const settled = recorded.then(() => undefined);
      pendingAudit.add(settled);
      void settled.finally(() => pendingAudit.delete(settled));
    },
  };
}

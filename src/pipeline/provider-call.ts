/**
 * One validated call from the agent, as it travels through the pipeline.
 */
import type { ProviderEntry, TargetEntry } from "../config/registry.js";
import type { CallAudit } from "./call-audit.js";

/** One validated call from the agent. */
export interface ProviderCall {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry | undefined;
  readonly args: readonly string[];
  /** The agent's stated reason, sanitised. Shown to a human, never used to decide. */
  readonly description: string | undefined;
  /** Aborted when the client cancels the request or the server shuts down. */
  readonly signal: AbortSignal;
  readonly audit: CallAudit;
}

/** The `provider` and `target` fields every outcome of this call carries. */
export function callScope(call: ProviderCall): { provider: string; target?: string } {
  return call.target === undefined ? { provider: call.provider.tool } : { provider: call.provider.tool, target: call.target.name };
}

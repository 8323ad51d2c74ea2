/**
 * Chooses the server's Approver: headless (every question answered no) when
 * `TORII_NO_GUI` is set to anything but an "off" spelling (config/env-switch.ts:
 * `1`, `true`, a typo alike) or `approval.mode: off` in settings.yaml, otherwise
 * the page approver with its local page server, which `close` stops at shutdown.
 */
import { noGuiRequested } from "../config/env-switch.js";
import type { SearchPlace } from "../config/search-trust.js";
import type { Settings } from "../config/settings.js";
import { headlessApprover, type Approver } from "../pipeline/gates.js";
import type { PolicyCache } from "../pipeline/policy-cache.js";
import { auditLogPath } from "../audit/audit-log.js";
import type { RuleEditor } from "./apply-answer.js";
import { openBrowser } from "./open-browser.js";
import { pageAddress } from "./page-address.js";
import { PageApprover } from "./page-approver.js";
import { ApprovalPageServer } from "./page-server.js";
import { fileRuleEditor } from "./rule-offers.js";

export interface ApproverSetup {
  readonly approver: Approver;
  /** Whether a human may be asked (false: headless). */
  readonly interactive: boolean;
  close(): Promise<void>;
}

/** Whether this server may ask a human at all. */
export function approvalsEnabled(env: Readonly<Record<string, string | undefined>>, settings: Settings): boolean {
  return !noGuiRequested(env) && settings.approvalMode !== "off";
}

/** The Approver for this server's environment and settings. */
export function createApprover(options: {
  readonly root: string;
  readonly settings: Settings;
  readonly policies: PolicyCache;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  /** The server's working directory and Torii's code directory (never searched for the browser opener), and the operator's trusted PATH directories. */
  readonly place: SearchPlace;
  readonly rules?: RuleEditor;
}): ApproverSetup {
  if (!approvalsEnabled(options.env, options.settings)) return { approver: headlessApprover, interactive: false, close: () => Promise.resolve() };
  const page = new ApprovalPageServer({
    settleMs: options.settings.approvalSettleSeconds * 1000,
    address: () => pageAddress(options.env, options.settings.approvalAddress),
    // stderr, never stdout (JSON-RPC's): the client's MCP log shows it.
    onFallback: (address, reason) => {
      process.stderr.write(`torii: the approval page cannot listen on ${address} (${reason}); it listens on 127.0.0.1 instead (docs/approval.md)\n`);
    },
  });
  const approver = new PageApprover({
    root: options.root,
    settings: options.settings,
    policies: options.policies,
    page,
    open: (url) => {
      openBrowser(url, options.env, options.place, options.platform);
    },
    rules: options.rules ?? fileRuleEditor(auditLogPath(options.root)),
  });
  return { approver, interactive: true, close: () => page.close() };
}

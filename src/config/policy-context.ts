/**
 * What the policy engine knows of a provider: its grammar with the broker's
 * floors applied, its locked options and commands, its settings. One function
 * builds it, so the server, the operator CLI and the preset checker
 * (scripts/providers/check-presets.mjs) can never evaluate a rule against
 * different grammars.
 */
import type { ProviderPolicyContext } from "../policy/types.js";
import {
  effectiveLockedOptions,
  lockedCommandsOf,
  withFileReadFloor,
  withFileWriteFloor,
  withLockedCommandOptionFloor,
  withParserFloor,
} from "./locked-floor.js";
import { toGrammarSpec, toPolicySettings, type ProviderConfig } from "./provider-schema.js";

/** The policy context of a validated provider definition, floors included. */
export function providerPolicyContext(config: ProviderConfig): ProviderPolicyContext {
  return {
    tool: config.tool,
    grammar: withParserFloor(withFileReadFloor(withFileWriteFloor(withLockedCommandOptionFloor(toGrammarSpec(config), config), config), config), config),
    lockedOptions: effectiveLockedOptions(config),
    lockedCommands: lockedCommandsOf(config),
    settings: toPolicySettings(config),
  };
}

/**
 * HOOK POINT for client registrations (issue: agent registration, src/agents/).
 * Until that lands Torii cannot tell which MCP clients are registered, so
 * doctor reports it as unchecked, with the line `torii setup` prints. The
 * agent-registration work replaces the body of `clientRegistrationChecks` with
 * real checks (registered, pointing at this binary, config readable).
 */
import type { DoctorCheck } from "./doctor-check.js";
import { check } from "./doctor-check.js";

/** Findings about MCP client registrations (the implementation will take the configuration root). */
export function clientRegistrationChecks(): DoctorCheck[] {
  return [check("clients", "warn", "client registrations are not checked yet", "register Torii in your MCP client with the lines `torii setup` prints")];
}

/**
 * The secrets of a call: every value of its credential layers (`.env` files
 * and the stored session), named by the variable it is injected as. The one
 * redactor built from them masks the child's output, error messages and the
 * call's audit records (runtime/redaction.ts).
 */
import { createRedactor, type Redactor } from "../runtime/redaction.js";
import type { CredentialLayers } from "./child-plan.js";

/** The redactor for everything these layers inject. */
export function redactorFor(layers: CredentialLayers): Redactor {
  return createRedactor(layers.flatMap((layer) => [...layer].map(([name, value]) => ({ name, value }))));
}

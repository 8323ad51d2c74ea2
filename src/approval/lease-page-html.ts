/**
 * The approval page in lease mode: a call to a target with no live lease. It
 * shows the requested target, the provider's live leases with their expiry,
 * the call that asked (canonical tokens, the agent's unverified words), a
 * duration, and the choices Replace and Add (press-and-hold, like every
 * allowing choice) and Deny (a click). Add warns when more than one target
 * would be active. The same script and style sheet as the call page serve it.
 */
import type { PageFrame } from "./page-model.js";
import { escapeHtml, pageHead, visibleProse, visibleToken } from "./page-html.js";
import type { PageOffer } from "./page-offer.js";

export interface LeasePageModel {
  readonly tool: string;
  readonly target: string;
  readonly active: readonly { readonly target: string; readonly expires_at: string }[];
  readonly tokens: readonly string[];
  readonly description?: string;
  /** What the page offers (page-offer.ts `leasePageOffer`): it renders these durations, and the server takes no other. */
  readonly offer: PageOffer;
  readonly expiresAt: string;
}

/** The whole lease page, in the session's `frame`. */
export function renderLeasePage(model: LeasePageModel, frame: PageFrame): string {
  const others = model.active.filter((lease) => lease.target !== model.target);
  const active =
    others.length === 0
      ? "<p>No other target of this tool is active.</p>"
      : `<ul class="active-leases">${others.map((lease) => `<li><code>${escapeHtml(lease.target)}</code> until <time>${escapeHtml(lease.expires_at)}</time></li>`).join("")}</ul>`;
  const warning =
    others.length === 0
      ? ""
      : `<p class="warning" id="add-warning">Add keeps ${others.length} other target(s) active: ${others.length + 1} targets of ${escapeHtml(model.tool)} would be active at once.</p>`;
  const tokens = model.tokens.map((token) => `<li><code>${visibleToken(token)}</code></li>`).join("");
  const description =
    model.description === undefined || model.description === ""
      ? "<p>The agent gave no description.</p>"
      : `<blockquote class="agent-words">${visibleProse(model.description)}</blockquote>`;
  const title = `Torii: activate ${model.tool} target ${model.target}?`;
  return `${pageHead(title, frame)}<body data-mode="lease">
<main>
<h1>${escapeHtml(title)}</h1>
<p class="expires">A call needs target <code>${escapeHtml(model.target)}</code>, which has no live lease. Unanswered by <time>${escapeHtml(model.expiresAt)}</time>, it is denied. A lease does not allow the command: the rules, a grant or your approval still decide it.</p>
<section aria-labelledby="h-active"><h2 id="h-active">Active targets of ${escapeHtml(model.tool)}</h2>${active}</section>
<section aria-labelledby="h-call"><h2 id="h-call">The call that asks</h2><ol class="argv">${tokens}</ol>${description}</section>
<section aria-labelledby="h-answer" class="answer"><h2 id="h-answer">Your answer</h2>
<p class="hint" id="hold-hint">Replace and Add are press-and-hold: keep the button (or Space/Enter on it) pressed for one second.</p>
<label>for <input type="number" id="minutes" min="${model.offer.minutes.min}" max="${model.offer.minutes.max}" value="${model.offer.minutes.initial}" aria-label="minutes"> minutes (<span id="minutes-shown">${model.offer.minutes.initial}</span>)</label>
<div class="row"><button type="button" class="deny" data-choice="deny">Deny</button>
<button type="button" class="hold" data-choice="lease-replace" aria-describedby="hold-hint">Replace: only ${escapeHtml(model.target)} active</button>
<button type="button" class="hold" data-choice="lease-add" aria-describedby="hold-hint">Add: keep the others active</button></div>
${warning}
<p id="status" role="status" aria-live="polite"></p>
</section>
</main>
</body>
</html>
`;
}

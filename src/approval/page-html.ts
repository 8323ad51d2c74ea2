/**
 * The approval page's HTML, rendered on the server from the page model. Every
 * value is escaped; nothing the agent sent is ever markup. Tokens are shown one
 * per line, with any character outside printable ASCII written as a visible
 * `\u{…}` escape, an empty token labelled, and a long one's length stated, so
 * a homoglyph, a control character or trailing space cannot pass unseen.
 * Text that mixes Torii's words with the agent's (a policy reason, the
 * description) has its characters that do not show on screen escaped alike.
 * The page carries no inline script or style (the CSP forbids both): its
 * script and style sheet are served beside it.
 */
import { codeEscape, unseenEscapes, visibleAscii } from "../runtime/display-text.js";
import type { AffectedCalls, PageFrame, PageModel, RuleOffer } from "./page-model.js";
import type { PageOffer } from "./page-offer.js";

/** A token longer than this is marked with its length. */
const LONG_TOKEN = 80;

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Text (a command line, an option label) with every character outside printable ASCII and space written as `\u{…}`, then escaped for HTML. */
export function visibleText(text: string): string {
  return escapeHtml(visibleAscii(text));
}

/**
 * Text that mixes Torii's words with what an agent sent (a policy reason
 * quoting a command word, the agent's description, a rule): characters that
 * do not show on screen written as `\u{…}`, then escaped for HTML.
 */
export function visibleProse(text: string): string {
  return escapeHtml(unseenEscapes(text));
}

/** One token, with everything outside printable ASCII made visible. */
export function visibleToken(token: string): string {
  if (token === "") return '<span class="odd">(empty token)</span>';
  let html = "";
  for (const ch of token) {
    const code = ch.codePointAt(0) ?? 0;
    if (code > 0x20 && code < 0x7f) html += escapeHtml(ch);
    else if (code === 0x20) html += '<span class="odd" title="space">␠</span>';
    else html += `<span class="odd" title="U+${code.toString(16).toUpperCase().padStart(4, "0")}">${codeEscape(code)}</span>`;
  }
  const length = Array.from(token).length;
  return length > LONG_TOKEN ? `${html} <span class="note">(${length} characters)</span>` : html;
}

/** One line of what a rule would also change: the scope and head (what agents sent) made visible, Torii's own words as they are. */
function affectedLine(affected: AffectedCalls): string {
  const count = `${affected.calls} call${affected.calls === 1 ? "" : "s"}${affected.certain ? "" : ", some of them"}`;
  return `<li><code>${visibleText(affected.scope)}: ${visibleText(affected.head.join(" "))} … (${count})</code></li>`;
}

function ruleOffer(offer: RuleOffer): string {
  const name = offer.effect === "accept" ? "Always allow" : "Always deny";
  const also =
    offer.alsoAffects.length === 0
      ? "<p>Among the recent audited calls, it would change no other decision.</p>"
      : `<p>Among the recent audited calls, it would also ${offer.effect === "accept" ? "allow" : "deny"}:</p><ul>${offer.alsoAffects.map(affectedLine).join("")}</ul>`;
  const disabled = offer.disabledReason === undefined ? "" : ` disabled aria-describedby="why-${offer.effect}"`;
  const why =
    offer.disabledReason === undefined ? "" : `<p class="disabled-why" id="why-${offer.effect}">Not offered: ${visibleProse(offer.disabledReason)}</p>`;
  return `<div class="rule"><p>Add <code>${visibleText(offer.rule)}</code> to the ${offer.effect} list of <code>${escapeHtml(offer.file)}</code>. <span class="scope">${escapeHtml(offer.scope)}</span></p>${also}${why}
<button type="button" class="hold${offer.effect === "deny" ? " danger" : ""}" data-choice="rule-${offer.effect}"${disabled}>${name}</button></div>`;
}

/**
 * The document's start up to `</head>`: the CSRF token, the session's page
 * key (every request of the page's script carries it, page-session.ts), how
 * long the page still settles before its allowing buttons wake
 * (page-server.ts), the title, and the page's own style sheet and script.
 */
export function pageHead(title: string, frame: PageFrame): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="torii-csrf" content="${escapeHtml(frame.csrf)}">
<meta name="torii-page-key" content="${escapeHtml(frame.pageKey)}">
<meta name="torii-settle-ms" content="${Math.max(0, Math.ceil(frame.settleMs))}">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${frame.base}/page.css">
<script src="${frame.base}/page.js" defer></script>
</head>
`;
}

/** Why the prefix list starts above one token (a file write's hold, lasting-answers.ts), when it does: the terminal says the same. */
function prefixFloor(offer: PageOffer): string {
  const [first] = offer.prefixCounts;
  if (first === undefined || offer.prefixFloorReason === undefined) return "";
  return `\n<p class="disabled-why" id="prefix-floor">No prefix shorter than ${first} tokens: ${escapeHtml(offer.prefixFloorReason)}.</p>`;
}

/** The longest prefix label in the boundary list, in characters, before it is shortened. */
const PREFIX_LABEL = 60;

/**
 * One prefix boundary in the list, as HTML. A long prefix loses its middle, never its end: the boundary is what
 * the operator picks, and every boundary starts alike, so a label cut at its end made boundaries past a long token
 * read the same ("get secrets aaaa..." for 3 tokens and for 4 with `--all-namespaces`). Counted in code points, so
 * no character is split into a lone surrogate that would read as another escape; the agent's text made visible,
 * Torii's own `…` not (an agent's `…` shows as `\u{2026}`).
 */
function prefixLabel(tokens: readonly string[]): string {
  const chars = Array.from(tokens.join(" "));
  if (chars.length <= PREFIX_LABEL) return visibleText(chars.join(""));
  const head = Array.from(tokens[0] ?? "").slice(0, 12);
  const tail = chars.slice(-(PREFIX_LABEL - head.length - 3));
  return `${visibleText(head.join(""))} … ${visibleText(tail.join(""))}`;
}

/** The choices that last, a grant and the rules, or why none is offered. */
function lastingChoices(model: PageModel, offer: PageOffer): string {
  if (offer.noLastingReason !== undefined) {
    return `<p class="disabled-why" id="no-lasting">Allow for a while (a grant) and Always allow / Always deny (a rule) are not offered: ${escapeHtml(offer.noLastingReason)}.</p>`;
  }
  const { grants } = model;
  const boundary = offer.prefixCounts
    .map((count) => {
      const selected = count === grants.prefix.token_count ? " selected" : "";
      return `<option value="${count}"${selected}>${count}: ${prefixLabel(model.tokens.slice(0, count))}</option>`;
    })
    .join("");
  const prefixChoice =
    offer.prefixCounts.length === 0
      ? `<label><input type="radio" name="mode" value="prefix" disabled> a prefix: not offered, since ${escapeHtml(offer.noPrefixReason ?? "none fits this call")}</label>`
      : `<label><input type="radio" name="mode" value="prefix"> every argv starting with the first
<select id="prefix-count" aria-label="prefix boundary (tokens)">${boundary}</select> token(s)</label>${prefixFloor(offer)}`;
  const { min, max, initial } = offer.minutes;
  return `<fieldset><legend>Allow for a while (a grant)</legend>
<label><input type="radio" name="mode" value="exact" checked> exactly this argv</label>
${prefixChoice}
<label>for <input type="number" id="minutes" min="${min}" max="${max}" value="${initial}" aria-label="minutes"> minutes</label>
<button type="button" class="hold" data-choice="grant" data-token-total="${offer.tokenCount}" aria-describedby="hold-hint">Allow for <span id="minutes-shown">${initial}</span> minutes</button></fieldset>
${model.rules.length === 0 ? "" : `<fieldset><legend>Permanently (a rule)</legend>${model.rules.map(ruleOffer).join("")}</fieldset>`}`;
}

/** The whole page for one pending approval, in the session's `frame`. */
export function renderPage(model: PageModel, frame: PageFrame): string {
  const { grants, offer } = model;
  const tokens = model.tokens.map((token, index) => `<li><span class="index">${index + 1}</span><code>${visibleToken(token)}</code></li>`).join("");
  const nearest =
    model.nearestRules.length === 0
      ? "<p>No rule starts like this call.</p>"
      : `<p>Nearest rules:</p><ul>${model.nearestRules.map((near) => `<li>${near.list}: <code>${visibleProse(near.rule)}</code></li>`).join("")}</ul>`;
  const description =
    model.description === undefined || model.description === ""
      ? "<p>The agent gave no description.</p>"
      : `<blockquote class="agent-words">${visibleProse(model.description)}</blockquote>`;
  const title = `Torii: approve ${model.tool}${model.target === undefined ? "" : ` on ${model.target}`}?`;
  return `${pageHead(title, frame)}<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p class="expires">No rule or grant decides this call. Unanswered by <time>${escapeHtml(model.expiresAt)}</time>, it is denied.</p>
<section aria-labelledby="h-call"><h2 id="h-call">The call</h2>
<dl><dt>Tool</dt><dd><code>${escapeHtml(model.tool)}</code></dd>
<dt>Target</dt><dd>${model.target === undefined ? "none (this provider has no targets)" : `<code>${escapeHtml(model.target)}</code>`}</dd>
<dt>Lease</dt><dd>${escapeHtml(model.lease)}</dd></dl>
<h3>Canonical argv, ${model.tokens.length} token${model.tokens.length === 1 ? "" : "s"} (what would run, after the target's injected options)</h3>
<ol class="argv">${tokens}</ol></section>
<section aria-labelledby="h-agent"><h2 id="h-agent">The agent's description: its own words, unverified</h2>${description}</section>
<section aria-labelledby="h-why"><h2 id="h-why">Why nothing decided</h2><p>${visibleProse(model.reason)}</p>${nearest}</section>
<section aria-labelledby="h-grant"><h2 id="h-grant">Narrowest grants</h2>
<p>Exact: <code>${visibleText(grants.exact.command)}</code> allows ${escapeHtml(grants.exact.covers)}.</p>
<p>Prefix: <code>${visibleText(grants.prefix.command)}</code> allows ${escapeHtml(grants.prefix.covers)}.</p></section>
<section aria-labelledby="h-answer" class="answer"><h2 id="h-answer">Your answer</h2>
<p class="hint" id="hold-hint">Allowing choices are press-and-hold: keep the button (or Space/Enter on it) pressed for one second. They wake a moment after the page appears.</p>
<div class="row"><button type="button" class="deny" data-choice="deny">Deny</button>
<button type="button" class="hold" data-choice="once" aria-describedby="hold-hint">Allow once</button></div>
${lastingChoices(model, offer)}
<p id="status" role="status" aria-live="polite"></p>
</section>
</main>
</body>
</html>
`;
}

/**
 * The approval page's script and style sheet, served from the page's own
 * secret path (the CSP allows scripts and styles from 'self' only; nothing
 * inline, nothing external).
 *
 * The script implements press-and-hold: an allowing button does nothing on a
 * click; it must be held (pointer, or Space/Enter on the focused button) for
 * HOLD_MS, and only once ARM_MS have passed since the page appeared (and
 * the server's settle period, given in the page's `torii-settle-ms` meta
 * tag, is over), so a click that was meant for another window, or a key
 * already down, cannot approve. Releasing, leaving the button, losing focus or hiding the page
 * resets the hold. Deny is a plain click. Every POST carries the session's
 * page key (the page's `torii-page-key` meta tag) in `X-Torii-Page-Key`
 * (page-session.ts). A hold that starts tells the server
 * (`…/hold`, with the session cookie), and the server refuses an allowing
 * answer sooner than SERVER_HOLD_MS after that request, so the hold is timed
 * by the server, not from when the page was fetched.
 */

/** How long an allowing button must be held. */
export const HOLD_MS = 1000;
/** The server's floor for a hold: HOLD_MS less an allowance for the two requests' different latencies. */
export const SERVER_HOLD_MS = HOLD_MS - 100;
/** How long after the page appears the allowing buttons stay inert. */
export const ARM_MS = 700;

export const PAGE_JS = `"use strict";
(function () {
  var HOLD_MS = ${HOLD_MS}, ARM_MS = ${ARM_MS};
  var csrf = document.querySelector('meta[name="torii-csrf"]').getAttribute("content");
  var pageKey = document.querySelector('meta[name="torii-page-key"]').getAttribute("content");
  var settleMs = Number(document.querySelector('meta[name="torii-settle-ms"]').getAttribute("content")) || 0;
  var status = document.getElementById("status");
  var armedAt = performance.now() + Math.max(ARM_MS, settleMs);
  var finished = false;
  var holds = [];

  function setStatus(text) { status.textContent = text; }

  function payload(choice) {
    var body = { choice: choice, csrf: csrf };
    if (choice === "grant") {
      var mode = document.querySelector('input[name="mode"]:checked').value;
      var total = Number(document.querySelector('button[data-choice="grant"]').getAttribute("data-token-total"));
      body.mode = mode;
      body.token_count = mode === "exact" ? total : Number(document.getElementById("prefix-count").value);
      body.minutes = Number(document.getElementById("minutes").value);
    }
    if (choice === "lease-replace" || choice === "lease-add") body.minutes = Number(document.getElementById("minutes").value);
    return body;
  }

  function post(path, body) {
    return fetch(location.pathname + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-torii-page-key": pageKey },
      body: JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store"
    });
  }

  function submit(choice) {
    if (finished) return;
    finished = true;
    Array.prototype.forEach.call(document.querySelectorAll("button"), function (b) { b.disabled = true; });
    setStatus("Sending…");
    post("/answer", payload(choice)).then(function (response) {
      return response.json().then(function (json) { return { ok: response.ok, json: json }; });
    }).then(function (result) {
      setStatus(result.json.message);
      document.body.setAttribute("data-answered", result.ok ? "yes" : "refused");
    }, function () {
      setStatus("The answer could not be sent; the call stays pending until it expires.");
      document.body.setAttribute("data-answered", "refused");
    });
  }

  function makeHold(button) {
    var started = null, frame = 0;
    function reset() {
      started = null;
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
      button.style.setProperty("--progress", "0");
      button.removeAttribute("data-holding");
    }
    function tick() {
      if (started === null) return;
      var fraction = Math.min(1, (performance.now() - started) / HOLD_MS);
      button.style.setProperty("--progress", String(fraction));
      if (fraction >= 1) { var choice = button.getAttribute("data-choice"); reset(); submit(choice); return; }
      frame = requestAnimationFrame(tick);
    }
    function start() {
      if (button.disabled || finished || started !== null) return;
      if (performance.now() < armedAt) { setStatus("Not yet: the allowing buttons wake a moment after the page appears."); return; }
      started = performance.now();
      // The server times the hold from this request; an answer it has not seen a hold for is refused.
      post("/hold", { csrf: csrf }).catch(function () { return undefined; });
      button.setAttribute("data-holding", "yes");
      frame = requestAnimationFrame(tick);
    }
    button.addEventListener("pointerdown", function (event) { if (event.button === 0) { event.preventDefault(); button.focus(); start(); } });
    button.addEventListener("pointerup", reset);
    button.addEventListener("pointerleave", reset);
    button.addEventListener("pointercancel", reset);
    button.addEventListener("keydown", function (event) {
      if (event.key !== " " && event.key !== "Enter") return;
      event.preventDefault();
      if (!event.repeat) start();
    });
    button.addEventListener("keyup", function (event) { if (event.key === " " || event.key === "Enter") reset(); });
    button.addEventListener("blur", reset);
    // A click (or a key press the browser turns into one) never answers: only the hold does.
    button.addEventListener("click", function (event) { event.preventDefault(); });
    holds.push(reset);
  }

  Array.prototype.forEach.call(document.querySelectorAll("button.hold"), makeHold);
  document.querySelector('button[data-choice="deny"]').addEventListener("click", function () { submit("deny"); });
  window.addEventListener("blur", function () { holds.forEach(function (reset) { reset(); }); });
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      holds.forEach(function (reset) { reset(); });
      armedAt = Math.max(armedAt, performance.now() + ARM_MS);
      document.body.removeAttribute("data-armed");
      armWhenDue();
    }
  });
  // The buttons wake when the page has been visible ARM_MS and the server's settle period is over.
  function armWhenDue() {
    var left = armedAt - performance.now();
    if (left > 0) { setTimeout(armWhenDue, Math.min(left, 1000)); }
    else if (!finished) { document.body.setAttribute("data-armed", "yes"); if (settleMs > ARM_MS) setStatus(""); }
    if (left > 0 && settleMs > ARM_MS) {
      setStatus("Allowing answers wake in " + Math.ceil(left / 1000) + " s: if another browser opens this page's link meanwhile, this page stops answering (use the terminal).");
    }
  }
  // A call whose argv holds characters that do not show on screen gets no grant, so no duration field.
  var minutes = document.getElementById("minutes");
  if (minutes) minutes.addEventListener("input", function () { document.getElementById("minutes-shown").textContent = minutes.value; });
  document.body.setAttribute("data-ready", "yes");
  armWhenDue();
})();
`;

export const PAGE_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; padding: 1.5rem; line-height: 1.45; }
main { max-width: 52rem; margin: auto; }
h1 { font-size: 1.4rem; }
h2 { font-size: 1.1rem; margin-top: 1.5rem; }
h3 { font-size: 1rem; }
code { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { font-weight: 600; }
ol.argv { list-style: none; padding: 0; }
ol.argv li { display: flex; gap: .75rem; padding: .2rem .4rem; border-bottom: 1px solid #8884; }
ol.argv .index { min-width: 2rem; text-align: right; opacity: .6; }
.odd { background: #f5c542; color: #000; border-radius: 3px; padding: 0 2px; }
.note { opacity: .7; font-size: .85em; }
blockquote.agent-words { border-left: 4px solid #c77; margin: 0; padding: .25rem 1rem; font-style: italic; }
fieldset { margin: 1rem 0; border: 1px solid #8886; }
label { display: block; margin: .3rem 0; }
button { font-size: 1rem; padding: .5rem 1rem; margin: .25rem .5rem .25rem 0; border-radius: 6px; border: 1px solid #666; cursor: pointer; }
button.hold { background: linear-gradient(to right, #3a3 calc(var(--progress, 0) * 100%), transparent 0); }
button.hold.danger { background: linear-gradient(to right, #c33 calc(var(--progress, 0) * 100%), transparent 0); }
button.deny { font-weight: 600; }
button:disabled { opacity: .5; cursor: not-allowed; }
button:focus-visible { outline: 3px solid #36f; outline-offset: 2px; }
.disabled-why { color: #b60; }
#status { font-weight: 600; min-height: 1.5em; }
`;

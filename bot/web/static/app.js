// Homar dashboard: a live preview under time fields, and live page updates (server-sent
// events). Pages work without it; nothing here builds HTML from strings.
"use strict";

function debounce(fn, ms) {
  let timer = null;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

function setupPreview(form) {
  const out = form.querySelector("output.preview");
  const field = (name) => form.querySelector(`[data-${name}]`);
  const when = field("when");
  if (!out || !when) return;
  const update = debounce(async () => {
    const query = new URLSearchParams();
    for (const name of ["when", "repeat", "until"]) {
      const input = field(name);
      if (input && input.value.trim()) query.set(name, input.value.trim());
    }
    if (!query.has("when")) { out.textContent = ""; return; }
    try {
      const response = await fetch(`/preview?${query}`, { credentials: "same-origin" });
      const data = await response.json();
      out.classList.toggle("bad", !data.ok);
      const runs = data.runs && data.runs.length ? `\nNext: ${data.runs.join(" · ")}` : "";
      out.textContent = data.text + runs;  // textContent: shown as text, never as markup
    } catch (err) {
      out.textContent = "";
    }
  }, 250);
  for (const name of ["when", "repeat", "until"]) {
    const input = field(name);
    if (input) input.addEventListener("input", update);
  }
}

async function refresh() {
  // Re-fetch this page and swap in its live region (same origin, server-escaped HTML).
  const active = document.activeElement;
  if (active && active.closest("#live form") && active.matches("input, textarea, select")) {
    return; // don't pull the page out from under someone typing
  }
  const response = await fetch(location.href, { credentials: "same-origin" });
  if (!response.ok) return;
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  const fresh = doc.getElementById("live");
  const live = document.getElementById("live");
  if (fresh && live) {
    live.replaceChildren(...fresh.childNodes);
    live.querySelectorAll("form[data-preview]").forEach(setupPreview);
    document.body.dataset.updated = String(Date.now());
  }
}

function setupLive() {
  const url = document.body.dataset.live;
  if (!url || !window.EventSource) return;
  const events = new EventSource(url);
  events.addEventListener("changed", () => { refresh(); });
  events.addEventListener("signed-out", () => { events.close(); location.href = "/login"; });
  events.addEventListener("open", () => { document.body.dataset.liveReady = "1"; });
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("form[data-preview]").forEach(setupPreview);
  setupLive();
});

// The decision site's search and status filter. Hand-written, no library, no network:
// the data comes from search.js (window.CAIRN_INDEX), loaded by a <script> tag because
// browsers refuse fetch() of file:// URLs.
//
// Decision text is untrusted: this script only ever sets textContent and attributes
// it chose itself, never innerHTML.
(function () {
  "use strict";
  var data = window.CAIRN_INDEX || { entities: [] };
  var input = document.getElementById("q");
  var list = document.getElementById("results");
  var summary = document.getElementById("summary");
  var chips = Array.prototype.slice.call(document.querySelectorAll(".chip"));
  if (!input || !list) return;

  var byPath = {};
  data.entities.forEach(function (entity) {
    var texts = entity.events.map(function (e) { return (e.text + "\n" + e.who).toLowerCase(); });
    byPath[entity.path] = {
      entity: entity,
      haystack: (entity.path + " " + entity.kind + " " + entity.status).toLowerCase(),
      texts: texts,
    };
  });
  var rows = Array.prototype.slice.call(list.querySelectorAll("li.row"));
  var state = { q: "", filter: "" };

  function words(text) {
    return text.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
  }

  // Every word must occur in the entity's path or in one of its events' texts; the
  // first event that holds a word gives the snippet shown under the entity.
  function match(record, terms) {
    if (terms.length === 0) return { ok: true, snippet: null };
    var snippet = null;
    for (var i = 0; i < terms.length; i++) {
      var term = terms[i];
      if (record.haystack.indexOf(term) >= 0) continue;
      var found = -1;
      for (var j = 0; j < record.texts.length; j++) {
        if (record.texts[j].indexOf(term) >= 0) { found = j; break; }
      }
      if (found < 0) return { ok: false, snippet: null };
      if (snippet === null) snippet = record.entity.events[found];
    }
    return { ok: true, snippet: snippet };
  }

  function passes(row, filter) {
    if (!filter) return true;
    if (filter === "due") return row.getAttribute("data-due") === "1";
    return row.getAttribute("data-status") === filter;
  }

  function snippetText(event, terms) {
    var text = event.text || "(by " + event.who + ")";
    var lower = text.toLowerCase();
    var at = -1;
    for (var i = 0; i < terms.length && at < 0; i++) at = lower.indexOf(terms[i]);
    var from = Math.max(0, at - 60);
    var clip = (from > 0 ? "…" : "") + text.slice(from, from + 200) + (text.length > from + 200 ? "…" : "");
    return event.type + " " + event.date + ": " + clip;
  }

  function apply() {
    var terms = words(state.q);
    var shown = 0;
    rows.forEach(function (row) {
      var record = byPath[row.getAttribute("data-path")];
      var result = record ? match(record, terms) : { ok: false, snippet: null };
      var visible = result.ok && passes(row, state.filter);
      row.hidden = !visible;
      var p = row.querySelector(".snippet");
      if (visible && result.snippet) {
        p.textContent = snippetText(result.snippet, terms);
        p.hidden = false;
      } else {
        p.textContent = "";
        p.hidden = true;
      }
      if (visible) shown++;
    });
    chips.forEach(function (chip) {
      chip.setAttribute("aria-pressed", String(chip.getAttribute("data-filter") === state.filter));
    });
    var what = state.filter ? " " + state.filter : "";
    summary.textContent = shown + " of " + rows.length + what + " entities" +
      (terms.length ? " matching \u201c" + state.q.trim() + "\u201d" : "");
    var hash = [];
    if (state.q) hash.push("q=" + encodeURIComponent(state.q));
    if (state.filter) hash.push("status=" + encodeURIComponent(state.filter));
    var wanted = hash.length ? "#" + hash.join("&") : "";
    if (location.hash !== wanted) {
      history.replaceState(null, "", wanted || location.pathname + location.search);
    }
  }

  // A hand-typed or cut link may hold a lone "%": read it as written rather than let
  // decodeURIComponent's URIError stop the page's script.
  function decodePart(text) {
    try {
      return decodeURIComponent(text);
    } catch (e) {
      return text;
    }
  }

  function readHash() {
    state.q = "";
    state.filter = "";
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var at = pair.indexOf("=");
      if (at < 0) return;
      var key = pair.slice(0, at);
      var value = decodePart(pair.slice(at + 1));
      if (key === "q") state.q = value;
      if (key === "status") state.filter = value;
    });
    input.value = state.q;
  }

  input.addEventListener("input", function () { state.q = input.value; apply(); });
  chips.forEach(function (chip) {
    chip.addEventListener("click", function () {
      var filter = chip.getAttribute("data-filter");
      state.filter = state.filter === filter ? "" : filter;
      apply();
    });
  });
  window.addEventListener("hashchange", function () { readHash(); apply(); });
  readHash();
  apply();
  document.documentElement.setAttribute("data-ready", "1");
})();

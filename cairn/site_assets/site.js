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
    byPath[entity.path] = { entity: entity, texts: entity.events.map(function (e) { return e.text; }) };
  });
  var rows = Array.prototype.slice.call(list.querySelectorAll("li.row"));
  var state = { q: "", filter: "" };

  // Ranked as `cairn search` ranks (cairn/store/fulltext.py, cairn/site_search.py): the
  // query's meaningful words, stemmed by the export's porter stems, OR semantics, a
  // phrase's words all required, scored by FTS5's BM25 with the same field weights.
  var rank = data.rank || { stop: [], stems: {}, weights: [], docs: 0, avglen: 0, k1: 1.2, b: 0.75 };
  var stop = {};
  rank.stop.forEach(function (w) { stop[w] = true; });

  function fold(text) {
    return text.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");
  }
  function tokensOf(text) {
    return (text.match(/[\p{L}\p{N}\p{Mn}\p{Co}]+/gu) || []).map(fold);
  }
  function addTerm(list, term) {
    if (!term.tokens.length) return;
    var key = term.tokens.join(" ") + (term.prefix ? "*" : "");
    for (var i = 0; i < list.length; i++) if (list[i].key === key) return;
    term.key = key;
    list.push(term);
  }
  function termOf(text) {
    var prefix = /\*$/.test(text);
    return { tokens: tokensOf(text.replace(/\*+$/, "")), prefix: prefix };
  }
  function parseQuery(text) {
    var terms = [];
    var quoted = /"([^"]*)"/g;
    var m;
    while ((m = quoted.exec(text)) !== null) addTerm(terms, termOf(m[1]));
    var words = [];
    (text.replace(/"([^"]*)"/g, " ").match(/[\p{L}\p{N}_]+\*?/gu) || []).forEach(function (w) {
      addTerm(words, termOf(w));
    });
    var meaningful = words.filter(function (w) {
      return w.prefix || w.tokens.length > 1 || !stop[w.tokens[0]];
    });
    (meaningful.length || terms.length ? meaningful : words).forEach(function (w) { addTerm(terms, w); });
    return terms;
  }
  function stem(token) {
    return Object.prototype.hasOwnProperty.call(rank.stems, token) ? rank.stems[token] : token;
  }
  function weighted(counts) {
    var sum = 0;
    for (var c = 0; c < counts.length; c++) sum += rank.weights[c] * counts[c];
    return sum;
  }
  // A term's weighted count in one document: a prefix sums the stems it begins; a
  // phrase (no positions shipped) counts as its least frequent word, 0 if one is missing.
  function frequency(entity, term) {
    var terms = entity.terms || {};
    var least = Infinity;
    for (var i = 0; i < term.tokens.length; i++) {
      var found = 0;
      if (term.prefix && i === term.tokens.length - 1) {
        var head = term.tokens[i];
        for (var t in terms) {
          if (Object.prototype.hasOwnProperty.call(terms, t) && t.indexOf(head) === 0) found += weighted(terms[t]);
        }
      } else {
        var s = stem(term.tokens[i]);
        if (Object.prototype.hasOwnProperty.call(terms, s)) found = weighted(terms[s]);
      }
      least = Math.min(least, found);
    }
    return least === Infinity ? 0 : least;
  }
  // record -> score, for the records that match (every phrase; else some word).
  function scores(terms) {
    var freqs = [];
    var held = terms.map(function () { return 0; });
    var keys = Object.keys(byPath);
    keys.forEach(function (path) {
      var f = terms.map(function (term) { return frequency(byPath[path].entity, term); });
      f.forEach(function (x, i) { if (x > 0) held[i]++; });
      freqs.push(f);
    });
    var out = {};
    var phrases = terms.filter(function (t) { return t.tokens.length > 1; }).length > 0;
    keys.forEach(function (path, k) {
      var f = freqs[k];
      var ok = phrases
        ? terms.every(function (t, i) { return t.tokens.length === 1 || f[i] > 0; })
        : f.some(function (x) { return x > 0; });
      if (!ok) return;
      var len = byPath[path].entity.len || 0;
      var score = 0;
      for (var i = 0; i < terms.length; i++) {
        if (f[i] <= 0) continue;
        var idf = Math.log((rank.docs - held[i] + 0.5) / (held[i] + 0.5));
        if (idf <= 0) idf = 1e-6;
        var norm = rank.k1 * (1 - rank.b + rank.b * len / (rank.avglen || 1));
        score += idf * (f[i] * (rank.k1 + 1)) / (f[i] + norm);
      }
      out[path] = score;
    });
    return out;
  }

  // The snippet: the first shipped event whose text holds a query word or its stem.
  function snippetOf(record, terms) {
    for (var j = 0; j < record.texts.length; j++) {
      var text = fold(record.texts[j]);
      for (var i = 0; i < terms.length; i++) {
        var word = terms[i].tokens[0];
        if (text.indexOf(word) >= 0 || text.indexOf(stem(word)) >= 0) return record.entity.events[j];
      }
    }
    return null;
  }

  function passes(row, filter) {
    if (!filter) return true;
    if (filter === "due") return row.getAttribute("data-due") === "1";
    return row.getAttribute("data-status") === filter;
  }

  function snippetText(event, terms) {
    var text = event.text || "(by " + event.who + ")";
    var lower = fold(text);
    var at = -1;
    for (var i = 0; i < terms.length && at < 0; i++) at = lower.indexOf(terms[i].tokens[0]);
    var from = Math.max(0, at - 60);
    var clip = (from > 0 ? "…" : "") + text.slice(from, from + 200) + (text.length > from + 200 ? "…" : "");
    return event.type + " " + event.date + ": " + clip;
  }

  function apply() {
    var terms = parseQuery(state.q);
    var scored = terms.length ? scores(terms) : null;
    var shown = 0;
    rows.forEach(function (row) {
      var path = row.getAttribute("data-path");
      var record = byPath[path];
      var ok = !!record && (!scored || Object.prototype.hasOwnProperty.call(scored, path));
      var visible = ok && passes(row, state.filter);
      var snippet = visible && scored ? snippetOf(record, terms) : null;
      row.hidden = !visible;
      var p = row.querySelector(".snippet");
      if (snippet) {
        p.textContent = snippetText(snippet, terms);
        p.hidden = false;
      } else {
        p.textContent = "";
        p.hidden = true;
      }
      if (visible) shown++;
    });
    // The best first; the page's own order among equals and without a query.
    var order = rows.slice();
    if (scored) {
      order.sort(function (a, b) {
        var sa = scored[a.getAttribute("data-path")], sb = scored[b.getAttribute("data-path")];
        return (sb === undefined ? -1 : sb) - (sa === undefined ? -1 : sa) || rows.indexOf(a) - rows.indexOf(b);
      });
    }
    order.forEach(function (row) { list.appendChild(row); });
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

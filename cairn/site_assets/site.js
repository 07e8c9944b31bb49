// The decision site's search and status filter. Hand-written, no library, no network.
// The search data is split in pieces (cairn/site/search_files.py), each a script that
// hands its data to CAIRN_SHARD: browsers refuse fetch() of file:// URLs but do run a
// <script src> added to the page. Nothing is loaded until someone searches or filters;
// then search/meta.js (every entity's path and status), the pieces of the query's
// words, and the pieces holding the pages and texts of the results shown.
//
// Decision text is untrusted: this script only ever sets textContent and attributes
// it chose itself, never innerHTML.
(function () {
  "use strict";
  var input = document.getElementById("q");
  var list = document.getElementById("results");
  var summary = document.getElementById("summary");
  var more = document.getElementById("more");
  var pager = document.getElementById("entity-pager");
  var chips = Array.prototype.slice.call(document.querySelectorAll(".chip"));
  if (!input || !list) return;

  var SHOW = 100; // results rendered at a time ("show more" adds as many again)
  var staticRows = Array.prototype.slice.call(list.querySelectorAll("li.row"));
  var staticSummary = summary.textContent;
  var state = { q: "", filter: "", shown: SHOW };
  var has = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };

  var shards = {};
  var loading = {};
  window.CAIRN_SHARD = function (name, data) { shards[name] = data; };
  function load(name) {
    if (!loading[name]) {
      loading[name] = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = "search/" + name + ".js";
        script.onload = function () {
          if (has(shards, name)) resolve(shards[name]);
          else reject(new Error("search/" + name + ".js holds no search data"));
        };
        script.onerror = function () { reject(new Error("cannot load search/" + name + ".js")); };
        document.head.appendChild(script);
      });
    }
    return loading[name];
  }
  function loadAll(names) { return Promise.all(names.map(load)); }

  var meta = null;
  var rank = null;
  var stop = {};
  var pieces = {};
  function loadMeta() {
    return load("meta").then(function (m) {
      if (!meta) {
        meta = m;
        rank = m.rank;
        rank.stop.forEach(function (w) { stop[w] = true; });
        m.shards.forEach(function (name) { pieces[name] = true; });
      }
      return m;
    });
  }
  function pieceOf(token) { return "t-" + token.codePointAt(0).toString(16); }
  function piecesOf(tokens) {
    var out = [];
    tokens.forEach(function (t) {
      var name = pieceOf(t);
      if (pieces[name] && out.indexOf(name) < 0) out.push(name);
    });
    return out;
  }

  // Ranked as `cairn search` ranks (cairn/store/fulltext.py, cairn/site_search.py): the
  // query's meaningful words, stemmed by the export's porter stems, OR semantics, a
  // phrase's words all required, scored by FTS5's BM25 with the same field weights.
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
  // A word form's stem, from the piece of the form's first character (a form the
  // site's text never holds is its own stem).
  function stem(token) {
    var piece = shards[pieceOf(token)];
    return piece && has(piece.stems, token) ? piece.stems[token] : token;
  }
  // Loads what a query needs: the pieces of its words, then those of their stems.
  function prepare(terms) {
    var tokens = [];
    terms.forEach(function (t) { tokens = tokens.concat(t.tokens); });
    return loadAll(piecesOf(tokens)).then(function () {
      var stems = [];
      terms.forEach(function (t) {
        t.tokens.forEach(function (token, i) {
          stems.push(t.prefix && i === t.tokens.length - 1 ? token : stem(token));
        });
      });
      return loadAll(piecesOf(stems));
    });
  }
  // One token's weighted count per entity: a prefix sums the stems it begins.
  function postingsOf(token, prefix) {
    var out = {};
    var add = function (list) {
      for (var k = 0; k < list.length; k += 2) out[list[k]] = (out[list[k]] || 0) + list[k + 1];
    };
    var s = prefix ? token : stem(token);
    var piece = shards[pieceOf(s)];
    if (!piece) return out;
    if (!prefix) {
      if (has(piece.terms, s)) add(piece.terms[s]);
      return out;
    }
    for (var t in piece.terms) if (has(piece.terms, t) && t.indexOf(s) === 0) add(piece.terms[t]);
    return out;
  }
  // A term's weighted count per entity; a phrase (no positions shipped) counts as its
  // least frequent word, and only where every word is.
  function frequency(term) {
    var least = null;
    term.tokens.forEach(function (token, i) {
      var found = postingsOf(token, term.prefix && i === term.tokens.length - 1);
      if (least === null) { least = found; return; }
      var both = {};
      for (var d in least) if (has(least, d) && has(found, d)) both[d] = Math.min(least[d], found[d]);
      least = both;
    });
    return least || {};
  }
  // entity number -> score, for the entities that match (every phrase; else some word),
  // by FTS5's BM25 as `cairn search` computes it.
  function scores(terms) {
    var freqs = terms.map(frequency);
    var held = freqs.map(function (f) { return Object.keys(f).length; });
    var phrases = terms.some(function (t) { return t.tokens.length > 1; });
    var candidates = {};
    freqs.forEach(function (f) { for (var d in f) if (has(f, d)) candidates[d] = true; });
    var out = {};
    Object.keys(candidates).forEach(function (d) {
      var ok = phrases
        ? terms.every(function (t, i) { return t.tokens.length === 1 || has(freqs[i], d); })
        : true;
      if (!ok) return;
      var len = meta.entities[d][4] || 0;
      var score = 0;
      for (var i = 0; i < terms.length; i++) {
        var f = freqs[i][d] || 0;
        if (f <= 0) continue;
        var idf = Math.log((rank.docs - held[i] + 0.5) / (held[i] + 0.5));
        if (idf <= 0) idf = 1e-6;
        var norm = rank.k1 * (1 - rank.b + rank.b * len / (rank.avglen || 1));
        score += idf * (f * (rank.k1 + 1)) / (f + norm);
      }
      out[d] = score;
    });
    return out;
  }

  // The snippet: the first shipped event whose text holds a query word or its stem.
  function snippetOf(events, terms) {
    for (var j = 0; j < events.length; j++) {
      var text = fold(events[j][3]);
      for (var i = 0; i < terms.length; i++) {
        var word = terms[i].tokens[0];
        if (text.indexOf(word) >= 0 || text.indexOf(stem(word)) >= 0) return events[j];
      }
    }
    return null;
  }

  function snippetText(event, terms) {
    var text = event[3] || "(by " + event[2] + ")";
    var lower = fold(text);
    var at = -1;
    for (var i = 0; i < terms.length && at < 0; i++) at = lower.indexOf(terms[i].tokens[0]);
    var from = Math.max(0, at - 60);
    var clip = (from > 0 ? "…" : "") + text.slice(from, from + 200) + (text.length > from + 200 ? "…" : "");
    return event[0] + " " + event[1] + ": " + clip;
  }

  function passes(entity, filter) {
    if (!filter) return true;
    if (filter === "due") return entity[2] === 1;
    return entity[1] === filter;
  }

  function span(cls, text) {
    var el = document.createElement("span");
    el.className = cls;
    el.textContent = text;
    return el;
  }
  // The row the export writes for an entity (cairn/site/entity_list.py, `row`).
  function rowOf(number, doc, terms) {
    var entity = meta.entities[number];
    var li = document.createElement("li");
    li.className = "row";
    li.setAttribute("data-path", entity[0]);
    li.setAttribute("data-status", entity[1]);
    li.setAttribute("data-due", String(entity[2]));
    var a = document.createElement("a");
    a.setAttribute("href", doc[0]);
    var code = document.createElement("code");
    code.textContent = entity[0];
    a.appendChild(code);
    li.appendChild(a);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(span("badge s-" + entity[1], entity[1]));
    if (entity[5]) {
      li.appendChild(document.createTextNode(" "));
      li.appendChild(span("badge s-removed", "file removed"));
    }
    if (entity[6] && entity[6].length) {
      li.appendChild(document.createTextNode(" "));
      li.appendChild(span("formerly", "formerly " + entity[6].join(", ")));
    }
    if (entity[2]) {
      li.appendChild(document.createTextNode(" "));
      li.appendChild(span("badge s-due", "due"));
    }
    li.appendChild(document.createTextNode(" "));
    li.appendChild(span("count", entity[3] + " decision" + (entity[3] === 1 ? "" : "s")));
    var p = document.createElement("p");
    p.className = "snippet";
    var snippet = terms.length ? snippetOf(doc[1], terms) : null;
    if (snippet) p.textContent = snippetText(snippet, terms);
    else p.hidden = true;
    li.appendChild(p);
    return li;
  }

  function replaceRows(rows) {
    while (list.firstChild) list.removeChild(list.firstChild);
    rows.forEach(function (row) { list.appendChild(row); });
  }

  function writeHash() {
    var hash = [];
    if (state.q) hash.push("q=" + encodeURIComponent(state.q));
    if (state.filter) hash.push("status=" + encodeURIComponent(state.filter));
    var wanted = hash.length ? "#" + hash.join("&") : "";
    if (location.hash !== wanted) {
      history.replaceState(null, "", wanted || location.pathname + location.search);
    }
  }

  var turn = 0; // the newest apply; an older one that finishes late draws nothing
  function apply() {
    var mine = ++turn;
    var terms = parseQuery(state.q); // read again once the stop words are loaded
    var filter = state.filter;
    writeHash();
    // the chips say what the list shows: pressed once the list is drawn
    var drawn = function () {
      list.removeAttribute("aria-busy");
      chips.forEach(function (chip) {
        chip.setAttribute("aria-pressed", String(chip.getAttribute("data-filter") === filter));
      });
    };
    if (!terms.length && !filter) {
      // the page's own rows, as written, with the links to the other list pages
      drawn();
      replaceRows(staticRows);
      summary.textContent = staticSummary;
      more.hidden = true;
      if (pager) pager.hidden = false;
      return Promise.resolve();
    }
    if (pager) pager.hidden = true;
    list.setAttribute("aria-busy", "true");
    return loadMeta()
      .then(function () {
        terms = parseQuery(state.q);
        return terms.length ? prepare(terms) : null;
      })
      .then(function () {
        if (mine !== turn) return null;
        var scored = terms.length ? scores(terms) : null;
        var found = [];
        for (var n = 0; n < meta.entities.length; n++) {
          if ((!scored || has(scored, n)) && passes(meta.entities[n], filter)) found.push(n);
        }
        // the best first; the list's own order among equals and without a query
        if (scored) found.sort(function (a, b) { return scored[b] - scored[a] || a - b; });
        var shown = found.slice(0, state.shown);
        var docPieces = [];
        shown.forEach(function (n) {
          var name = "d-" + Math.floor(n / meta.doc_shard);
          if (docPieces.indexOf(name) < 0) docPieces.push(name);
        });
        return loadAll(docPieces).then(function () { return [found, shown]; });
      })
      .then(function (result) {
        if (!result || mine !== turn) return;
        var found = result[0];
        replaceRows(result[1].map(function (n) {
          var doc = shards["d-" + Math.floor(n / meta.doc_shard)][n % meta.doc_shard];
          return rowOf(n, doc, terms);
        }));
        drawn();
        more.hidden = found.length <= result[1].length;
        var what = filter ? " " + filter : "";
        summary.textContent = found.length + " of " + meta.entities.length + what + " entities" +
          (terms.length ? " matching \u201c" + state.q.trim() + "\u201d" : "");
      })
      .catch(function (error) {
        if (mine === turn) summary.textContent = "The search data could not be read: " + error.message;
      });
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

  function fresh() { state.shown = SHOW; return apply(); }
  input.addEventListener("input", function () { state.q = input.value; fresh(); });
  chips.forEach(function (chip) {
    chip.addEventListener("click", function () {
      var filter = chip.getAttribute("data-filter");
      state.filter = state.filter === filter ? "" : filter;
      fresh();
    });
  });
  more.addEventListener("click", function () { state.shown += SHOW; apply(); });
  window.addEventListener("hashchange", function () {
    // the script's own replaceState fires no hashchange; this is a reader's new link
    readHash();
    fresh();
  });
  readHash();
  fresh().then(function () { document.documentElement.setAttribute("data-ready", "1"); });
})();

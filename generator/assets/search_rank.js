/* Cadence search ranking, put by the build at the head of the engine's search worker (Material's or
 * Zensical's). It ranks the way players look things up, as `cadence search` does (generator/search.py):
 *
 * - words are trimmed of punctuation as the index's are ("Charge!" finds Charge!);
 * - a word spelled the other way ("armor") is searched as the site spells it ("armour"), from the
 *   system's `spelling_variants`, which the build puts in the search index's config;
 * - a result whose name is exactly the query comes first: definitions (units, weapons, rules...)
 *   before other headings, and the reader's game's (which the page script search.js adds to each
 *   query) before other games';
 * - otherwise the reader's game's definitions come before the rest.
 *
 * It runs before the worker's own code: its listener sees each message first (and respells the query
 * in place), and it wraps postMessage to reorder the results going back. Material's worker answers
 * with every result, grouped by page; Zensical's with the best ten at a time, each naming its item
 * by its place in the index. For Zensical, a first ten that is not the whole answer makes the ranking
 * ask the worker at once for all the rest of the same query's results (the worker keeps them, and hands
 * back any slice of them without searching again), rank them all, and send the first ten of its own
 * order; the later tens the page asks for are cut from that order here and never reach the worker.
 * Only the rest is asked for: the worker's last step rewrites each result's highlighted ranges in place
 * as it sends them, and a result sent twice loses them. Zensical's order breaks ties. This reads how Zensical
 * 0.0.73's worker pages (pyproject.toml allows no other). A worker that does not answer the request at once
 * (another version) is never asked again: each first ten is reordered alone, the later tens are the worker's,
 * and its late answer, should it come as the rest of the results, is kept from the page. */
(function () {
  "use strict";
  var SETUP = 0, QUERY = 2, RESULT = 3;
  var SEPARATOR = " \u2014 ";
  var WORD = /[\p{L}\p{N}']+/gu;
  var ENTITIES = { amp: "&", lt: "<", gt: ">", quot: "\"", "#39": "'", "#x27": "'" };
  var variants = {}, query = "", game = "", root = "";
  /* Zensical's: the index's items (a result names one by its place), the definitions' places by their
   * names' keys, and the definition put first in the last query's first ten (-1: none). */
  var items = [], definitions = {}, lifted = -1;
  /* Zensical's: the last query as the page sent it (respelled), every result of it in the new order
   * (`ranked`: the worker's page id, the results, the first answer's other fields), and the taker of the
   * worker's answer to the ranking's own request for the rest (null: none asked). */
  var asked = null, ranked = null, taking = null;
  /* Zensical's: whether the worker answered the ranking's requests at once (it is asked no more once it has
   * not), and the unanswered request's `total` and length (null: none), whose answer must not reach the page. */
  var asking = true, stray = null;

  /* Each word trimmed of punctuation at its ends, as the index's trimmer trims it ("Charge!"),
   * a leading + or - (Material's operators) kept. */
  function trim(text) {
    return text.split(/(\s+)/).map(function (part) {
      return /^\s*$/.test(part) ? part : part.replace(/^([+-]?)\W*/, "$1").replace(/\W+$/, "");
    }).join("");
  }

  function respell(text) {
    return text.replace(WORD, function (word) {
      var site = variants[word.toLowerCase()];
      return typeof site === "string" ? site : word;
    });
  }

  /* A name as compared: its words, lowercased, respelled, without a trailing "(X)" parameter. */
  function key(text) {
    var words = respell(text.replace(/\s*\([^()]*\)\s*$/, "")).toLowerCase().match(WORD);
    return words ? words.join(" ") : "";
  }

  function nameOf(item) {
    if (typeof item.name === "string") return item.name;
    var text = String(item.title).replace(/<[^>]*>/g, "").replace(/&(#?\w+);/g, function (all, name) {
      return ENTITIES[name] || all;
    });
    return text.split(SEPARATOR)[0];
  }

  /* The game a result is in: the first folder of its location below the site's root. */
  function gameOf(item) {
    var location = root !== "" && item.location.indexOf(root) === 0 ? item.location.slice(root.length) : item.location;
    return location.split("/")[0];
  }

  function tier(item, wanted) {
    var here = game !== "" && gameOf(item) === game;
    var definition = typeof item.kind === "string";
    if (wanted && key(nameOf(item)) === wanted) return 2 + 2 * definition + here;
    return here && definition ? 1 : 0;
  }

  /* Results again as Material groups them (by page, best first), in the new order. */
  function rerank(groups) {
    var wanted = key(query);
    var flat = [], fillers = {};
    groups.forEach(function (group) {
      group.forEach(function (item) {
        if (item.score === 0 && item.location.indexOf("#") === -1) fillers[item.location] = item;
        else flat.push({ item: item, tier: tier(item, wanted), at: flat.length });
      });
    });
    flat.sort(function (a, b) { return b.tier - a.tier || b.item.score - a.item.score || a.at - b.at; });
    var pages = new Map(), ceiling = Infinity;
    flat.forEach(function (entry) {
      /* Scores fall in the new order, 1% a place (Material shows scores to two decimals). */
      var item = Object.assign({}, entry.item, { score: Math.min(entry.item.score, ceiling * 0.99) });
      ceiling = item.score;
      var page = item.location.split("#")[0];
      if (!pages.has(page)) pages.set(page, []);
      pages.get(page).push(item);
    });
    pages.forEach(function (items, page) {
      if (!items.some(function (item) { return item.location === page; }) && fillers[page]) items.push(fillers[page]);
    });
    return Array.from(pages.values());
  }

  self.addEventListener("message", function (event) {
    var message = event.data;
    if (!message || message.cadence) return;  // the ranking's own request: for the worker alone
    if (message.type === SETUP && message.data && message.data.config) {
      variants = message.data.config.spelling_variants || {};
      items = Array.isArray(message.data.items) ? message.data.items : [];
      definitions = {};
      items.forEach(function (item, id) {
        if (typeof item.kind !== "string") return;
        var name = key(nameOf(item));
        (definitions[name] = definitions[name] || []).push(id);
      });
    }
    if (message.type !== QUERY || !message.data) return;
    game = typeof message.game === "string" ? message.game : "";
    root = typeof message.root === "string" ? message.root : "";
    if (typeof message.data === "string") {  // Material's
      query = message.data;
      message.data = trim(respell(message.data));
    } else if (typeof message.data.input === "string") {  // Zensical's: its separator trims the words
      var page = message.data.page;
      if (page && ranked && page.id === ranked.id) {  // a later ten of the results ranked here
        event.stopImmediatePropagation();
        post({ type: RESULT, data: slice(page.from, page.size) });
        return;
      }
      if (page) stray = null;  // the page's own later ten: a late answer would have come before it
      query = message.data.input;
      message.data.input = respell(query);
      if (!page) ranked = null;
      asked = message.data;
    }
  });

  /* The results ranked here from `from`, `size` of them, as the worker pages its own. */
  function slice(from, size) {
    var total = ranked.results.length, id = ranked.id;
    return Object.assign({}, ranked.answer, {
      items: ranked.results.slice(from, from + size),
      pagination: {
        total: total,
        prev: from - size >= 0 ? { id: id, size: size, from: from - size } : undefined,
        next: from + size < total ? { id: id, size: size, from: from + size } : undefined
      }
    });
  }

  /* Every result of the last query: the worker's first ten (`first`), then the rest, from the worker,
   * which kept them, asked for as the page asks for a later ten, all in one. The worker answers at once
   * (it searches no more), so the answer is taken here before this returns; null if it was not, or is not
   * all the rest. */
  function everyResult(first) {
    var next = first.pagination.next, rest = first.pagination.total - next.from, answer = null;
    taking = function (data) { answer = data; };
    try {
      var page = { id: next.id, size: rest, from: next.from };
      self.dispatchEvent(new MessageEvent("message", { data: { type: QUERY, data: Object.assign({}, asked, { page: page }), cadence: true } }));
    } catch (error) {
      answer = null;
    } finally {
      taking = null;
    }
    if (answer === null) {
      asking = false;
      stray = { total: first.pagination.total, length: rest };
    }
    return answer && Array.isArray(answer.items) && answer.items.length === rest ? first.items.concat(answer.items) : null;
  }

  /* Zensical's first ten results in the new order; a later ten keeps its place after them. When the name
   * typed is defined in the reader's game and the ten leave that definition out (a name many games use,
   * "Upgrades"), it is put among them, and left out of the later tens. */
  function rerankFirst(found) {
    var wanted = key(query);
    var own = game === "" ? [] : (definitions[wanted] || []).filter(function (id) { return gameOf(items[id]) === game; });
    var ids = found.map(function (result) { return result.id; });
    lifted = own.length && !own.some(function (id) { return ids.indexOf(id) !== -1; }) ? own[0] : -1;
    if (lifted !== -1) found = [{ id: lifted, matches: [] }].concat(found);
    return found.map(function (result, at) {
      var item = items[result.id];
      return { result: result, tier: item ? tier(item, wanted) : 0, at: at };
    }).sort(function (a, b) { return b.tier - a.tier || a.at - b.at; }).map(function (entry) { return entry.result; });
  }

  function reranked(data) {
    if (!data.pagination) return Object.assign({}, data, { items: rerank(data.items) });
    var pagination = data.pagination, next = pagination.next;
    if (pagination.prev !== undefined)  // a later ten from the worker: its results were not all to be had
      return Object.assign({}, data, { items: data.items.filter(function (result) { return result.id !== lifted; }) });
    if (asking && next && asked && typeof next.id === "number" && next.from === data.items.length) {
      var every = everyResult(data);
      if (every) {
        ranked = { id: next.id, results: rerankFirst(every), answer: data };
        return slice(0, next.size);
      }
    }
    return Object.assign({}, data, { items: rerankFirst(data.items) });
  }

  var post = self.postMessage.bind(self);
  /* Whether a result is the rest of a query's results that the ranking asked for and was not given at once. */
  function isStray(data) {
    return stray !== null && !!data && !!data.pagination && data.pagination.total === stray.total &&
      Array.isArray(data.items) && data.items.length === stray.length;
  }

  self.postMessage = function (message) {
    if (message && message.type === RESULT) {
      if (taking) return taking(message.data);
      if (isStray(message.data)) {
        stray = null;
        return;
      }
      if (message.data && Array.isArray(message.data.items)) message = { type: RESULT, data: reranked(message.data) };
    }
    return post.apply(self, [message].concat(Array.prototype.slice.call(arguments, 1)));
  };
})();
